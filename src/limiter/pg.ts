// The shared limiter: caps, the queue order, holds and fleet usage of one
// cluster of machines, in PostgreSQL. A slot is a lease granted under the
// cluster row's lock in one short transaction, by the same pure decide() a
// single host uses; it expires on the database's clock unless renewed.
// Everything shared that expires or is windowed (leases, holds, fleet usage,
// a machine's staleness) is on the database's clock: a machine converts its
// own times with its offset against it. Other machines' changes wake it
// through pg-wake.ts. An admission pass follows this machine's own writes:
// it waits for their commit, so a run queued or a slot freed here is seen by
// the grant that follows. It keeps a snapshot of the cluster for reads; it
// never starts a process or writes the local journal.

import crypto from 'node:crypto';
import pg from 'pg';
import { capUsage, decide, expired as expiredOf, nextDeadline as nextDeadlineOf, type AdmissionInput, type AdmissionPolicy, type CapUsage, type SlotHolder, type Waiter } from '../core/admission.js';
import { AdmissionIndex } from '../core/admission-index.js';
import type { Waiting } from '../core/waiting.js';
import type { Lease, Limiter } from './limiter.js';
import { ClusterConflict, ClusterRefused, ClusterUnavailable, classify, unavailable } from './pg-errors.js';
import { joinCluster } from './pg-join.js';
import { Wakeup, type NotificationState } from './pg-wake.js';

export { ClusterConflict, ClusterRefused, ClusterUnavailable } from './pg-errors.js';
export { policyDiff } from './pg-join.js';
export type { NotificationState } from './pg-wake.js';

export interface PgLimiterOptions {
  url: string;
  /** Where to LISTEN, when `url` goes through a transaction-mode pooler (default: `url`). */
  listenUrl?: string;
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
  /** Whether notifications arrive changed. */
  onNotifications?: (state: NotificationState, why: string) => void;
  /** While notifications arrive, how often to check anyway for a change none told of (default 5 s). */
  pollMs?: number;
  /** A machine silent this long is dropped from the cluster's list (default: a day). */
  forgetAfterMs?: number;
  /** Who this machine is, to refuse a second home under the same host name. */
  identity?: { homeId: string; home: string; machine: string };
  /** This machine's clock, in which the times given and returned are (default Date.now). */
  now?: () => number;
}

interface Snapshot {
  /** Each lease's time left (database clock) when read, in ms. */
  holders: (Lease & { host: string; name: string; leftMs: number })[];
  waiters: (Waiter & { host: string; name: string })[];
  holds: Record<string, number>;
}

/** Every statement but the join's: a DBA's lock or a stuck server costs seconds, never a full pool of blocked clients. */
const TX_TIMEOUTS = "SET LOCAL lock_timeout = '2s'; SET LOCAL statement_timeout = '5s'";

/** A clock offset that moved less than this is measurement noise, not a jump. */
const OFFSET_NOISE_MS = 1000;

export class PgLimiter implements Limiter {
  private readonly pool: pg.Pool;
  private wake: Wakeup | null = null;
  private readonly channel: string;
  private policy: AdmissionPolicy;
  private snap: Snapshot = { holders: [], waiters: [], holds: {} };
  /** When the snapshot was read (this machine's epoch ms): lease times left count from here. */
  private snapAt = 0;
  private index: AdmissionIndex | null = null;
  private fleetUsage: { tokens: number; cost: number } | null = null;
  private closed = false;
  /** Waiters of the current turn, and their one insert. */
  private toEnqueue: Waiter[] | null = null;
  private enqueued: Promise<void> | null = null;
  /** Writes not yet committed: a grant waits for them (it must see a run queued or a slot freed here). */
  private readonly writes = new Set<Promise<unknown>>();
  /** A refresh in flight, and one asked for meanwhile (it must see what happened after the first began). */
  private refreshing: Promise<void> | null = null;
  private refreshAgain: Promise<void> | null = null;
  /** Snapshot reads in the order they began, and the one the snapshot is from. */
  private readSeq = 0;
  private snapSeq = 0;
  /** This machine's clock minus the database's, in ms. */
  private offset = 0;
  private readonly now: () => number;

  private constructor(private readonly o: PgLimiterOptions) {
    // query_timeout: a bound on the client's side too, for a server that does not answer at all.
    this.pool = new pg.Pool({ connectionString: o.url, max: 4, connectionTimeoutMillis: 5000, idleTimeoutMillis: 10_000, query_timeout: 15_000 });
    this.pool.on('error', () => undefined);
    this.channel = 'orcr_' + crypto.createHash('sha256').update(o.cluster).digest('hex').slice(0, 24);
    this.policy = o.policy;
    this.now = o.now ?? Date.now;
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
      const c = await l.checkout();
      try {
        await joinCluster(c, o);
      } finally {
        c.release();
      }
      await l.measureOffset(true);
      l.wake = new Wakeup({
        listenUrl: o.listenUrl ?? o.url,
        channel: l.channel,
        notify: async (payload) => {
          await l.q(`SELECT pg_notify($1, $2)`, [l.channel, payload]);
        },
        readChange: async () => (await l.q<{ change: string }>(`SELECT change FROM orcr_cluster WHERE name = $1`, [o.cluster])).rows[0]?.change ?? '0',
        onWake: () => l.o.onWake?.(),
        onState: (state, why) => l.o.onNotifications?.(state, why),
        pollMs: o.pollMs ?? 5000,
      });
      await l.wake.start();
      await l.refresh();
    } catch (e) {
      await l.close();
      throw classify(e);
    }
    return l;
  }

  /** When the snapshot (holders, waiters, holds) was last read, on this machine's clock; null before the first. */
  get seenAt(): number | null {
    return this.snapAt || null;
  }

  /** Whether notifications from other machines reach this one. */
  get notifications(): NotificationState {
    return this.wake?.state ?? 'unknown';
  }

  /** This machine's clock against the database's; a jump is taken, jitter is not. */
  private async measureOffset(first = false): Promise<void> {
    const t0 = this.now();
    const r = await this.q<{ db_ms: number }>(`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS db_ms`);
    const t1 = this.now();
    const offset = Math.round((t0 + t1) / 2 - Number(r.rows[0]!.db_ms));
    if (first || Math.abs(offset - this.offset) >= OFFSET_NOISE_MS) this.offset = offset;
  }

  /** A time of this machine's clock on the database's, and back. */
  private toDb(t: number): number {
    return t - this.offset;
  }
  private fromDb(t: number): number {
    return t + this.offset;
  }

  /** One statement in a transaction of its own, with the timeouts (a pooler forbids them as session settings). */
  private async q<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<T>> {
    return this.tx((c) => c.query<T>(sql, params));
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

  /** A write the next grant must see committed. */
  private write<T>(p: Promise<T>): Promise<T> {
    this.writes.add(p);
    const done = (): void => {
      this.writes.delete(p);
    };
    p.then(done, done);
    return p;
  }

  /** Tell the other machines, in the transaction of the change: NOTIFY is delivered at commit, and the counter is what a machine without notifications polls. */
  private async changed(c: pg.PoolClient, what: string): Promise<void> {
    await c.query(`UPDATE orcr_cluster SET change = change + 1 WHERE name = $1`, [this.o.cluster]);
    await c.query(`SELECT pg_notify($1, $2)`, [this.channel, what]);
  }

  // ---------- the Limiter interface ----------

  /** Waiters queued in the same turn of the event loop go in one transaction (a fan-out of a thousand is one, not a thousand). */
  enqueue(w: Waiter): Promise<void> {
    if (this.toEnqueue === null) {
      const batch: Waiter[] = [];
      this.toEnqueue = batch;
      // The grant that follows waits for the insert's commit only, not for the snapshot read after it.
      const inserted = this.write(
        new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
          this.toEnqueue = null;
          await this.tx(async (c) => {
            await c.query(
              `INSERT INTO orcr_waiter (cluster, uuid, host, name, provider, workload, enqueued_at)
               SELECT $1, u, $2, n, p, w, e FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS t(u, n, p, w, e, o)
               ORDER BY o
               ON CONFLICT (cluster, uuid) DO NOTHING`,
              [this.o.cluster, this.o.host, batch.map((x) => x.uuid), batch.map((x) => x.name ?? x.uuid), batch.map((x) => x.provider), batch.map((x) => x.workload), batch.map((x) => Math.round(x.enqueued_at))],
            );
            await this.changed(c, 'enqueue');
          });
        }),
      );
      this.enqueued = inserted.then(() => this.refresh());
    }
    this.toEnqueue.push(w);
    return this.enqueued!;
  }

  cancel(uuid: string): Promise<boolean> {
    return this.write(
      (async () => {
        const done = await this.tx(async (c) => {
          const w = await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND uuid = $2`, [this.o.cluster, uuid]);
          if ((w.rowCount ?? 0) > 0) return true;
          const l = await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND uuid = $2 AND host = $3`, [this.o.cluster, uuid, this.o.host]);
          if ((l.rowCount ?? 0) > 0) await this.changed(c, 'release');
          return (l.rowCount ?? 0) > 0;
        });
        await this.refresh();
        return done;
      })(),
    );
  }

  adopt(lease: Lease): Promise<void> {
    // Restarted within the lease's life: it is still ours; else it is taken
    // again under a new id (ids are never reused), over the cap or not — a
    // running agent is never preempted, and nothing is admitted until the
    // cluster is under its caps again.
    const ttl = this.o.leaseTtlMs;
    return this.write(
      (async () => {
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
      })(),
    );
  }

  /**
   * Make the cluster agree with this machine's journal (at join, and when the
   * database is back): its queued runs wait, its live runs hold a lease (the
   * same one while it lasted, else a new one: a running agent is never
   * preempted), and nothing else of this machine is left. Returns the lease
   * of each holder, by run. `afterOutage`: the database was away, so the
   * other machines' heartbeats are stale for the same reason ours is — their
   * queue places are kept for another lease_ttl from now, for them to come
   * back to.
   */
  resync(waiters: readonly Waiter[], holders: readonly Lease[], afterOutage = false): Promise<Map<string, string>> {
    const ttl = String(this.o.leaseTtlMs);
    return this.write(
      (async () => {
        await this.measureOffset();
        const ids = await this.tx(async (c) => {
          const { cluster, host } = this.o;
          await c.query(`INSERT INTO orcr_host (cluster, host) VALUES ($1, $2) ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now()`, [cluster, host]);
          if (afterOutage) await c.query(`UPDATE orcr_cluster SET resumed_at = now() WHERE name = $1`, [cluster]);
          await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND host = $2 AND NOT (uuid = ANY($3::text[]))`, [cluster, host, waiters.map((w) => w.uuid)]);
          await c.query(
            `INSERT INTO orcr_waiter (cluster, uuid, host, name, provider, workload, enqueued_at)
             SELECT $1, u, $2, n, p, w, e FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) WITH ORDINALITY AS t(u, n, p, w, e, o)
             ORDER BY o
             ON CONFLICT (cluster, uuid) DO NOTHING`,
            [cluster, host, waiters.map((w) => w.uuid), waiters.map((w) => w.name ?? w.uuid), waiters.map((w) => w.provider), waiters.map((w) => w.workload), waiters.map((w) => Math.round(w.enqueued_at))],
          );
          await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2 AND NOT (uuid = ANY($3::text[]))`, [cluster, host, holders.map((h) => h.uuid)]);
          await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2 AND expires_at < now()`, [cluster, host]);
          const r = await c.query<{ uuid: string; id: string }>(
            `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at, claimed)
             SELECT $1, u, $2, n, p, w, g, now() + ($8 || ' milliseconds')::interval, true
             FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[]) AS t(u, n, p, w, g)
             ON CONFLICT (cluster, uuid) DO UPDATE SET host = excluded.host, expires_at = excluded.expires_at, claimed = true
             RETURNING uuid, id`,
            [cluster, host, holders.map((h) => h.uuid), holders.map((h) => h.name ?? h.uuid), holders.map((h) => h.provider), holders.map((h) => h.workload), holders.map((h) => Math.round(h.granted_at)), ttl],
          );
          await this.changed(c, 'resync');
          return new Map(r.rows.map((x) => [x.uuid, String(x.id)]));
        });
        await this.refresh();
        return ids;
      })(),
    );
  }

  /** `host:name` of a run the cluster lists, for listings. */
  nameOf(uuid: string): string | null {
    const r = this.snap.holders.find((h) => h.uuid === uuid) ?? this.snap.waiters.find((w) => w.uuid === uuid);
    return r ? `${r.host}:${r.name}` : null;
  }

  async grant(now: number): Promise<Lease[]> {
    // After this machine's own writes: a run it just queued, a slot it just freed.
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
    const ttl = this.o.leaseTtlMs;
    const mine = await this.tx(async (c) => {
      // The cluster row's lock: one admission pass at a time, cluster-wide.
      const row = (await c.query(`SELECT policy FROM orcr_cluster WHERE name = $1 FOR UPDATE`, [this.o.cluster])).rows[0] as { policy: AdmissionPolicy } | undefined;
      if (!row) throw new ClusterUnavailable(`cluster "${this.o.cluster}" is gone from the database`);
      this.policy = row.policy;
      // Slots of machines that stopped renewing come back; their queue entries
      // go — a machine is stale once its heartbeat is older than lease_ttl on
      // the database's clock, counted from when the database was last back
      // (a restart of its server, or a machine's return after an outage):
      // across an outage everyone's heartbeat is old, and nobody is gone.
      await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND expires_at < now()`, [this.o.cluster]);
      await c.query(
        `DELETE FROM orcr_waiter w USING orcr_host h, orcr_cluster k
         WHERE w.cluster = $1 AND h.cluster = $1 AND k.name = $1 AND h.host = w.host AND h.host <> $3
           AND GREATEST(h.heartbeat, k.resumed_at, pg_postmaster_start_time()) < now() - ($2 || ' milliseconds')::interval`,
        [this.o.cluster, String(ttl), this.o.host],
      );
      const seq = ++this.readSeq;
      const state = await this.read(c);
      const promote = decide({ policy: row.policy, holders: state.holders, waiters: state.waiters, holds: state.holds, now });
      let granted: Snapshot['holders'] = [];
      if (promote.length > 0) {
        const byUuid = new Map(state.waiters.map((w) => [w.uuid, w]));
        const rows = promote.map((u) => byUuid.get(u)!);
        const ins = await c.query<{ id: string; uuid: string; host: string; name: string; provider: string; workload: string }>(
          `INSERT INTO orcr_lease (cluster, uuid, host, name, provider, workload, granted_at, expires_at)
           SELECT $1, u, h, n, p, w, $7, now() + ($8 || ' milliseconds')::interval
           FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(u, h, n, p, w)
           RETURNING id, uuid, host, name, provider, workload`,
          [this.o.cluster, rows.map((r) => r.uuid), rows.map((r) => r.host), rows.map((r) => r.name), rows.map((r) => r.provider), rows.map((r) => r.workload), Math.round(now), String(ttl)],
        );
        granted = ins.rows.map((r) => ({ id: String(r.id), uuid: r.uuid, host: r.host, name: r.name, provider: r.provider, workload: r.workload, granted_at: Math.round(now), leftMs: ttl }));
        await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND uuid = ANY($2::text[])`, [this.o.cluster, promote]);
        // Machines with new grants take them on this notice.
        if (rows.some((r) => r.host !== this.o.host)) await this.changed(c, 'grant');
      }
      // Ours, whoever granted them (this pass, or another machine's).
      const claimed = await c.query<{ id: string; uuid: string; provider: string; workload: string; name: string; granted_at: string }>(
        `UPDATE orcr_lease SET claimed = true WHERE cluster = $1 AND host = $2 AND NOT claimed RETURNING id, uuid, provider, workload, name, granted_at`,
        [this.o.cluster, this.o.host],
      );
      // The cluster as this transaction leaves it: no second read for the snapshot.
      const promoted = new Set(promote);
      this.setSnapshot(seq, { holders: [...state.holders, ...granted], waiters: state.waiters.filter((w) => !promoted.has(w.uuid)), holds: state.holds });
      return claimed.rows;
    });
    return mine
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
   * lease_ttl; machines silent for forget_after are dropped from the list.
   * Returns the ids of the leases it holds that the cluster no longer has
   * (expired while we could not renew them).
   */
  async heartbeat(held: readonly string[]): Promise<string[]> {
    const ttl = String(this.o.leaseTtlMs);
    const alive = await this.tx(async (c) => {
      await c.query(`INSERT INTO orcr_host (cluster, host) VALUES ($1, $2) ON CONFLICT (cluster, host) DO UPDATE SET heartbeat = now()`, [this.o.cluster, this.o.host]);
      const r = await c.query<{ id: string }>(
        `UPDATE orcr_lease SET expires_at = now() + ($3 || ' milliseconds')::interval WHERE cluster = $1 AND host = $2 AND expires_at >= now() RETURNING id`,
        [this.o.cluster, this.o.host, ttl],
      );
      await c.query(`DELETE FROM orcr_host WHERE cluster = $1 AND host <> $2 AND heartbeat < now() - ($3 || ' milliseconds')::interval`, [
        this.o.cluster,
        this.o.host,
        String(this.o.forgetAfterMs ?? 24 * 3600_000),
      ]);
      return new Set(r.rows.map((x) => String(x.id)));
    });
    await this.measureOffset().catch(() => undefined);
    await this.wake?.ensureListening();
    return held.filter((id) => !alive.has(id));
  }

  /**
   * `orcr cluster forget HOST`: drop a machine that left for good from the
   * list, with its queue entries and leases. A live machine (one that beat
   * within lease_ttl), or this one, is refused: it would only come back.
   */
  async forget(host: string): Promise<{ forgotten: boolean; alive: boolean }> {
    if (host === this.o.host) return { forgotten: false, alive: true };
    const r = await this.write(
      this.tx(async (c) => {
        const row = (
          await c.query<{ alive: boolean }>(`SELECT heartbeat >= now() - ($3 || ' milliseconds')::interval AS alive FROM orcr_host WHERE cluster = $1 AND host = $2 FOR UPDATE`, [
            this.o.cluster,
            host,
            String(this.o.leaseTtlMs),
          ])
        ).rows[0];
        if (!row) return { forgotten: false, alive: false };
        if (row.alive) return { forgotten: false, alive: true };
        await c.query(`DELETE FROM orcr_waiter WHERE cluster = $1 AND host = $2`, [this.o.cluster, host]);
        await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND host = $2`, [this.o.cluster, host]);
        await c.query(`DELETE FROM orcr_host WHERE cluster = $1 AND host = $2`, [this.o.cluster, host]);
        await this.changed(c, 'forget');
        return { forgotten: true, alive: false };
      }),
    );
    await this.refresh();
    return r;
  }

  release(leaseId: string): Promise<boolean> {
    return this.write(
      (async () => {
        const r = await this.tx(async (c) => {
          const d = await c.query(`DELETE FROM orcr_lease WHERE cluster = $1 AND id = $2 AND host = $3`, [this.o.cluster, leaseId, this.o.host]);
          if ((d.rowCount ?? 0) > 0) await this.changed(c, 'release');
          return (d.rowCount ?? 0) > 0;
        });
        await this.refresh();
        return r;
      })(),
    );
  }

  /** Held until then (this machine's clock), stored on the database's: a machine whose clock runs ahead lifts it when everyone does. */
  hold(provider: string, until: number): Promise<void> {
    const at = Math.round(this.toDb(until));
    return this.write(
      (async () => {
        await this.tx(async (c) => {
          await c.query(
            `INSERT INTO orcr_hold (cluster, provider, until, expires_at) VALUES ($1, $2, $3, to_timestamp($4::float8 / 1000))
             ON CONFLICT (cluster, provider) DO UPDATE SET until = GREATEST(orcr_hold.until, excluded.until), expires_at = GREATEST(orcr_hold.expires_at, excluded.expires_at)`,
            [this.o.cluster, provider, Math.round(until), at],
          );
          await this.changed(c, 'hold');
        });
        await this.refresh();
      })(),
    );
  }

  /**
   * Lift a provider's hold everywhere. `due`: only if its time has come on
   * the database's clock — a hold lifting on time is the same moment for
   * every machine, and one extended meanwhile stays.
   */
  lift(provider: string, due = false): Promise<void> {
    return this.write(
      (async () => {
        await this.tx(async (c) => {
          const r = due
            ? await c.query(`DELETE FROM orcr_hold WHERE cluster = $1 AND provider = $2 AND COALESCE(expires_at, to_timestamp(until::float8 / 1000)) <= now()`, [this.o.cluster, provider])
            : await c.query(`DELETE FROM orcr_hold WHERE cluster = $1 AND provider = $2`, [this.o.cluster, provider]);
          if ((r.rowCount ?? 0) > 0) await this.changed(c, 'lift');
        });
        await this.refresh();
      })(),
    );
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

  /** Counted in the database's minute of `at`: a fleet window is the same minutes for every machine. */
  async addUsage(at: number, tokens: number, cost: number): Promise<void> {
    await this.q(
      `INSERT INTO orcr_usage (cluster, minute, tokens, cost) VALUES ($1, $2, $3, $4)
       ON CONFLICT (cluster, minute) DO UPDATE SET tokens = orcr_usage.tokens + excluded.tokens, cost = orcr_usage.cost + excluded.cost`,
      [this.o.cluster, Math.floor(this.toDb(at) / 60_000), tokens, cost],
    );
  }

  /** The cluster's usage in the window of the last loadUsage (the window is the fleet budget's, the same at every call). */
  usageSince(_at: number): { tokens: number; cost: number } | null {
    return this.fleetUsage ? { ...this.fleetUsage } : null;
  }

  /** Read the cluster's usage since then (this machine's clock; 0: all of it) into the snapshot (usageSince answers from it). */
  async loadUsage(at: number): Promise<{ tokens: number; cost: number }> {
    const minute = at <= 0 ? Number.MIN_SAFE_INTEGER : Math.floor(this.toDb(at) / 60_000);
    const r = await this.q<{ tokens: string; cost: number }>(
      `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost), 0) AS cost FROM orcr_usage WHERE cluster = $1 AND minute >= $2`,
      [this.o.cluster, minute],
    );
    this.fleetUsage = { tokens: Number(r.rows[0]!.tokens), cost: Math.round(Number(r.rows[0]!.cost) * 1e6) / 1e6 };
    return { ...this.fleetUsage };
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
    await this.wake?.close();
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
    const seq = ++this.readSeq;
    this.setSnapshot(seq, await this.tx((c) => this.read(c)));
  }

  /** Take a snapshot unless a read that began later has been taken already (reads overlap: a grant's and a refresh's). */
  private setSnapshot(seq: number, snap: Snapshot): void {
    if (seq < this.snapSeq) return;
    this.snapSeq = seq;
    this.snap = snap;
    this.snapAt = this.now();
    this.index = null;
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
    // A hold's end on the database's clock, in this machine's (a version-1 row has only the writer's own `until`).
    const holds = await c.query<{ provider: string; until: string; at_ms: number | null }>(
      `SELECT provider, until, (extract(epoch FROM expires_at) * 1000)::float8 AS at_ms FROM orcr_hold WHERE cluster = $1`,
      [this.o.cluster],
    );
    return {
      holders: leases.rows.map((r) => ({ id: String(r.id), uuid: r.uuid, host: r.host, name: r.name, provider: r.provider, workload: r.workload, granted_at: Number(r.granted_at), leftMs: Number(r.left_ms) })),
      waiters: waiters.rows.map((r) => ({ uuid: r.uuid, host: r.host, name: r.name, provider: r.provider, workload: r.workload, queue_seq: Number(r.seq), enqueued_at: Number(r.enqueued_at) })),
      holds: Object.fromEntries(holds.rows.map((r) => [r.provider, r.at_ms === null ? Number(r.until) : Math.round(this.fromDb(Number(r.at_ms)))])),
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
