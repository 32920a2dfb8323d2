// The shared limiter: caps, the queue order, holds and fleet usage of one
// cluster of machines, in PostgreSQL. A slot is a lease granted under the
// cluster row's lock in one short transaction, by the same pure decide() a
// single host uses; it expires on the database's clock unless renewed.
// Waiters are woken by LISTEN/NOTIFY, with a slow poll behind it. It keeps
// a snapshot of the cluster for reads; it never starts a process or writes
// the local journal.

import crypto from 'node:crypto';
import pg from 'pg';
import { capUsage, decide, expired as expiredOf, nextDeadline as nextDeadlineOf, type AdmissionInput, type AdmissionPolicy, type CapUsage, type SlotHolder, type Waiter } from '../core/admission.js';
import { AdmissionIndex } from '../core/admission-index.js';
import type { Waiting } from '../core/waiting.js';
import type { Lease, Limiter } from './limiter.js';
import { CLUSTER_SCHEMA, CLUSTER_SCHEMA_VERSION } from './pg-schema.js';
import { formatDuration } from '../config/duration.js';

export interface PgLimiterOptions {
  url: string;
  /** Several clusters may share one database. */
  cluster: string;
  /** This machine; unique in the cluster. */
  host: string;
  leaseTtlMs: number;
  /** The caps this machine would apply. The first machine stores them; a machine whose caps differ is refused, unless `replace`. */
  policy: AdmissionPolicy;
  onConflict: 'refuse' | 'replace';
  /** Another machine changed something (a slot freed, a grant for us): run an admission pass. */
  onWake?: () => void;
  /** Run DDL at join (false: the schema was applied as a migration). */
  applySchema?: boolean;
}

/** The cluster refuses this machine: its caps differ from the cluster's. */
export class ClusterConflict extends Error {
  override readonly name = 'ClusterConflict';
  constructor(
    message: string,
    readonly keys: string[],
  ) {
    super(message);
  }
}

/** The database cannot be reached (or refused a statement): fail closed until it can. */
export class ClusterUnavailable extends Error {
  override readonly name = 'ClusterUnavailable';
}

/** The database refuses this machine for good until someone changes something: a bad URL, a wrong password, a missing privilege. */
export class ClusterRefused extends Error {
  override readonly name = 'ClusterRefused';
}

/** SQLSTATE classes and socket errors that no retry will cure. */
const FATAL_CODES: Readonly<Record<string, string>> = {
  '28P01': 'the password was refused',
  '28000': 'the role may not log in (pg_hba.conf, or no such role)',
  '3D000': 'no such database',
  '42501': 'the role lacks a privilege orcr needs (it must create and write the orcr_* tables; `orcr cluster schema` prints them to apply as a migration)',
  '3F000': 'no such schema',
  ENOTFOUND: 'no such host',
  ERR_INVALID_URL: 'not a valid connection URL',
};

/** What joining failed of: refused for good, or unavailable for now. */
function classify(e: unknown): ClusterRefused | ClusterUnavailable {
  const code = (e as { code?: string })?.code ?? '';
  const why = FATAL_CODES[code];
  const msg = (e as Error)?.message ?? String(e);
  if (why) return new ClusterRefused(`${why}: ${msg}`);
  if (e instanceof TypeError && /url/i.test(msg)) return new ClusterRefused(`not a valid connection URL: ${msg}`);
  return unavailable(e);
}

interface Snapshot {
  /** Each lease's time left (database clock) when read, in ms. */
  holders: (Lease & { host: string; name: string; leftMs: number })[];
  waiters: (Waiter & { host: string; name: string })[];
  holds: Record<string, number>;
}

/** A key of two policies that differ, as config.json names it, and its value in each (null: unset). */
export interface PolicyDifference {
  key: string;
  cluster: number | null;
  here: number | null;
}

/** Where two policies differ: `a` the cluster's, `b` this machine's. */
export function policyDiff(a: AdmissionPolicy, b: AdmissionPolicy): PolicyDifference[] {
  const out: PolicyDifference[] = [];
  const differ = (key: string, x: number | null | undefined, y: number | null | undefined): void => {
    if (x !== y) out.push({ key, cluster: x ?? null, here: y ?? null });
  };
  differ('concurrency.max', a.max, b.max);
  differ('concurrency.max_queued', a.max_queued, b.max_queued);
  for (const p of new Set([...Object.keys(a.providers), ...Object.keys(b.providers)])) differ(`concurrency.providers.${p}`, a.providers[p], b.providers[p]);
  for (const w of new Set([...Object.keys(a.workloads), ...Object.keys(b.workloads)])) {
    const x = a.workloads[w];
    const y = b.workloads[w];
    for (const k of ['reserved', 'priority', 'max', 'max_wait_ms'] as const) differ(`concurrency.workloads.${w}.${k === 'max_wait_ms' ? 'max_wait' : k}`, x?.[k], y?.[k]);
  }
  return out;
}

/** `concurrency.max is 3 in the cluster, 4 here`: both sides of each difference, as a person compares them. */
export function differenceText(diff: readonly PolicyDifference[]): string {
  const value = (key: string, v: number | null): string => (v === null ? 'unset' : key.endsWith('.max_wait') ? formatDuration(v) : String(v));
  return diff.map((d) => `${d.key} is ${value(d.key, d.cluster)} in the cluster, ${value(d.key, d.here)} here`).join('; ');
}

function unavailable(e: unknown): ClusterUnavailable {
  return e instanceof ClusterUnavailable ? e : new ClusterUnavailable((e as Error).message ?? String(e));
}

export class PgLimiter implements Limiter {
  private readonly pool: pg.Pool;
  private listener: pg.Client | null = null;
  private readonly channel: string;
  private policy: AdmissionPolicy;
  private snap: Snapshot = { holders: [], waiters: [], holds: {} };
  /** When the snapshot was read (this machine's epoch ms): lease times left count from here. */
  private snapAt = 0;
  private index: AdmissionIndex | null = null;
  private fleetUsage = { tokens: 0, cost: 0, since: -1 };
  private pollTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Waiters of the current turn, and their one insert. */
  private toEnqueue: Waiter[] | null = null;
  private enqueued: Promise<void> | null = null;
  /** A refresh in flight, and one asked for meanwhile (it must see what happened after the first began). */
  private refreshing: Promise<void> | null = null;
  private refreshAgain: Promise<void> | null = null;

  private constructor(private readonly o: PgLimiterOptions) {
    this.pool = new pg.Pool({ connectionString: o.url, max: 4, connectionTimeoutMillis: 5000, idleTimeoutMillis: 10_000 });
    this.pool.on('error', () => undefined);
    this.channel = 'orcr_' + crypto.createHash('sha256').update(o.cluster).digest('hex').slice(0, 24);
    this.policy = o.policy;
  }

  /** Connect, apply the schema, join the cluster (or be refused), and start listening. */
  static async join(o: PgLimiterOptions): Promise<PgLimiter> {
    let l: PgLimiter;
    try {
      l = new PgLimiter(o);
    } catch (e) {
      throw classify(e);
    }
    try {
      await l.joinCluster();
      await l.listen();
      await l.refresh();
    } catch (e) {
      await l.close();
      throw e instanceof ClusterConflict ? e : classify(e);
    }
    // A lost notification (a pooler that cannot LISTEN, a dropped connection) costs at most this much.
    l.pollTimer = setInterval(() => l.o.onWake?.(), 5000);
    l.pollTimer.unref();
    return l;
  }

  private async joinCluster(): Promise<void> {
    const c = await this.checkout();
    try {
      // Applied already (by another machine, or as a migration by a role that
      // may create tables): a role that may not is not asked to.
      const present = await c.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM unnest(ARRAY['orcr_cluster','orcr_host','orcr_waiter','orcr_lease','orcr_hold','orcr_usage']) AS t(name) WHERE to_regclass(t.name) IS NOT NULL`,
      );
      if (this.o.applySchema !== false && Number(present.rows[0]!.n) < 6) {
        // One machine at a time: CREATE TABLE IF NOT EXISTS races with itself.
        await c.query('SELECT pg_advisory_lock(7223372036)');
        try {
          await c.query(CLUSTER_SCHEMA);
        } finally {
          await c.query('SELECT pg_advisory_unlock(7223372036)');
        }
      }
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO orcr_cluster (name, policy, version) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
        [this.o.cluster, JSON.stringify(this.o.policy), CLUSTER_SCHEMA_VERSION],
      );
      const row = (await c.query(`SELECT policy FROM orcr_cluster WHERE name = $1 FOR UPDATE`, [this.o.cluster])).rows[0] as { policy: AdmissionPolicy };
      const diff = policyDiff(row.policy, this.o.policy);
      if (diff.length > 0 && this.o.onConflict === 'refuse') {
        await c.query('ROLLBACK');
        throw new ClusterConflict(
          `cluster "${this.o.cluster}" applies other caps than this machine's config.json: ${differenceText(diff)} (make them equal, or set cluster.on_conflict to "replace" to make this machine's the cluster's)`,
          diff.map((d) => d.key),
        );
      }
      if (diff.length > 0) await c.query(`UPDATE orcr_cluster SET policy = $2 WHERE name = $1`, [this.o.cluster, JSON.stringify(this.o.policy)]);
      await c.query(
        `INSERT INTO orcr_host (cluster, host) VALUES ($1, $2) ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now()`,
        [this.o.cluster, this.o.host],
      );
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      c.release();
    }
  }

  private async listen(): Promise<void> {
    const c = new pg.Client({ connectionString: this.o.url, connectionTimeoutMillis: 5000 });
    c.on('error', () => undefined);
    // A new waiter frees no slot: just see it (queue positions); anything else may let a run start here.
    c.on('notification', (n) => {
      if (n.payload === 'enqueue') this.refresh().catch(() => undefined);
      else this.o.onWake?.();
    });
    // A listener that drops is replaced when the database is back; the poll covers the gap.
    c.on('end', () => {
      if (this.listener === c) this.listener = null;
    });
    await c.connect();
    await c.query(`LISTEN ${this.channel}`);
    this.listener = c;
  }

  /** Listening again after the database came back (or a first LISTEN that failed). */
  private async ensureListening(): Promise<void> {
    if (this.listener || this.closed) return;
    try {
      await this.listen();
    } catch {
      /* the poll goes on */
    }
  }

  private async q<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<T>> {
    try {
      return await this.pool.query<T>(sql, params);
    } catch (e) {
      throw unavailable(e);
    }
  }

  /**
   * A client from the pool, guarded while it is out: pg-pool listens for
   * errors on idle clients only, so a connection the server ends between two
   * queries of a checked-out client (a restart, "terminating connection due to
   * administrator command") would be an uncaught 'error' — the supervisor would
   * die with the database instead of failing closed.
   */
  private async checkout(): Promise<pg.PoolClient> {
    const c = await this.pool.connect();
    const swallow = (): void => undefined;
    c.on('error', swallow);
    const release = c.release.bind(c);
    c.release = (err?: Error | boolean) => {
      c.removeListener('error', swallow);
      release(err);
    };
    return c;
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.checkout().catch((e: unknown) => Promise.reject(unavailable(e)));
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw e instanceof ClusterConflict ? e : unavailable(e);
    } finally {
      c.release();
    }
  }

  private notify(c: pg.PoolClient | pg.Pool, what: string): Promise<unknown> {
    return c.query(`SELECT pg_notify($1, $2)`, [this.channel, what]);
  }

  // ---------- the Limiter interface ----------

  /** Waiters queued in the same turn of the event loop go in one transaction (a fan-out of a thousand is one, not a thousand). */
  enqueue(w: Waiter): Promise<void> {
    if (this.toEnqueue === null) {
      const batch: Waiter[] = [];
      this.toEnqueue = batch;
      this.enqueued = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.toEnqueue = null;
        await this.tx(async (c) => {
          await c.query(
            `INSERT INTO orcr_waiter (cluster, uuid, host, name, provider, workload, enqueued_at)
             SELECT $1, u, $2, n, p, w, e FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS t(u, n, p, w, e, o)
             ORDER BY o
             ON CONFLICT (cluster, uuid) DO NOTHING`,
            [this.o.cluster, this.o.host, batch.map((x) => x.uuid), batch.map((x) => x.name ?? x.uuid), batch.map((x) => x.provider), batch.map((x) => x.workload), batch.map((x) => Math.round(x.enqueued_at))],
          );
          await this.notify(c, 'enqueue');
        });
        await this.refresh();
      });
    }
    this.toEnqueue.push(w);
    return this.enqueued!;
  }

  async cancel(uuid: string): Promise<boolean> {
    const done = await this.tx(async (c) => {
      const w = await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND uuid = $2`, [this.o.cluster, uuid]);
      if ((w.rowCount ?? 0) > 0) return true;
      const l = await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND uuid = $2 AND host = $3`, [this.o.cluster, uuid, this.o.host]);
      if ((l.rowCount ?? 0) > 0) await this.notify(c, 'release');
      return (l.rowCount ?? 0) > 0;
    });
    await this.refresh();
    return done;
  }

  async adopt(lease: Lease): Promise<void> {
    // Restarted within the lease's life: it is still ours; else it is taken
    // again under a new id (ids are never reused), over the cap or not — a
    // running agent is never preempted, and nothing is admitted until the
    // cluster is under its caps again.
    const ttl = this.o.leaseTtlMs;
    await this.tx(async (c) => {
      const own = await c.query(
        `UPDATE orcr_lease SET expires_at = now() + ($4 || ' milliseconds')::interval, claimed = true WHERE cluster = $1 AND uuid = $2 AND host = $3`,
        [this.o.cluster, lease.uuid, this.o.host, String(ttl)],
      );
      if ((own.rowCount ?? 0) > 0) return;
      await c.query(
        `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at, claimed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + ($8 || ' milliseconds')::interval, true)
         ON CONFLICT (cluster, uuid) DO UPDATE SET host = excluded.host, expires_at = excluded.expires_at, claimed = true`,
        [this.o.cluster, lease.uuid, this.o.host, lease.name ?? lease.uuid, lease.provider, lease.workload, Math.round(lease.granted_at), String(ttl)],
      );
    });
    await this.refresh();
  }

  /**
   * Make the cluster agree with this machine's journal (at join, and when the
   * database is back): its queued runs wait, its live runs hold a lease (the
   * same one while it lasted, else a new one: a running agent is never
   * preempted), and nothing else of this machine is left. Returns the lease
   * of each holder, by run.
   */
  async resync(waiters: readonly Waiter[], holders: readonly Lease[]): Promise<Map<string, string>> {
    const ttl = String(this.o.leaseTtlMs);
    const ids = await this.tx(async (c) => {
      const { cluster, host } = this.o;
      await c.query(`INSERT INTO orcr_host (cluster, host) VALUES ($1, $2) ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now()`, [cluster, host]);
      await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND host = $2 AND NOT (uuid = ANY($3::text[]))`, [cluster, host, waiters.map((w) => w.uuid)]);
      await c.query(
        `INSERT INTO orcr_waiter (cluster, uuid, host, name, provider, workload, enqueued_at)
         SELECT $1, u, $2, n, p, w, e FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) AS t(u, n, p, w, e)
         ON CONFLICT (cluster, uuid) DO NOTHING`,
        [cluster, host, waiters.map((w) => w.uuid), waiters.map((w) => w.name ?? w.uuid), waiters.map((w) => w.provider), waiters.map((w) => w.workload), waiters.map((w) => Math.round(w.enqueued_at))],
      );
      const gone = await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2 AND NOT (uuid = ANY($3::text[]))`, [cluster, host, holders.map((h) => h.uuid)]);
      if ((gone.rowCount ?? 0) > 0) await this.notify(c, 'release');
      await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2 AND expires_at < now()`, [cluster, host]);
      const r = await c.query<{ uuid: string; id: string }>(
        `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at, claimed)
         SELECT $1, u, $2, n, p, w, g, now() + ($8 || ' milliseconds')::interval, true
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) AS t(u, n, p, w, g)
         ON CONFLICT (cluster, uuid) DO UPDATE SET host = excluded.host, expires_at = excluded.expires_at, claimed = true
         RETURNING uuid, id`,
        [cluster, host, holders.map((h) => h.uuid), holders.map((h) => h.name ?? h.uuid), holders.map((h) => h.provider), holders.map((h) => h.workload), holders.map((h) => Math.round(h.granted_at)), ttl],
      );
      return new Map(r.rows.map((x) => [x.uuid, String(x.id)]));
    });
    await this.refresh();
    return ids;
  }

  /** `host:name` of a run the cluster lists, for listings. */
  nameOf(uuid: string): string | null {
    const r = this.snap.holders.find((h) => h.uuid === uuid) ?? this.snap.waiters.find((w) => w.uuid === uuid);
    return r ? `${r.host}:${r.name}` : null;
  }

  async grant(now: number): Promise<Lease[]> {
    const ttl = this.o.leaseTtlMs;
    await this.tx(async (c) => {
      // The cluster row's lock: one admission pass at a time, cluster-wide.
      const row = (await c.query(`SELECT policy FROM orcr_cluster WHERE name = $1 FOR UPDATE`, [this.o.cluster])).rows[0] as { policy: AdmissionPolicy } | undefined;
      if (!row) throw new ClusterUnavailable(`cluster "${this.o.cluster}" is gone from the database`);
      this.policy = row.policy;
      // Slots of machines that stopped renewing come back; their queue entries go.
      await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND expires_at < now()`, [this.o.cluster]);
      await c.query(
        `DELETE FROM orcr_waiter w USING orcr_host h WHERE w.cluster = $1 AND h.cluster = $1 AND h.host = w.host AND h.host <> $3
           AND h.heartbeat < now() - ($2 || ' milliseconds')::interval`,
        [this.o.cluster, String(ttl), this.o.host],
      );
      const state = await this.read(c);
      const input: AdmissionInput = { policy: row.policy, holders: state.holders, waiters: state.waiters, holds: state.holds, now };
      const promote = decide(input);
      if (promote.length === 0) return;
      const byUuid = new Map(state.waiters.map((w) => [w.uuid, w]));
      const rows = promote.map((u) => byUuid.get(u)!);
      await c.query(
        `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at)
         SELECT $1, u, h, n, p, w, $7, now() + ($8 || ' milliseconds')::interval
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(u, h, n, p, w)`,
        [this.o.cluster, rows.map((r) => r.uuid), rows.map((r) => r.host), rows.map((r) => r.name), rows.map((r) => r.provider), rows.map((r) => r.workload), Math.round(now), String(ttl)],
      );
      await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND uuid = ANY($2::text[])`, [this.o.cluster, promote]);
      // Machines with new grants take them on this notice.
      if (rows.some((r) => r.host !== this.o.host)) await this.notify(c, 'grant');
    });
    // Ours, whoever granted them (this pass, or another machine's).
    const mine = await this.q<{ id: string; uuid: string; provider: string; workload: string; name: string; granted_at: string }>(
      `UPDATE orcr_lease SET claimed = true WHERE cluster = $1 AND host = $2 AND NOT claimed RETURNING id, uuid, provider, workload, name, granted_at`,
      [this.o.cluster, this.o.host],
    );
    await this.refresh();
    return mine.rows
      .map((r) => ({ id: String(r.id), uuid: r.uuid, provider: r.provider, workload: r.workload, name: r.name, granted_at: Number(r.granted_at) }))
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  async renew(leaseId: string, _now: number): Promise<boolean> {
    const r = await this.q(
      `UPDATE orcr_lease SET expires_at = now() + ($4 || ' milliseconds')::interval WHERE cluster = $1 AND id = $2 AND host = $3`,
      [this.o.cluster, leaseId, this.o.host, String(this.o.leaseTtlMs)],
    );
    return (r.rowCount ?? 0) > 0;
  }

  /**
   * The heartbeat: this machine and every lease it holds stay alive another
   * lease_ttl. Returns the ids of the leases it holds that the cluster no
   * longer has (expired while we could not renew them).
   */
  async heartbeat(held: readonly string[]): Promise<string[]> {
    const ttl = String(this.o.leaseTtlMs);
    const alive = await this.tx(async (c) => {
      await c.query(`INSERT INTO orcr_host (cluster, host) VALUES ($1, $2) ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now()`, [this.o.cluster, this.o.host]);
      const r = await c.query<{ id: string }>(
        `UPDATE orcr_lease SET expires_at = now() + ($3 || ' milliseconds')::interval WHERE cluster = $1 AND host = $2 AND expires_at >= now() RETURNING id`,
        [this.o.cluster, this.o.host, ttl],
      );
      return new Set(r.rows.map((x) => String(x.id)));
    });
    await this.ensureListening();
    return held.filter((id) => !alive.has(id));
  }

  async release(leaseId: string): Promise<boolean> {
    const r = await this.tx(async (c) => {
      const d = await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND id = $2 AND host = $3`, [this.o.cluster, leaseId, this.o.host]);
      if ((d.rowCount ?? 0) > 0) await this.notify(c, 'release');
      return (d.rowCount ?? 0) > 0;
    });
    await this.refresh();
    return r;
  }

  async hold(provider: string, until: number): Promise<void> {
    await this.tx(async (c) => {
      await c.query(
        `INSERT INTO orcr_hold (cluster, provider, until) VALUES ($1, $2, $3) ON CONFLICT (cluster, provider) DO UPDATE SET until = GREATEST(orcr_hold.until, excluded.until)`,
        [this.o.cluster, provider, Math.round(until)],
      );
      await this.notify(c, 'hold');
    });
    await this.refresh();
  }

  async lift(provider: string): Promise<void> {
    await this.tx(async (c) => {
      await c.query(`DELETE FROM orcr_hold WHERE cluster = $1 AND provider = $2`, [this.o.cluster, provider]);
      await this.notify(c, 'lift');
    });
    await this.refresh();
  }

  holds(): Record<string, number> {
    return { ...this.snap.holds };
  }

  /** Holds are the cluster's: a local change goes through hold() and lift(). */
  setHolds(): void {
    /* the cluster's holds are read from the database */
  }

  /** The cluster keeps the caps the first machine stored (see onConflict): a local config change does not change them. */
  setPolicy(): void {
    /* see join */
  }

  async addUsage(at: number, tokens: number, cost: number): Promise<void> {
    await this.q(
      `INSERT INTO orcr_usage (cluster, minute, tokens, cost) VALUES ($1, $2, $3, $4)
       ON CONFLICT (cluster, minute) DO UPDATE SET tokens = orcr_usage.tokens + excluded.tokens, cost = orcr_usage.cost + excluded.cost`,
      [this.o.cluster, Math.floor(at / 60_000), tokens, cost],
    );
  }

  usageSince(at: number): { tokens: number; cost: number } | null {
    return this.fleetUsage.since === Math.floor(at / 60_000) ? { tokens: this.fleetUsage.tokens, cost: this.fleetUsage.cost } : null;
  }

  /** Read the cluster's usage since then into the snapshot (usageSince answers from it). */
  async loadUsage(at: number): Promise<{ tokens: number; cost: number }> {
    const minute = Math.floor(at / 60_000);
    const r = await this.q<{ tokens: string; cost: number }>(
      `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost), 0) AS cost FROM orcr_usage WHERE cluster = $1 AND minute >= $2`,
      [this.o.cluster, minute],
    );
    this.fleetUsage = { tokens: Number(r.rows[0]!.tokens), cost: Math.round(Number(r.rows[0]!.cost) * 1e6) / 1e6, since: minute };
    return { tokens: this.fleetUsage.tokens, cost: this.fleetUsage.cost };
  }

  expired(now: number): string[] {
    // Only this machine ends its own waiters.
    const mine = this.snap.waiters.filter((w) => w.host === this.o.host);
    return expiredOf({ policy: this.policy, holders: [], waiters: mine, holds: this.snap.holds, now });
  }

  /**
   * Besides max waits and holds: while we have waiters, the moment the next
   * lease lapses (its machine may be gone) — so a dead machine's slot is
   * taken within lease_ttl, not at the next poll.
   */
  nextDeadline(now: number): number | null {
    const mine = this.snap.waiters.filter((w) => w.host === this.o.host);
    let at = nextDeadlineOf({ policy: this.policy, holders: [], waiters: mine, holds: this.snap.holds, now });
    if (mine.length > 0 && this.snap.holders.length > 0) {
      const lapse = this.snapAt + Math.min(...this.snap.holders.map((h) => h.leftMs)) + 1;
      if (lapse > now && (at === null || lapse < at)) at = lapse;
    }
    return at;
  }

  get queued(): number {
    return this.snap.waiters.length;
  }

  get active(): number {
    return this.snap.holders.length;
  }

  isQueued(uuid: string): boolean {
    return this.snap.waiters.some((w) => w.uuid === uuid);
  }

  leaseOf(uuid: string): Lease | null {
    return this.snap.holders.find((h) => h.uuid === uuid && h.host === this.o.host) ?? null;
  }

  holders(): Lease[] {
    return this.snap.holders.map((h) => ({ ...h }));
  }

  waiting(): Waiter[] {
    return this.snap.waiters.map((w) => ({ ...w }));
  }

  /** Cluster-wide caps; holders and waiters named `host:name`. */
  usage(now: number): CapUsage[] {
    return capUsage({ policy: this.policy, holders: this.snap.holders, waiters: this.snap.waiters, holds: this.snap.holds, now });
  }

  position(uuid: string): number | null {
    return this.view().queuePosition(uuid);
  }

  waitingFor(uuid: string, now: number, fleetExceeded: boolean): Waiting | null {
    return this.view().waitingFor(uuid, now, fleetExceeded);
  }

  /** This machine's name in the cluster, and the machines in it with their state. */
  get host(): string {
    return this.o.host;
  }

  async machines(): Promise<{ host: string; heartbeat: string; alive: boolean; leases: number; waiters: number }[]> {
    const r = await this.q<{ host: string; heartbeat: Date; alive: boolean; leases: string; waiters: string }>(
      `SELECT h.host, h.heartbeat, h.heartbeat >= now() - ($2 || ' milliseconds')::interval AS alive,
              (SELECT COUNT(*) FROM orcr_lease l WHERE l.cluster = h.cluster AND l.host = h.host) AS leases,
              (SELECT COUNT(*) FROM orcr_waiter w WHERE w.cluster = h.cluster AND w.host = h.host) AS waiters
       FROM orcr_host h WHERE h.cluster = $1 ORDER BY h.host`,
      [this.o.cluster, String(this.o.leaseTtlMs)],
    );
    return r.rows.map((x) => ({ host: x.host, heartbeat: new Date(x.heartbeat).toISOString(), alive: x.alive, leases: Number(x.leases), waiters: Number(x.waiters) }));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }

  // ---------- the snapshot ----------

  /**
   * The cluster as it stands: leases, waiters in queue order, holds in force.
   * Calls that come while one read is in flight share the next read: a storm
   * of notices costs two reads, not one each.
   */
  refresh(): Promise<void> {
    if (!this.refreshing) {
      this.refreshing = this.readSnapshot().finally(() => {
        this.refreshing = null;
      });
      return this.refreshing;
    }
    this.refreshAgain ??= this.refreshing
      .catch(() => undefined)
      .then(() => {
        this.refreshAgain = null;
        return this.refresh();
      });
    return this.refreshAgain;
  }

  private async readSnapshot(): Promise<void> {
    const c = await this.checkout().catch((e: unknown) => Promise.reject(unavailable(e)));
    try {
      this.snap = await this.read(c);
      this.snapAt = Date.now();
      this.index = null;
    } catch (e) {
      throw unavailable(e);
    } finally {
      c.release();
    }
  }

  private async read(c: pg.PoolClient): Promise<Snapshot> {
    // One after another: a pg client runs one query at a time anyway (it only queued them), and pg 9 will refuse the overlap.
    const leases = await c.query<{ id: string; uuid: string; host: string; name: string; provider: string; workload: string; granted_at: string; left_ms: number }>(
      `SELECT id, uuid, host, name, provider, workload, granted_at, (extract(epoch FROM expires_at - now()) * 1000)::float8 AS left_ms
       FROM orcr_lease WHERE cluster = $1 AND expires_at >= now() ORDER BY id`,
      [this.o.cluster],
    );
    const waiters = await c.query<{ uuid: string; host: string; name: string; provider: string; workload: string; seq: string; enqueued_at: string }>(
      `SELECT uuid, host, name, provider, workload, seq, enqueued_at FROM orcr_waiter WHERE cluster = $1 ORDER BY seq`,
      [this.o.cluster],
    );
    const holds = await c.query<{ provider: string; until: string }>(`SELECT provider, until FROM orcr_hold WHERE cluster = $1`, [this.o.cluster]);
    return {
      holders: leases.rows.map((r) => ({ id: String(r.id), uuid: r.uuid, host: r.host, name: r.name, provider: r.provider, workload: r.workload, granted_at: Number(r.granted_at), leftMs: Number(r.left_ms) })),
      waiters: waiters.rows.map((r) => ({ uuid: r.uuid, host: r.host, name: r.name, provider: r.provider, workload: r.workload, queue_seq: Number(r.seq), enqueued_at: Number(r.enqueued_at) })),
      holds: Object.fromEntries(holds.rows.map((r) => [r.provider, Number(r.until)])),
    };
  }

  /** An admission index over the snapshot, for positions and reasons (built once per snapshot). */
  private view(): AdmissionIndex {
    if (this.index) return this.index;
    const ix = new AdmissionIndex(this.policy, this.snap.holds);
    for (const h of this.snap.holders) ix.acquire(h as SlotHolder);
    for (const w of this.snap.waiters) ix.enqueue(w);
    this.index = ix;
    return ix;
  }
}
