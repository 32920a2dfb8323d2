// A cluster's members, in PostgreSQL: the rows a machine's queueing, resync,
// heartbeat and `cluster forget` write, and the list of machines `cluster status`
// shows. Each runs in the caller's transaction (PgLimiter's), which also
// tells the other machines of the change.

import type pg from 'pg';
import type { Waiter } from '../core/admission.js';
import type { Lease } from './limiter.js';
import type { ClusterDb } from './pg-db.js';

/** The rows that make the cluster agree with one machine's journal (PgLimiter.resync); the lease id of each holder, by run. */
export async function resyncRows(
  c: pg.PoolClient,
  cluster: string,
  host: string,
  ttl: string,
  waiters: readonly Waiter[],
  holders: readonly Lease[],
  afterOutage: boolean,
): Promise<Map<string, string>> {
  await c.query(`INSERT INTO orcr_host (cluster, host) VALUES ($1, $2) ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now()`, [cluster, host]);
  if (afterOutage) await c.query(`UPDATE orcr_cluster SET resumed_at = now() WHERE name = $1`, [cluster]);
  await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND host = $2 AND NOT (uuid = ANY($3::text[]))`, [cluster, host, waiters.map((w) => w.uuid)]);
  await c.query(
    `INSERT INTO orcr_waiter (cluster, uuid, host, name, provider, workload, enqueued_at)
     SELECT $1, u, $2, n, p, w, e FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS t(u, n, p, w, e, o)
     WHERE NOT EXISTS (SELECT 1 FROM orcr_lease l WHERE l.cluster = $1 AND l.uuid = t.u AND NOT l.claimed)
     ORDER BY o
     ON CONFLICT (cluster, uuid) DO NOTHING`,
    [
      cluster,
      host,
      waiters.map((w) => w.uuid),
      waiters.map((w) => w.name ?? w.uuid),
      waiters.map((w) => w.provider),
      waiters.map((w) => w.workload),
      waiters.map((w) => Math.round(w.enqueued_at)),
    ],
  );
  // A lease another machine granted one of our queued runs while we were away is kept for our next grant to claim: dropping it would put the run at the end of the queue.
  await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2 AND NOT (uuid = ANY($3::text[])) AND NOT (NOT claimed AND uuid = ANY($4::text[]))`, [
    cluster,
    host,
    holders.map((h) => h.uuid),
    waiters.map((w) => w.uuid),
  ]);
  await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2 AND expires_at < now()`, [cluster, host]);
  const r = await c.query<{ uuid: string; id: string }>(
    `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at, claimed)
     SELECT $1, u, $2, n, p, w, g, now() + ($8 || ' milliseconds')::interval, true
     FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) AS t(u, n, p, w, g)
     ON CONFLICT (cluster, uuid) DO UPDATE SET host = excluded.host, expires_at = excluded.expires_at, claimed = true
     RETURNING uuid, id`,
    [
      cluster,
      host,
      holders.map((h) => h.uuid),
      holders.map((h) => h.name ?? h.uuid),
      holders.map((h) => h.provider),
      holders.map((h) => h.workload),
      holders.map((h) => Math.round(h.granted_at)),
      ttl,
    ],
  );
  return new Map(r.rows.map((x) => [x.uuid, String(x.id)]));
}

/** This machine's heartbeat and its leases' renewal, machines silent for forgetAfter dropped; the ids of the leases still alive. */
export async function beat(c: pg.PoolClient, cluster: string, host: string, ttl: string, forgetAfter: string, accept = true): Promise<Set<string>> {
  // accept_commands follows config.json (cluster.accept_commands), so other machines read it in our row.
  await c.query(
    `INSERT INTO orcr_host (cluster, host, accept_commands) VALUES ($1, $2, $3) ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now(), accept_commands = $3`,
    [cluster, host, accept],
  );
  const r = await c.query<{ id: string }>(
    `UPDATE orcr_lease SET expires_at = now() + ($3 || ' milliseconds')::interval WHERE cluster = $1 AND host = $2 AND expires_at >= now() RETURNING id`,
    [cluster, host, ttl],
  );
  await c.query(`DELETE FROM orcr_host WHERE cluster = $1 AND host <> $2 AND heartbeat < now() - ($3 || ' milliseconds')::interval`, [
    cluster,
    host,
    forgetAfter,
  ]);
  return new Set(r.rows.map((x) => String(x.id)));
}

/** Drop a machine that is not alive from the cluster's list, with its queue entries and leases (`orcr cluster forget`). */
export async function dropHost(c: pg.PoolClient, cluster: string, host: string, ttl: string): Promise<{ forgotten: boolean; alive: boolean }> {
  const row = (
    await c.query<{ alive: boolean }>(
      `SELECT heartbeat >= now() - ($3 || ' milliseconds')::interval AS alive FROM orcr_host WHERE cluster = $1 AND host = $2 FOR UPDATE`,
      [cluster, host, ttl],
    )
  ).rows[0];
  if (!row) return { forgotten: false, alive: false };
  if (row.alive) return { forgotten: false, alive: true };
  await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND host = $2`, [cluster, host]);
  await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2`, [cluster, host]);
  await c.query(`DELETE FROM orcr_host WHERE cluster = $1 AND host = $2`, [cluster, host]);
  return { forgotten: true, alive: false };
}

export interface Machine {
  host: string;
  heartbeat: string;
  alive: boolean;
  leases: number;
  waiters: number;
}

/** The cluster's machines with their heartbeat and what each holds and waits for. */
export async function listMachines(db: Pick<ClusterDb, 'q'>, cluster: string, ttl: string): Promise<Machine[]> {
  const r = await db.q<{ host: string; heartbeat: Date; alive: boolean; leases: string; waiters: string }>(
    `SELECT h.host, h.heartbeat, h.heartbeat >= now() - ($2 || ' milliseconds')::interval AS alive,
            (SELECT COUNT(*) FROM orcr_lease l WHERE l.cluster = h.cluster AND l.host = h.host) AS leases,
            (SELECT COUNT(*) FROM orcr_waiter w WHERE w.cluster = h.cluster AND w.host = h.host) AS waiters
     FROM orcr_host h WHERE h.cluster = $1 ORDER BY h.host`,
    [cluster, ttl],
  );
  return r.rows.map((x) => ({
    host: x.host,
    heartbeat: new Date(x.heartbeat).toISOString(),
    alive: x.alive,
    leases: Number(x.leases),
    waiters: Number(x.waiters),
  }));
}

/** Renew one lease of this machine for another lease_ttl; false if the cluster no longer has it. */
export async function renewLease(db: Pick<ClusterDb, 'q'>, cluster: string, host: string, leaseId: string, ttl: string): Promise<boolean> {
  const r = await db.q(`UPDATE orcr_lease SET expires_at = now() + ($4 || ' milliseconds')::interval WHERE cluster = $1 AND id = $2 AND host = $3`, [
    cluster,
    leaseId,
    host,
    ttl,
  ]);
  return (r.rowCount ?? 0) > 0;
}

/** A turn's waiters queued, in their order (PgLimiter.enqueue batches a turn into one insert). */
export async function insertWaiters(c: pg.PoolClient, cluster: string, host: string, batch: readonly Waiter[]): Promise<void> {
  await c.query(
    `INSERT INTO orcr_waiter (cluster, uuid, host, name, provider, workload, enqueued_at)
     SELECT $1, u, $2, n, p, w, e FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS t(u, n, p, w, e, o)
     ORDER BY o
     ON CONFLICT (cluster, uuid) DO NOTHING`,
    [
      cluster,
      host,
      batch.map((x) => x.uuid),
      batch.map((x) => x.name ?? x.uuid),
      batch.map((x) => x.provider),
      batch.map((x) => x.workload),
      batch.map((x) => Math.round(x.enqueued_at)),
    ],
  );
}

/**
 * Slots of machines that stopped renewing come back; their queue entries go
 * (never this machine's) — a machine is stale once its heartbeat is older
 * than lease_ttl on the database's clock, counted from when the database was
 * last back (a restart of its server, or a machine's return after an
 * outage): across an outage everyone's heartbeat is old, and nobody is gone.
 */
export async function dropStale(c: pg.PoolClient, cluster: string, host: string, ttl: string): Promise<void> {
  await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND expires_at < now()`, [cluster]);
  await c.query(
    `DELETE FROM orcr_waiter w USING orcr_host h, orcr_cluster k
     WHERE w.cluster = $1 AND h.cluster = $1 AND k.name = $1 AND h.host = w.host AND h.host <> $3
       AND GREATEST(h.heartbeat, k.resumed_at, pg_postmaster_start_time()) < now() - ($2 || ' milliseconds')::interval`,
    [cluster, ttl, host],
  );
}
