// This machine's membership of a cluster (config `cluster`): the shared
// limiter behind availability — when the database cannot be reached, fail
// closed (nothing is admitted, runs still queue here, agents go on) and try
// again until it can — the heartbeat that keeps our leases alive, what a lost
// lease means (on_lease_lost), and the resync that makes the cluster agree
// with our journal after a join or an outage. It decides no admission itself.

import type { ClusterState } from '../protocol/results.js';
import type { EventInput } from '../core/events.js';
import crypto from 'node:crypto';
import os from 'node:os';
import type { AdmissionPolicy, CapUsage, Waiter } from '../core/admission.js';
import { holdsSlot } from '../core/run-state.js';
import { isLoopRun } from '../core/loop-policy.js';
import type { Waiting } from '../core/waiting.js';
import type { Run } from '../core/types.js';
import type { Config } from '../config/load.js';
import type { Lease, Limiter } from '../limiter/limiter.js';
import { ClusterRefused, ClusterUnavailable, PgLimiter, type NotificationState } from '../limiter/pg.js';
import type { PgCommands } from '../limiter/pg-commands.js';
import { monoNow } from './clock.js';
import { RemoteError } from '../protocol/errors.js';
import { toWaiter } from '../core/run-record.js';
import type { Home } from '../config/home.js';
import type { RunStore } from './run-store.js';

/** What the link needs of the supervisor: the journal's runs, its log, and a way to say what follows (effects). */
export interface ClusterDeps {
  home: Home;
  store: RunStore;
  config: () => Config;
  log: (msg: string) => void;
  background: (work: Promise<unknown>) => void;
  /** A queued run kept out of every queue, waiting for its inputs (server/dependencies.ts). */
  held: (run: Run) => boolean;
  /** Joined, or back after an outage, the cluster agreeing with the journal again. */
  started?: () => void;
}

export type ClusterConfig = NonNullable<Config['cluster']>;

/** How long `cluster status` waits for the database before calling it unavailable. */
const STATUS_DEADLINE_MS = 3000;

/** The database URL: ORCR_CLUSTER_URL wins, so a secret can stay out of config.json. */
export function clusterUrl(cfg: ClusterConfig, env: NodeJS.ProcessEnv = process.env): string | null {
  return env.ORCR_CLUSTER_URL && env.ORCR_CLUSTER_URL.trim() !== '' ? env.ORCR_CLUSTER_URL : (cfg.url ?? null);
}

export class ClusterLink implements Limiter {
  readonly name: string;
  readonly host: string;
  /** Null until joined (the database was away at start). */
  private pg: PgLimiter | null = null;
  private available = false;
  private since = Date.now();
  private error: string | null = 'not joined yet';
  private retry: NodeJS.Timeout | null = null;
  private beat: NodeJS.Timeout | null = null;
  private machinesSeen: ClusterState['machines'] = [];
  private machinesAt: number | null = null;
  private notifications: NotificationState = 'unknown';
  private notificationsWhy: string | null = null;
  /** A tryUp in flight: the retry timer must not start a second one (each would say "available"). */
  private comingUp = false;
  private closed = false;
  private joinedOnce = false;
  /** cluster_unavailable journaled, and not yet followed by cluster_available (a machine that starts with the database away says so too). */
  private unavailableSaid = false;
  /** When our leases were last renewed (this machine's clock). */
  private lastRenew = Date.now();
  /** Leases already said lost (lease_lost), until they are taken again. */
  private readonly lostSaid = new Set<string>();
  /** Who hears the notices on this machine's own channel (commands for it, answers to its commands). */
  private readonly noticeListeners = new Set<(payload: string) => void>();

  constructor(
    private readonly p: ClusterDeps,
    private readonly cfg: ClusterConfig,
    private readonly policy: AdmissionPolicy,
  ) {
    this.name = cfg.name;
    this.host = cfg.host ?? os.hostname();
  }

  /**
   * Join the cluster. A refusal (caps differ, bad URL, wrong password, no
   * privilege) is thrown: the supervisor does not start. The database merely
   * unreachable is not: the machine starts failed closed and keeps trying.
   */
  async connect(): Promise<void> {
    try {
      await this.open();
    } catch (e) {
      if (e instanceof ClusterUnavailable) this.down(e);
      else throw e;
    }
  }

  private async open(): Promise<void> {
    const url = clusterUrl(this.cfg);
    if (!url) throw new ClusterRefused('cluster.url is not set (nor ORCR_CLUSTER_URL): which PostgreSQL does this cluster use?');
    this.pg = await PgLimiter.join({
      url,
      cluster: this.cfg.name,
      host: this.host,
      leaseTtlMs: this.cfg.lease_ttl,
      policy: this.policy,
      onConflict: this.cfg.on_conflict,
      pollMs: this.cfg.poll,
      forgetAfterMs: this.cfg.forget_after,
      identity: { homeId: this.homeId(), home: this.p.home.dir, machine: os.hostname() },
      now: monoNow,
      onWake: () => this.p.store.emit({ kind: 'admit' }),
      onNotice: (payload) => this.noticeListeners.forEach((fn) => fn(payload)),
      acceptCommands: this.cfg.accept_commands,
      onNotifications: (state, why) => this.notified(state, why),
      ...(this.cfg.listen_url ? { listenUrl: this.cfg.listen_url } : {}),
    });
    this.available = true;
    this.since = Date.now();
    this.error = null;
  }

  /** This home's lasting id in the cluster's list of machines (kept in the journal). */
  private homeId(): string {
    const { store } = this.p;
    let id = store.reader.getMeta<string>('home_id');
    if (!id) {
      id = crypto.randomUUID();
      store.setMeta('home_id', id);
    }
    return id;
  }

  /** Notices from other machines started or stopped arriving: said in server.log, and in the state that stats, cluster status and the TUI show. */
  private notified(state: NotificationState, why: string): void {
    const was = this.notifications;
    this.notifications = state;
    this.notificationsWhy = state === 'not arriving' ? why : null;
    if (state === 'not arriving') this.p.log(`cluster notifications do not arrive: ${why}; checking the database every 250 ms instead`);
    else if (state === 'arriving' && was === 'not arriving') this.p.log('cluster notifications arrive again');
  }

  /** Once the journal is loaded: agree with it, say we joined, and beat. */
  async start(afterOutage = false): Promise<void> {
    if (!this.pg) return;
    await this.resync(afterOutage);
    if (!this.joinedOnce) {
      this.joinedOnce = true;
      this.p.store.event(null, { type: 'cluster_joined', data: { cluster: this.name, host: this.host } });
    }
    this.beat ??= setInterval(() => this.p.background(this.heartbeat()), Math.max(250, Math.floor(this.cfg.lease_ttl / 3)));
    this.beat.unref();
    this.p.store.emit({ kind: 'admit' });
    this.p.started?.();
  }

  /** Our queued runs wait in the cluster; our live runs hold their leases (a lease that lapsed is taken again, under a new id). */
  private async resync(afterOutage = false): Promise<void> {
    const { store } = this.p;
    const waiters: Waiter[] = [];
    const holders: Lease[] = [];
    for (const run of store.active()) {
      // A loop run holds no slot (server/loops.ts).
      if (isLoopRun(run)) continue;
      if (run.status === 'queued') {
        // A dependent waiting for its inputs is in no queue yet (server/dependencies.ts).
        if (!this.p.held(run)) waiters.push({ ...toWaiter(run), name: run.name });
      } else if (holdsSlot(run.status)) {
        holders.push({
          id: run.lease_id ?? '',
          uuid: run.uuid,
          provider: run.provider,
          workload: run.workload,
          granted_at: run.started_at ?? run.status_at,
          name: run.name,
        });
      }
    }
    const ids = await this.pg!.resync(waiters, holders, afterOutage);
    this.lastRenew = Date.now();
    // A lease that changed id lapsed while we could not renew it: lost (said
    // once), then held again under the new id; with on_lease_lost "stop" the
    // run is stopped too.
    const lost: string[] = [];
    store.transaction(() => {
      for (const [uuid, id] of ids) {
        const run = store.get(uuid);
        if (!run || run.lease_id === id) continue;
        const events: EventInput[] = [];
        if (run.lease_id && !this.lostSaid.has(run.lease_id)) events.push(this.lostEvent(run.lease_id));
        events.push({ type: 'lease_acquired', data: { lease: id, host: this.host, again: run.lease_id !== null } });
        store.save({ ...run, lease_id: id }, events);
        if (run.lease_id) lost.push(uuid);
      }
    });
    this.lostSaid.clear();
    if (this.cfg.on_lease_lost === 'stop')
      this.p.store.emit(
        ...lost.map((uuid) => ({ kind: 'stop' as const, uuid, reason: 'lease_lost' as const, detail: 'its lease expired before it could be renewed' })),
      );
    await this.loadUsage();
    this.sayIfOverCap();
  }

  private lostEvent(lease: string): EventInput {
    this.lostSaid.add(lease);
    return { type: 'lease_lost', data: { lease, host: this.host, action: this.cfg.on_lease_lost } };
  }

  /** Leases re-taken after an outage may put the cluster over a cap: nothing is admitted until it is under again. Said once per outage. */
  private sayIfOverCap(): void {
    const over = this.usage(monoNow()).filter((c) => c.active > c.limit);
    if (over.length === 0) return;
    const what = over.map((c) => `${c.cap} ${c.active}/${c.limit}`).join(', ');
    this.p.log(`cluster over its caps after re-taking leases (${what}): admitting nothing until it is under again`);
    this.p.store.event(null, { type: 'cluster_over_cap', data: { caps: over.map((c) => ({ cap: c.cap, active: c.active, limit: c.limit })) } });
  }

  /**
   * While the database is away: once our last renewal is older than
   * lease_ttl, the cluster has let our leases go. Say so now (lease_lost);
   * with on_lease_lost "stop", stop those runs.
   */
  private checkLapsed(): void {
    if (Date.now() - this.lastRenew <= this.cfg.lease_ttl) return;
    const { store } = this.p;
    const lapsed = [...store.active()].filter((r) => holdsSlot(r.status) && r.lease_id && !this.lostSaid.has(r.lease_id));
    for (const run of lapsed) {
      store.event(run.uuid, this.lostEvent(run.lease_id!));
      if (this.cfg.on_lease_lost === 'stop')
        this.p.store.emit({ kind: 'stop', uuid: run.uuid, reason: 'lease_lost', detail: 'its lease expired while the cluster database was away' });
    }
  }

  /** Renew our leases; a lease the cluster no longer has is lost (on_lease_lost: keep it running and take it again, or stop it). */
  private async heartbeat(): Promise<void> {
    if (!this.available || this.closed || !this.pg) return;
    const { store } = this.p;
    const held = new Map<string, string>();
    for (const run of store.active()) if (holdsSlot(run.status) && run.lease_id) held.set(run.lease_id, run.uuid);
    let lost: string[];
    try {
      lost = await this.pg.heartbeat([...held.keys()]);
      this.machinesSeen = await this.pg.machines();
      this.machinesAt = Date.now();
      await this.loadUsage();
    } catch (e) {
      this.down(e);
      return;
    }
    this.lastRenew = Date.now();
    // Expired before we renewed them (this machine stalled longer than lease_ttl): resync says so and takes them again.
    if (lost.length > 0) await this.resync();
    this.p.store.emit({ kind: 'fleet', reload: false });
  }

  private async loadUsage(): Promise<void> {
    const w = this.p.config().budgets.fleet.window;
    await this.pg!.loadUsage(w === 'all' ? 0 : monoNow() - w.rolling_ms);
    // The fleet re-reads its window's usage (ours now the cluster's) before its next verdict.
    this.p.store.emit({ kind: 'fleet', reload: true });
  }

  /** The database went away: fail closed, say so once, and try again every 2 s. */
  down(e: unknown): void {
    if (this.closed) return;
    if (this.available || !this.unavailableSaid) {
      this.available = false;
      this.since = Date.now();
      this.error = (e as Error)?.message ?? String(e);
      this.unavailableSaid = true;
      this.p.log(`cluster unavailable: ${this.error}; admitting nothing until it is back (runs still queue, agents go on)`);
      const data = { cluster: this.name, error: this.error };
      this.p.background(Promise.resolve().then(() => this.p.store.event(null, { type: 'cluster_unavailable', data })));
    }
    this.retry ??= setInterval(
      () => {
        this.checkLapsed();
        void this.tryUp();
      },
      Math.min(2000, Math.max(250, Math.floor(this.cfg.lease_ttl / 3))),
    );
    this.retry.unref();
  }

  private async tryUp(): Promise<void> {
    if (this.available || this.closed || this.comingUp) return;
    this.comingUp = true;
    try {
      const wasJoined = this.pg !== null;
      if (this.pg) await this.pg.refresh();
      else await this.open();
      this.available = true;
      this.since = Date.now();
      this.error = null;
      if (this.retry) clearInterval(this.retry);
      this.retry = null;
      await this.start(wasJoined);
      this.p.log('cluster available: admitting');
      if (this.unavailableSaid) this.p.store.event(null, { type: 'cluster_available', data: { cluster: this.name } });
      this.unavailableSaid = false;
    } catch (e) {
      // Back and gone again (a resync that failed): fail closed again, and keep trying.
      this.available = false;
      this.error = (e as Error)?.message ?? String(e);
      this.down(e);
    } finally {
      this.comingUp = false;
    }
  }

  state(): ClusterState {
    return {
      name: this.name,
      host: this.host,
      available: this.available,
      since: this.since,
      error: this.error,
      notifications: this.notifications,
      notifications_detail: this.notificationsWhy,
      listen: this.cfg.listen_url ? 'listen_url' : 'url',
      machines: this.machinesSeen,
      machines_at: this.machinesAt,
      seen_at: this.pg?.seenAt ?? null,
    };
  }

  /**
   * The cluster's machines, for `orcr cluster status`: read now when the
   * database answers, else the last ones seen. A database that fails or does
   * not answer in time (a host that drops packets, a stopped server whose
   * pooled connections hang) is down, for the status as for admission: the
   * verb reports that state instead of failing or hanging.
   */
  async machines(): Promise<ClusterState['machines']> {
    if (!this.pg || !this.available) return this.machinesSeen;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the database did not answer within ${STATUS_DEADLINE_MS / 1000} s`)), STATUS_DEADLINE_MS);
    });
    try {
      this.machinesSeen = await Promise.race([this.pg.machines(), late]);
      this.machinesAt = Date.now();
    } catch (e) {
      this.down(e);
    } finally {
      clearTimeout(timer);
    }
    return this.machinesSeen;
  }

  /** `orcr cluster forget HOST`. */
  async forget(host: string): Promise<{ forgotten: boolean; alive: boolean }> {
    if (!this.pg || !this.available)
      throw new RemoteError('unavailable', `the cluster database is unavailable (${this.error ?? 'not joined'}): nothing can be forgotten now`);
    let r: { forgotten: boolean; alive: boolean };
    try {
      r = await this.pg.forget(host);
    } catch (e) {
      if (!(e instanceof ClusterUnavailable)) throw e;
      this.down(e);
      throw new RemoteError('unavailable', `the cluster database is unavailable (${e.message}): nothing was forgotten`);
    }
    this.machinesSeen = this.machinesSeen.filter((m) => !r.forgotten || m.host !== host);
    return r;
  }

  // ---------- commands between machines (cluster-inbox.ts, cluster-calls.ts) ----------

  /** Orcr_command through this link's connections, or why not now: the database is away (or was never reached). */
  commands(): { port: PgCommands } | { unavailable: string } {
    if (!this.pg || !this.available) return { unavailable: this.error ?? 'not joined' };
    return { port: this.pg.commands };
  }

  /** Hear the notices on this machine's channel; returns what stops it. */
  listenNotices(fn: (payload: string) => void): () => void {
    this.noticeListeners.add(fn);
    return () => this.noticeListeners.delete(fn);
  }

  /** Whether notices reach this machine (else commands and answers are found by polling). */
  get noticesArrive(): boolean {
    return this.notifications === 'arriving';
  }

  /** The cluster's machines as last seen; `fresh` reads them again first (a name not among them may be a machine that joined since). */
  async hosts(fresh = false): Promise<ReadonlySet<string>> {
    if (fresh || this.machinesAt === null) await this.machines();
    return new Set([this.host, ...this.machinesSeen.map((m) => m.host)]);
  }

  // ---------- the Limiter interface, closed while the database is away ----------

  private async guarded<T>(work: (pg: PgLimiter) => Promise<T>, closed: T): Promise<T> {
    if (!this.available || !this.pg) return closed;
    try {
      return await work(this.pg);
    } catch (e) {
      if (!(e instanceof ClusterUnavailable)) throw e;
      this.down(e);
      return closed;
    }
  }

  // A waiter or a release missed while the database is away is put right by the resync when it is back.
  enqueue(w: Waiter): Promise<void> {
    return this.guarded((pg) => pg.enqueue(w), undefined);
  }
  cancel(uuid: string): Promise<boolean> {
    return this.guarded((pg) => pg.cancel(uuid), false);
  }
  adopt(lease: Lease): Promise<void> {
    return this.guarded((pg) => pg.adopt(lease), undefined);
  }
  grant(now: number): Promise<Lease[]> {
    return this.guarded((pg) => pg.grant(now), []);
  }
  renew(leaseId: string, now: number): Promise<boolean> {
    return this.guarded((pg) => pg.renew(leaseId, now), false);
  }
  release(leaseId: string): Promise<boolean> {
    return this.guarded((pg) => pg.release(leaseId), false);
  }
  hold(provider: string, until: number): Promise<void> {
    return this.guarded((pg) => pg.hold(provider, until), undefined);
  }
  lift(provider: string, due?: boolean, pace?: { intervalMs: number; now: number }): Promise<void> {
    return this.guarded((pg) => pg.lift(provider, due, pace), undefined);
  }
  addUsage(at: number, tokens: number, cost: number): Promise<void> {
    return this.guarded((pg) => pg.addUsage(at, tokens, cost), undefined);
  }
  usageSince(at: number): { tokens: number; cost: number } | null {
    return this.pg?.usageSince(at) ?? null;
  }
  holds(): Record<string, number> {
    return this.pg?.holds() ?? {};
  }
  setHolds(): void {
    /* the cluster's holds live in the database */
  }
  setPolicy(policy: AdmissionPolicy): void {
    void policy; // the cluster keeps the caps it was joined with
  }
  expired(now: number): string[] {
    return this.pg?.expired(now) ?? [];
  }
  nextDeadline(now: number): number | null {
    return this.pg?.nextDeadline(now) ?? null;
  }
  get queued(): number {
    return this.pg?.queued ?? 0;
  }
  get active(): number {
    return this.pg?.active ?? 0;
  }
  isQueued(uuid: string): boolean {
    return this.pg?.isQueued(uuid) ?? false;
  }
  leaseOf(uuid: string): Lease | null {
    return this.pg?.leaseOf(uuid) ?? null;
  }
  holders(): Lease[] {
    return this.pg?.holders() ?? [];
  }
  waiting(): Waiter[] {
    return this.pg?.waiting() ?? [];
  }
  usage(now: number): CapUsage[] {
    return this.pg?.usage(now) ?? [];
  }
  position(uuid: string): number | null {
    return this.pg?.position(uuid) ?? null;
  }
  /** None while the cluster's database is away: as waitingFor says, no run has a place then. */
  positions(): Map<string, number> {
    return (this.available ? this.pg?.positions() : null) ?? new Map();
  }
  waitingFor(uuid: string, now: number, fleetExceeded: boolean): Waiting | null {
    if (!this.available && this.p.store.get(uuid)?.status === 'queued') {
      return { reason: 'cluster', name: null, active: null, limit: null, reserved: null, until: null, position: null };
    }
    return this.pg?.waitingFor(uuid, now, fleetExceeded) ?? null;
  }
  nameOf(uuid: string): string | null {
    return this.pg?.nameOf(uuid) ?? null;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearInterval(this.retry);
    if (this.beat) clearInterval(this.beat);
    await this.pg?.close();
  }
}
