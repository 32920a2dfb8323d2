// A cluster's slots, in PostgreSQL: the leases an admission pass grants to
// the waiters it promotes and the ones a machine then claims as its own, and
// the rows a machine's adopt, cancel and release write. Each runs in the
// caller's transaction (PgLimiter's), which also tells the other machines of
// the change.

import type pg from 'pg';
import type { Lease } from './limiter.js';
import type { Snapshot } from './pg-snapshot.js';

/** Leases for the waiters promoted, out of the queue, at `now` (the granting machine's clock); the holders they make. */
export async function grantLeases(c: pg.PoolClient, cluster: string, promoted: Snapshot['waiters'], now: number, ttl: number): Promise<Snapshot['holders']> {
  const ins = await c.query<{ id: string; uuid: string; host: string; name: string; provider: string; workload: string }>(
    `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at)
     SELECT $1, u, h, n, p, w, $7, now() + ($8 || ' milliseconds')::interval
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(u, h, n, p, w)
     RETURNING id, uuid, host, name, provider, workload`,
    [
      cluster,
      promoted.map((r) => r.uuid),
      promoted.map((r) => r.host),
      promoted.map((r) => r.name),
      promoted.map((r) => r.provider),
      promoted.map((r) => r.workload),
      Math.round(now),
      String(ttl),
    ],
  );
  const granted = ins.rows.map((r) => ({
    id: String(r.id),
    uuid: r.uuid,
    host: r.host,
    name: r.name,
    provider: r.provider,
    workload: r.workload,
    granted_at: Math.round(now),
    leftMs: ttl,
  }));
  await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND uuid = ANY($2::text[])`, [cluster, promoted.map((r) => r.uuid)]);
  return granted;
}

/** This machine's leases not yet claimed, whoever granted them (this pass, or another machine's), claimed; in the order granted. */
export async function claimLeases(c: pg.PoolClient, cluster: string, host: string): Promise<Lease[]> {
  const claimed = await c.query<{ id: string; uuid: string; provider: string; workload: string; name: string; granted_at: string }>(
    `UPDATE orcr_lease SET claimed = true WHERE cluster = $1 AND host = $2 AND NOT claimed RETURNING id, uuid, provider, workload, name, granted_at`,
    [cluster, host],
  );
  return claimed.rows
    .map((r) => ({ id: String(r.id), uuid: r.uuid, provider: r.provider, workload: r.workload, name: r.name, granted_at: Number(r.granted_at) }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

/** A lease held before a restart, this machine's again: the same one while it lasts, else taken again under a new id. */
export async function adoptLease(c: pg.PoolClient, cluster: string, host: string, lease: Lease, ttl: number): Promise<void> {
  const own = await c.query(
    `UPDATE orcr_lease SET expires_at = now() + ($4 || ' milliseconds')::interval, claimed = true WHERE cluster = $1 AND uuid = $2 AND host = $3`,
    [cluster, lease.uuid, host, String(ttl)],
  );
  if ((own.rowCount ?? 0) > 0) return;
  await c.query(
    `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at, claimed)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + ($8 || ' milliseconds')::interval, true)
     ON CONFLICT (cluster, uuid) DO UPDATE SET host = excluded.host, expires_at = excluded.expires_at, claimed = true`,
    [cluster, lease.uuid, host, lease.name ?? lease.uuid, lease.provider, lease.workload, Math.round(lease.granted_at), String(ttl)],
  );
}

/** A run out of the queue, whichever machine queued it; whether it was there. */
export async function dropWaiter(c: pg.PoolClient, cluster: string, uuid: string): Promise<boolean> {
  const w = await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND uuid = $2`, [cluster, uuid]);
  return (w.rowCount ?? 0) > 0;
}

/** This machine's lease of a run given back; whether it held one. */
export async function dropLeaseOf(c: pg.PoolClient, cluster: string, host: string, uuid: string): Promise<boolean> {
  const l = await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND uuid = $2 AND host = $3`, [cluster, uuid, host]);
  return (l.rowCount ?? 0) > 0;
}

/** One lease of this machine, by its id, given back; whether the cluster still had it. */
export async function dropLease(c: pg.PoolClient, cluster: string, host: string, leaseId: string): Promise<boolean> {
  const d = await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND id = $2 AND host = $3`, [cluster, leaseId, host]);
  return (d.rowCount ?? 0) > 0;
}
