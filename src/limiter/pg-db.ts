// The cluster's database as the limiter uses it: a small pool, every
// statement in a transaction of its own with its lock and statement timeouts
// set inside it (a transaction-mode pooler forbids them as session settings),
// errors classified as the cluster's, and this machine's clock against the
// database's (everything shared that expires is on the database's clock).

import pg from 'pg';
import { ClusterConflict, ClusterRefused, unavailable } from './pg-errors.js';

/** Every statement but the join's: a DBA's lock or a stuck server costs seconds, never a full pool of blocked clients. */
const TX_TIMEOUTS = "SET LOCAL lock_timeout = '2s'; SET LOCAL statement_timeout = '5s'";

/** A clock offset that moved less than this is measurement noise, not a jump. */
const OFFSET_NOISE_MS = 1000;

export class ClusterDb {
  private readonly pool: pg.Pool;
  /** This machine's clock minus the database's, in ms. */
  private offset = 0;

  constructor(
    url: string,
    private readonly now: () => number,
    max = 4,
  ) {
    // query_timeout: a bound on the client's side too, for a server that does not answer at all.
    this.pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 5000, idleTimeoutMillis: 10_000, query_timeout: 15_000 });
    this.pool.on('error', () => undefined);
    // pg-pool listens for a client's errors only while it is idle. A server
    // that ends a connection between two queries, or in the same packet as
    // it says the connection is ready (a restart terminating its backends),
    // raises 'error' on a client handed out and listened to by nobody: an
    // uncaught error, and the supervisor would die with the database instead
    // of failing closed. Every client is listened to from its first moment;
    // the query in flight, if any, is rejected by the client itself.
    this.pool.on('connect', (c) => c.on('error', () => undefined));
  }

  /** This machine's clock against the database's; a jump is taken, jitter is not. */
  async measureOffset(first = false): Promise<void> {
    const t0 = this.now();
    const r = await this.q<{ db_ms: number }>(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS db_ms`);
    const t1 = this.now();
    const offset = Math.round((t0 + t1) / 2 - Number(r.rows[0]!.db_ms));
    if (first || Math.abs(offset - this.offset) >= OFFSET_NOISE_MS) this.offset = offset;
  }

  /** A time of this machine's clock on the database's, and back. */
  toDb(t: number): number {
    return t - this.offset;
  }
  fromDb(t: number): number {
    return t + this.offset;
  }

  /** One statement in a transaction of its own, with the timeouts. */
  async q<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<T>> {
    return this.tx((c) => c.query<T>(sql, params));
  }

  /** A client of the pool's own (release it), for the join's statements that need one connection. */
  checkout(): Promise<pg.PoolClient> {
    return this.pool.connect();
  }

  async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.checkout().catch((e: unknown) => Promise.reject(unavailable(e)));
    try {
      await c.query(`BEGIN; ${TX_TIMEOUTS}`);
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e instanceof ClusterConflict || e instanceof ClusterRefused ? e : unavailable(e);
    } finally {
      c.release();
    }
  }

  async end(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
