// What the machines of a cluster share besides slots, in PostgreSQL: the
// providers' holds (a usage limit one machine met holds the provider for all)
// and the fleet's usage by minute (the fleet budget's window). Each call runs
// in the caller's transaction or on its pool (PgLimiter's), which tells the
// other machines of a change.

import type pg from 'pg';
import { paceAfterLift, type Pace } from '../core/pace.js';
import type { ClusterDb } from './pg-db.js';

/** Hold `provider` until `until` (this machine's clock), expiring at `expiresAt` on the database's: the later of this and a hold already there. */
export async function upsertHold(c: pg.PoolClient, cluster: string, provider: string, until: number, expiresAt: number): Promise<void> {
  await c.query(
    `INSERT INTO orcr_hold (cluster, provider, until, expires_at) VALUES ($1, $2, $3, to_timestamp($4::float8 / 1000))
     ON CONFLICT (cluster, provider) DO UPDATE SET until = GREATEST(orcr_hold.until, excluded.until), expires_at = GREATEST(orcr_hold.expires_at, excluded.expires_at)`,
    [cluster, provider, until, expiresAt],
  );
}

/**
 * Lift a provider's hold (`due`: only if its time has come on the database's
 * clock); whether there was one. With `pace`, the machine that lifted it
 * paces the whole cluster's waiting runs of the provider (core/pace.ts).
 */
export async function deleteHold(
  c: pg.PoolClient,
  cluster: string,
  provider: string,
  due: boolean,
  pace?: { intervalMs: number; /** The lift's moment on the database's clock. */ atDb: number },
): Promise<boolean> {
  const r = due
    ? await c.query(`DELETE FROM orcr_hold WHERE cluster = $1 AND provider = $2 AND COALESCE(expires_at, to_timestamp(until::float8 / 1000)) <= now()`, [
        cluster,
        provider,
      ])
    : await c.query(`DELETE FROM orcr_hold WHERE cluster = $1 AND provider = $2`, [cluster, provider]);
  if ((r.rowCount ?? 0) === 0) return false;
  const waiting = pace
    ? Number((await c.query<{ n: string }>(`SELECT count(*) AS n FROM orcr_waiter WHERE cluster = $1 AND provider = $2`, [cluster, provider])).rows[0]!.n)
    : 0;
  const p = pace ? paceAfterLift(pace.intervalMs, waiting, pace.atDb) : null;
  if (p === null) await c.query(`DELETE FROM orcr_pace WHERE cluster = $1 AND provider = $2`, [cluster, provider]);
  else {
    await c.query(
      `INSERT INTO orcr_pace (cluster, provider, interval_ms, left_count, next_at) VALUES ($1, $2, $3, $4, to_timestamp($5::float8 / 1000))
       ON CONFLICT (cluster, provider) DO UPDATE SET interval_ms = excluded.interval_ms, left_count = excluded.left_count, next_at = excluded.next_at`,
      [cluster, provider, p.interval_ms, p.left, Math.round(p.next_at)],
    );
  }
  return true;
}

/** The paces as a grant leaves them: a spent one gone, the others' next start moved on (`toDb`: to the database's clock). */
export async function savePaces(
  c: pg.PoolClient,
  cluster: string,
  before: Readonly<Record<string, Pace>>,
  after: Readonly<Record<string, Pace>>,
  toDb: (t: number) => number,
): Promise<void> {
  for (const [provider, was] of Object.entries(before)) {
    const now = Object.hasOwn(after, provider) ? after[provider]! : null;
    if (now === null) await c.query(`DELETE FROM orcr_pace WHERE cluster = $1 AND provider = $2`, [cluster, provider]);
    else if (now.left !== was.left || now.next_at !== was.next_at) {
      await c.query(`UPDATE orcr_pace SET left_count = $3, next_at = to_timestamp($4::float8 / 1000) WHERE cluster = $1 AND provider = $2`, [
        cluster,
        provider,
        now.left,
        Math.round(toDb(now.next_at)),
      ]);
    }
  }
}

/** The fleet's usage from the database's minute `minute` on (cost to the micro-dollar). */
export async function usageSinceMinute(db: ClusterDb, cluster: string, minute: number): Promise<{ tokens: number; cost: number }> {
  const r = await db.q<{ tokens: string; cost: number }>(
    `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost), 0) AS cost FROM orcr_usage WHERE cluster = $1 AND minute >= $2`,
    [cluster, minute],
  );
  return { tokens: Number(r.rows[0]!.tokens), cost: Math.round(Number(r.rows[0]!.cost) * 1e6) / 1e6 };
}
