// Joining the cluster, in one transaction: the schema applied if it is not
// (under a transaction-scoped advisory lock, which a transaction-mode pooler
// cannot leak the way a session lock and a separate unlock can), the role's
// privileges checked (a missing one is named, not left to fail later as runs
// that never start), this machine's caps held against the cluster's, and
// its host name claimed for this home (a name a live machine of another home
// holds is refused: two homes under one name would share one queue).

import type pg from 'pg';
import type { AdmissionPolicy } from '../core/admission.js';
import { formatDuration } from '../config/duration.js';
import { ClusterConflict, ClusterRefused } from './pg-errors.js';
import { CLUSTER_SCHEMA, CLUSTER_SCHEMA_VERSION, CLUSTER_TABLES, MISSING_COLUMNS_SQL, MISSING_PRIVILEGES_SQL, REQUIRED_COLUMNS } from './pg-schema.js';

export interface JoinOptions {
  cluster: string;
  host: string;
  policy: AdmissionPolicy;
  onConflict: 'refuse' | 'replace';
  leaseTtlMs: number;
  /** Whether this machine carries out other machines' commands (cluster.accept_commands; default true). */
  acceptCommands?: boolean;
  /** Who this is: a home's lasting id, its folder and the machine it is on. */
  identity?: { homeId: string; home: string; machine: string };
}

/** One statement may wait this long at join (a schema applied by another machine meanwhile). */
const JOIN_TIMEOUTS = "SET LOCAL lock_timeout = '20s'; SET LOCAL statement_timeout = '30s'";

/** Keys of two policies that differ, as config.json names them, with the cluster's value and this machine's. */
function policyDiff(cluster: AdmissionPolicy, mine: AdmissionPolicy): { key: string; cluster: unknown; mine: unknown }[] {
  const out: { key: string; cluster: unknown; mine: unknown }[] = [];
  const add = (key: string, a: unknown, b: unknown): void => {
    if (a !== b) out.push({ key, cluster: a, mine: b });
  };
  add('concurrency.max', cluster.max, mine.max);
  add('concurrency.max_queued', cluster.max_queued, mine.max_queued);
  for (const p of new Set([...Object.keys(cluster.providers), ...Object.keys(mine.providers)]))
    add(`concurrency.providers.${p}`, cluster.providers[p], mine.providers[p]);
  for (const w of new Set([...Object.keys(cluster.workloads), ...Object.keys(mine.workloads)])) {
    const x = cluster.workloads[w];
    const y = mine.workloads[w];
    for (const k of ['reserved', 'priority', 'max', 'max_wait_ms'] as const)
      add(`concurrency.workloads.${w}.${k === 'max_wait_ms' ? 'max_wait' : k}`, x?.[k], y?.[k]);
  }
  return out;
}

/** `concurrency.max is 3 in the cluster, 4 here; …` */
function differenceText(diff: readonly { key: string; cluster: unknown; mine: unknown }[]): string {
  const value = (key: string, v: unknown): string =>
    v === undefined || v === null ? 'unset' : key.endsWith('.max_wait') && typeof v === 'number' ? formatDuration(v) : String(v);
  return diff.map((d) => `${d.key} is ${value(d.key, d.cluster)} in the cluster, ${value(d.key, d.mine)} here`).join('; ');
}

export async function joinCluster(c: pg.PoolClient, o: JoinOptions): Promise<void> {
  await c.query(`BEGIN; ${JOIN_TIMEOUTS}`);
  try {
    const missing = async (): Promise<string[]> =>
      (await c.query<{ missing: string }>(MISSING_COLUMNS_SQL, [REQUIRED_COLUMNS.map((x) => x[0]), REQUIRED_COLUMNS.map((x) => x[1])])).rows.map(
        (r) => r.missing,
      );
    if ((await missing()).length > 0) {
      // One machine at a time: CREATE TABLE IF NOT EXISTS races with itself. Held to the end of this transaction only.
      await c.query('SELECT pg_advisory_xact_lock(7223372036)');
      if ((await missing()).length > 0) await c.query(CLUSTER_SCHEMA);
    }
    const lacking = (await c.query<{ missing: string }>(MISSING_PRIVILEGES_SQL, [[...CLUSTER_TABLES]])).rows.map((r) => r.missing);
    if (lacking.length > 0) {
      throw new ClusterRefused(
        `the role lacks privileges on ${lacking.join(', ')}: it needs SELECT, INSERT, UPDATE, DELETE on the orcr_* tables and USAGE on their sequences ` +
          `(GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO role; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO role)`,
      );
    }
    await c.query(`INSERT INTO orcr_cluster (name, policy, version) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`, [
      o.cluster,
      JSON.stringify(o.policy),
      CLUSTER_SCHEMA_VERSION,
    ]);
    const row = (await c.query(`SELECT policy FROM orcr_cluster WHERE name = $1 FOR UPDATE`, [o.cluster])).rows[0] as { policy: AdmissionPolicy };
    const diff = policyDiff(row.policy, o.policy);
    if (diff.length > 0 && o.onConflict === 'refuse') {
      throw new ClusterConflict(
        `cluster "${o.cluster}" applies other caps than this machine's config.json: ${differenceText(diff)} (make them equal, or set cluster.on_conflict to "replace" to make this machine's the cluster's)`,
        diff.map((d) => d.key),
      );
    }
    if (diff.length > 0) await c.query(`UPDATE orcr_cluster SET policy = $2, change = change + 1 WHERE name = $1`, [o.cluster, JSON.stringify(o.policy)]);
    await claimHost(c, o);
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

/** Take this home's host name, unless a live machine of another home holds it. */
async function claimHost(c: pg.PoolClient, o: JoinOptions): Promise<void> {
  const id = o.identity;
  const held = (
    await c.query<{ home_id: string | null; home: string | null; machine: string | null; age_ms: number }>(
      `SELECT home_id, home, machine, (extract(epoch FROM now() - heartbeat) * 1000)::float8 AS age_ms FROM orcr_host WHERE cluster = $1 AND host = $2 FOR UPDATE`,
      [o.cluster, o.host],
    )
  ).rows[0];
  if (held && id && held.home_id !== null && held.home_id !== id.homeId && held.age_ms < o.leaseTtlMs) {
    throw new ClusterRefused(
      `cluster.host ${JSON.stringify(o.host)} is taken in cluster "${o.cluster}" by a live machine: the home ${held.home ?? '?'} on ${held.machine ?? '?'} ` +
        `(its last heartbeat ${Math.round(held.age_ms / 1000)}s ago). Each home in a cluster needs its own name: set cluster.host in this home's config.json`,
    );
  }
  await c.query(
    `INSERT INTO orcr_host (cluster, host, home_id, home, machine, accept_commands) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now(), home_id = excluded.home_id, home = excluded.home, machine = excluded.machine,
       accept_commands = excluded.accept_commands`,
    [o.cluster, o.host, id?.homeId ?? null, id?.home ?? null, id?.machine ?? null, o.acceptCommands ?? true],
  );
}
