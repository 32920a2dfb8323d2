// The fleet view in PostgreSQL (orcr_run): a machine's publishing — its runs'
// public faces upserted in one transaction per flush, with a NOTIFY that
// wakes readers — the sweep of rows past their time (its own ended runs past
// the retention, any machine's gone ones), and the read every member and
// viewer makes: the rows with their machine's heartbeat age, all on the
// database's clock.

import crypto from 'node:crypto';
import type pg from 'pg';
import type { ClusterRunFace } from '../protocol/views.js';
import type { ClusterDb } from './pg-db.js';

/** The channel a flush notifies, per cluster: readers (a wait on another machine's run, a TUI) LISTEN on it. */
function viewChannel(cluster: string): string {
  return 'orcr_view_' + crypto.createHash('sha256').update(cluster).digest('hex').slice(0, 22);
}

/**
 * One flush: faces upserted, runs the journal no longer has deleted, readers
 * told. One transaction. `endedAt`: each face's end on the database's clock
 * (ms; null while it runs) — the retention counts from it.
 */
export async function publishFaces(
  c: pg.PoolClient,
  cluster: string,
  host: string,
  faces: readonly ClusterRunFace[],
  endedAt: readonly (number | null)[],
  gone: readonly string[],
): Promise<void> {
  if (faces.length > 0) {
    await c.query(
      `INSERT INTO orcr_run (cluster, host, uuid, name, status, face, ended_at, updated_at)
       SELECT $1, $2, u, n, s, f, CASE WHEN s = 'ended' THEN LEAST(COALESCE(to_timestamp(e / 1000.0), now()), now()) END, now()
       FROM unnest($3::text[], $4::text[], $5::text[], $6::jsonb[], $7::float8[]) AS t(u, n, s, f, e)
       ON CONFLICT (cluster, uuid) DO UPDATE SET host = excluded.host, name = excluded.name, status = excluded.status, face = excluded.face,
         ended_at = CASE WHEN excluded.status = 'ended' THEN COALESCE(orcr_run.ended_at, excluded.ended_at) END, updated_at = now()`,
      [cluster, host, faces.map((f) => f.uuid), faces.map((f) => f.name), faces.map((f) => f.status), faces.map((f) => JSON.stringify(f)), [...endedAt]],
    );
  }
  if (gone.length > 0) await c.query(`DELETE FROM orcr_run WHERE cluster = $1 AND host = $2 AND uuid = ANY($3::text[])`, [cluster, host, gone]);
  await c.query(`SELECT pg_notify($1, $2)`, [viewChannel(cluster), host]);
}

/** At join or after an outage: this machine's rows are exactly `keep` (the rest — runs collected, or published before a crash — go). */
export async function keepOnly(c: pg.PoolClient, cluster: string, host: string, keep: readonly string[]): Promise<number> {
  const r = await c.query(`DELETE FROM orcr_run WHERE cluster = $1 AND host = $2 AND NOT (uuid = ANY($3::text[]))`, [cluster, host, keep]);
  return r.rowCount ?? 0;
}

/**
 * Rows past their time: this machine's ended runs older than the retention,
 * and every row of a machine gone (its heartbeat older than goneAfter, counted
 * as dropStale counts it: not across the database's own absence) or forgotten.
 */
export async function sweepRows(c: pg.PoolClient, cluster: string, host: string, retentionMs: number, goneAfterMs: number): Promise<number> {
  const own = await c.query(`DELETE FROM orcr_run WHERE cluster = $1 AND host = $2 AND ended_at < now() - ($3 || ' milliseconds')::interval`, [
    cluster,
    host,
    String(retentionMs),
  ]);
  const gone = await c.query(
    `DELETE FROM orcr_run r WHERE r.cluster = $1 AND r.host <> $2 AND NOT EXISTS (
       SELECT 1 FROM orcr_host h, orcr_cluster k WHERE h.cluster = $1 AND k.name = $1 AND h.host = r.host
         AND GREATEST(h.heartbeat, k.resumed_at, pg_postmaster_start_time()) >= now() - ($3 || ' milliseconds')::interval)`,
    [cluster, host, String(goneAfterMs)],
  );
  return (own.rowCount ?? 0) + (gone.rowCount ?? 0);
}

export interface ViewRow {
  host: string;
  face: ClusterRunFace;
  /** Its machine's heartbeat age in ms (null: the machine is not in the cluster's list). */
  age_ms: number | null;
  published_at: string;
}

interface ViewMachine {
  host: string;
  age_ms: number;
  accept_commands: boolean;
}

export interface ViewRead {
  rows: ViewRow[];
  machines: ViewMachine[];
  /** The database's now(), ISO. */
  as_of: string;
}

/**
 * The fleet as published: every row (ended ones with `all`), and the
 * machines with their heartbeat's age — counted as dropStale counts it, from
 * the database's last return at the latest, so an outage of the database
 * makes nobody stale. SELECT only: a viewer's role reads it.
 */
export function readView(db: Pick<ClusterDb, 'tx'>, cluster: string, all: boolean): Promise<ViewRead> {
  return db.tx((c) => readIn(c, cluster, all));
}

async function readIn(c: pg.PoolClient, cluster: string, all: boolean): Promise<ViewRead> {
  const age = `(extract(epoch FROM (now() - GREATEST(h.heartbeat, k.resumed_at, pg_postmaster_start_time()))) * 1000)::float8`;
  const machines = await c.query<{ host: string; age_ms: number; accept_commands: boolean; now: Date }>(
    `SELECT h.host, ${age} AS age_ms, h.accept_commands, now() AS now
     FROM orcr_host h JOIN orcr_cluster k ON k.name = h.cluster WHERE h.cluster = $1 ORDER BY h.host`,
    [cluster],
  );
  const rows = await c.query<{ host: string; face: ClusterRunFace; updated_at: Date }>(
    `SELECT r.host, r.face, r.updated_at FROM orcr_run r WHERE r.cluster = $1 ${all ? '' : `AND r.status <> 'ended'`} ORDER BY r.host, (r.face->>'created_at'), r.uuid`,
    [cluster],
  );
  const ages = new Map(machines.rows.map((m) => [m.host, Number(m.age_ms)]));
  const asOf = machines.rows[0]?.now ?? (await c.query<{ now: Date }>(`SELECT now() AS now`)).rows[0]!.now;
  return {
    rows: rows.rows.map((r) => ({ host: r.host, face: r.face, age_ms: ages.get(r.host) ?? null, published_at: new Date(r.updated_at).toISOString() })),
    machines: machines.rows.map((m) => ({ host: m.host, age_ms: Math.max(0, Math.round(Number(m.age_ms))), accept_commands: m.accept_commands })),
    as_of: new Date(asOf).toISOString(),
  };
}
