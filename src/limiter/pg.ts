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
import type { AdmissionPolicy, CapUsage, Waiter } from '../core/admission.js';
import { decidePaced } from '../core/pace.js';
import type { Waiting } from '../core/waiting.js';
import type { Lease, Limiter } from './limiter.js';
import { ClusterDb } from './pg-db.js';
import { ClusterUnavailable, classify } from './pg-errors.js';
import { joinCluster } from './pg-join.js';
import { addUsageAt, deleteHold, savePaces, upsertHold, usageSinceMinute } from './pg-fleet.js';
import { beat, dropHost, dropStale, insertWaiters, listMachines, renewLease, resyncRows, type Machine } from './pg-members.js';
import { adoptLease, claimLeases, dropLease, dropLeaseOf, dropWaiter, grantLeases } from './pg-leases.js';
import { ClusterSnapshot, readSnapshot, type Snapshot } from './pg-snapshot.js';
import { hostChannel, PgCommands } from './pg-commands.js';
import { Wakeup, type NotificationState } from './pg-wake.js';

export { ClusterRefused, ClusterUnavailable } from './pg-errors.js';
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
  /** A notice on this machine's own channel: a command for it, or an answer to one of its commands (pg-commands). */
  onNotice?: (payload: string) => void;
  /** Whether notifications arrive changed. */
  onNotifications?: (state: NotificationState, why: string) => void;
  /** While notifications arrive, how often to check anyway for a change none told of (default 5 s). */
  pollMs?: number;
  /** A machine silent this long is dropped from the cluster's list (default: a day). */
  forgetAfterMs?: number;
  /** Whether this machine carries out other machines' commands (said in its orcr_host row; default true). */
  acceptCommands?: boolean;
  /** Who this machine is, to refuse a second home under the same host name. */
  identity?: { homeId: string; home: string; machine: string };
  /** This machine's clock, in which the times given and returned are (default Date.now). */
  now?: () => number;
}

export class PgLimiter implements Limiter {
  /** The connections, their transactions, and this machine's clock against the database's. */
  private readonly db: ClusterDb;
  private wake: Wakeup | null = null;
  private readonly channel: string;
  /** The cluster as last read: every listing and position answers from it. */
  private readonly view: ClusterSnapshot;
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
  /**
   * The resync on its way (settled, never rejected): its list of this
   * machine's runs is from when it began, so a queueing, cancel or release
   * asked for after that waits for it — else the resync deletes a run queued
   * meanwhile from the cluster's queue, or brings back one canceled or a
   * lease released meanwhile.
   */
  private resyncing: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  /** Commands to and from other machines, over the same connections. */
  readonly commands: PgCommands;

  private constructor(private readonly o: PgLimiterOptions) {
    this.db = new ClusterDb(o.url, o.now ?? Date.now);
    this.commands = new PgCommands(this.db, o.cluster, o.host);
    this.channel = 'orcr_' + crypto.createHash('sha256').update(o.cluster).digest('hex').slice(0, 24);
    this.now = o.now ?? Date.now;
    this.view = new ClusterSnapshot(o.host, o.policy, this.now);
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
      const c = await l.db.checkout();
      try {
        await joinCluster(c, o);
      } finally {
        c.release();
      }
      await l.db.measureOffset(true);
      l.wake = new Wakeup({
        listenUrl: o.listenUrl ?? o.url,
        channel: l.channel,
        notify: async (payload) => {
          await l.db.q(`SELECT pg_notify($1, $2)`, [l.channel, payload]);
        },
        readChange: async () => (await l.db.q<{ change: string }>(`SELECT change FROM orcr_cluster WHERE name = $1`, [o.cluster])).rows[0]?.change ?? '0',
        onWake: () => l.o.onWake?.(),
        also: { channel: hostChannel(o.cluster, o.host), onNotice: (payload) => l.o.onNotice?.(payload) },
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
    return this.view.seenAt;
  }

  /** Whether notifications from other machines reach this one. */
  get notifications(): NotificationState {
    return this.wake?.state ?? 'unknown';
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
          await this.resyncing;
          this.toEnqueue = null;
          await this.db.tx(async (c) => {
            await insertWaiters(c, this.o.cluster, this.o.host, batch);
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
        await this.resyncing;
        const done = await this.db.tx(async (c) => {
          // Every waiter behind it moves up: the other machines' places are stale until they read again.
          if (await dropWaiter(c, this.o.cluster, uuid)) {
            await this.changed(c, 'cancel');
            return true;
          }
          const released = await dropLeaseOf(c, this.o.cluster, this.o.host, uuid);
          if (released) await this.changed(c, 'release');
          return released;
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
        await this.db.tx((c) => adoptLease(c, this.o.cluster, this.o.host, lease, ttl));
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
    const before = this.resyncing;
    const done = this.write(
      (async () => {
        await before;
        await this.db.measureOffset();
        const ids = await this.db.tx(async (c) => {
          const leases = await resyncRows(c, this.o.cluster, this.o.host, ttl, waiters, holders, afterOutage);
          await this.changed(c, 'resync');
          return leases;
        });
        await this.refresh();
        return ids;
      })(),
    );
    this.resyncing = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** `host:name` of a run the cluster lists, for listings. */
  nameOf(uuid: string): string | null {
    return this.view.nameOf(uuid);
  }

  async grant(now: number): Promise<Lease[]> {
    // After this machine's own writes: a run it just queued, a slot it just freed.
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
    const ttl = this.o.leaseTtlMs;
    return this.db.tx(async (c) => {
      // The cluster row's lock: one admission pass at a time, cluster-wide.
      const row = (await c.query(`SELECT policy FROM orcr_cluster WHERE name = $1 FOR UPDATE`, [this.o.cluster])).rows[0] as
        { policy: AdmissionPolicy } | undefined;
      if (!row) throw new ClusterUnavailable(`cluster "${this.o.cluster}" is gone from the database`);
      this.view.policy = row.policy;
      await dropStale(c, this.o.cluster, this.o.host, String(ttl));
      const seq = this.view.begin();
      const state = await readSnapshot(c, this.o.cluster, (t) => this.db.fromDb(t));
      const { promote, paces } = decidePaced(
        { policy: row.policy, holders: state.holders, waiters: state.waiters, holds: state.holds, now },
        state.paces ?? {},
      );
      await savePaces(c, this.o.cluster, state.paces ?? {}, paces, (t) => this.db.toDb(t));
      let granted: Snapshot['holders'] = [];
      if (promote.length > 0) {
        const byUuid = new Map(state.waiters.map((w) => [w.uuid, w]));
        const rows = promote.map((u) => byUuid.get(u)!);
        granted = await grantLeases(c, this.o.cluster, rows, now, ttl);
        // Machines with new grants take them on this notice.
        if (rows.some((r) => r.host !== this.o.host)) await this.changed(c, 'grant');
      }
      // Ours, whoever granted them (this pass, or another machine's).
      const claimed = await claimLeases(c, this.o.cluster, this.o.host);
      // The cluster as this transaction leaves it: no second read for the snapshot.
      const promoted = new Set(promote);
      this.view.set(seq, { holders: [...state.holders, ...granted], waiters: state.waiters.filter((w) => !promoted.has(w.uuid)), holds: state.holds, paces });
      return claimed;
    });
  }

  renew(leaseId: string, _now: number): Promise<boolean> {
    return renewLease(this.db, this.o.cluster, this.o.host, leaseId, String(this.o.leaseTtlMs));
  }

  /**
   * The heartbeat: this machine and every lease it holds stay alive another
   * lease_ttl; machines silent for forget_after are dropped from the list.
   * Returns the ids of the leases it holds that the cluster no longer has
   * (expired while we could not renew them).
   */
  async heartbeat(held: readonly string[]): Promise<string[]> {
    const ttl = String(this.o.leaseTtlMs);
    const alive = await this.db.tx((c) =>
      beat(c, this.o.cluster, this.o.host, ttl, String(this.o.forgetAfterMs ?? 24 * 3600_000), this.o.acceptCommands ?? true),
    );
    await this.db.measureOffset().catch(() => undefined);
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
      this.db.tx(async (c) => {
        const r = await dropHost(c, this.o.cluster, host, String(this.o.leaseTtlMs));
        if (r.forgotten) await this.changed(c, 'forget');
        return r;
      }),
    );
    await this.refresh();
    return r;
  }

  release(leaseId: string): Promise<boolean> {
    return this.write(
      (async () => {
        await this.resyncing;
        const r = await this.db.tx(async (c) => {
          const released = await dropLease(c, this.o.cluster, this.o.host, leaseId);
          if (released) await this.changed(c, 'release');
          return released;
        });
        await this.refresh();
        return r;
      })(),
    );
  }

  /** Held until then (this machine's clock), stored on the database's: a machine whose clock runs ahead lifts it when everyone does. */
  hold(provider: string, until: number): Promise<void> {
    const at = Math.round(this.db.toDb(until));
    return this.write(
      (async () => {
        await this.db.tx(async (c) => {
          await upsertHold(c, this.o.cluster, provider, Math.round(until), at);
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
  lift(provider: string, due = false, pace?: { intervalMs: number; now: number }): Promise<void> {
    return this.write(
      (async () => {
        await this.db.tx(async (c) => {
          if (await deleteHold(c, this.o.cluster, provider, due, pace && { intervalMs: pace.intervalMs, atDb: this.db.toDb(pace.now) }))
            await this.changed(c, 'lift');
        });
        await this.refresh();
      })(),
    );
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
    await addUsageAt(this.db, this.o.cluster, Math.floor(this.db.toDb(at) / 60_000), tokens, cost);
  }

  /** The cluster's usage in the window of the last loadUsage (the window is the fleet budget's, the same at every call). */
  usageSince(_at: number): { tokens: number; cost: number } | null {
    return this.fleetUsage ? { ...this.fleetUsage } : null;
  }

  /** Read the cluster's usage since then (this machine's clock; 0: all of it) into the snapshot (usageSince answers from it). */
  async loadUsage(at: number): Promise<{ tokens: number; cost: number }> {
    const minute = at <= 0 ? Number.MIN_SAFE_INTEGER : Math.floor(this.db.toDb(at) / 60_000);
    this.fleetUsage = await usageSinceMinute(this.db, this.o.cluster, minute);
    return { ...this.fleetUsage };
  }

  // The reads, from the snapshot.
  expired(now: number): string[] {
    return this.view.expired(now);
  }
  nextDeadline(now: number): number | null {
    return this.view.nextDeadline(now);
  }
  get queued(): number {
    return this.view.queued;
  }
  get active(): number {
    return this.view.active;
  }
  isQueued(uuid: string): boolean {
    return this.view.isQueued(uuid);
  }
  leaseOf(uuid: string): Lease | null {
    return this.view.leaseOf(uuid);
  }
  holders(): Lease[] {
    return this.view.holders();
  }
  waiting(): Waiter[] {
    return this.view.waiting();
  }
  usage(now: number): CapUsage[] {
    return this.view.usage(now);
  }
  position(uuid: string): number | null {
    return this.view.position(uuid);
  }
  positions(): Map<string, number> {
    return this.view.positions();
  }
  waitingFor(uuid: string, now: number, fleetExceeded: boolean): Waiting | null {
    return this.view.waitingFor(uuid, now, fleetExceeded);
  }
  holds(): Record<string, number> {
    return this.view.holds();
  }

  /** This machine's name in the cluster, and the machines in it with their state. */
  get host(): string {
    return this.o.host;
  }

  async machines(): Promise<Machine[]> {
    return listMachines(this.db, this.o.cluster, String(this.o.leaseTtlMs));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.wake?.close();
    await this.db.end();
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
    const seq = this.view.begin();
    this.view.set(seq, await this.db.tx((c) => readSnapshot(c, this.o.cluster, (t) => this.db.fromDb(t))));
  }
}
