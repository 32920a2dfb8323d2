// The supervisor: the single writer of orcr's state, as a facade over its
// rooms (built in compose.ts) — the run store, admission, launching, live
// runs and their progress, guards and stops, input, fleet budget and holds,
// ending, waits, queries. It changes the lifecycle mode, rebuilds the rooms'
// memory from the journal at start, and fails closed when the journal cannot
// be written. It holds no run state itself.

import type { ClusterState, FinishMode, GcResult, LetGo, Settled, SpendReply, Stats } from '../protocol/results.js';
import { admissionPolicy, type Config } from '../config/load.js';
import type { RunSpec } from '../config/run-spec.js';
import type { Home } from '../config/home.js';
import { degraded, recovered, STOPPING, withDraining, withPaused } from '../core/mode.js';
import { holdsSlot } from '../core/run-state.js';
import type { Run } from '../core/types.js';
import type { RunEvent } from '../core/events.js';
import { JournalUnavailable } from '../journal/journal.js';
import { LocalLimiter } from '../limiter/local.js';
import { processesGone } from '../runtime/launcher.js';
import { clusterEditProblem } from '../config/cluster-edit.js';
import { monoNow, wallNow, type WallClock } from './clock.js';
import { compose, Settings, type House } from './compose.js';
import type { Loops } from './loops.js';
import { Notifier } from './notify.js';
import { Queries } from './queries.js';
import { Reads } from './reads.js';
import { rebuild, reconcile } from './reconcile.js';
import { RemoteError } from '../protocol/errors.js';
import type { PublicRun } from '../protocol/views.js';
import type { Worktrees } from './worktrees.js';

export type { RunSpec } from '../config/run-spec.js';

export class Supervisor {
  /** What clients read: runs as they stand, pages of runs and events, the snapshot (the handlers' and transport's only way in). */
  readonly reads: Reads;
  private readonly settings: Settings;
  private readonly h: House;
  private readonly queries: Queries;
  private readonly notifier: Notifier;
  private probeTimer: NodeJS.Timeout | null = null;
  readonly startedAt = monoNow();

  constructor(
    private readonly home: Home,
    config: Config,
    private readonly log: (msg: string) => void = () => undefined,
    /** The wall clock the loops' schedules are read by (clock.ts). */
    loopClock: WallClock = wallNow,
  ) {
    this.settings = new Settings(config);
    const h = compose(home, this.settings, log, loopClock);
    this.h = h;
    this.reads = new Reads(h.store.reader, (uuid) => h.store.get(uuid) ?? null);
    h.lifecycle.handle({ degrade: (reason) => this.degrade(reason), fail: (e) => this.fail(e) });
    const settings = this.settings;
    this.queries = new Queries({
      store: h.store,
      fleet: h.fleet,
      dependencies: h.dependencies,
      get limiter() {
        return h.slots.limiter;
      },
      get config() {
        return settings.config;
      },
      get cluster() {
        return h.slots.cluster;
      },
      get paused() {
        return h.lifecycle.paused;
      },
      get draining() {
        return h.lifecycle.draining;
      },
      get degraded() {
        return h.lifecycle.degraded;
      },
    });
    // Told after each commit, like the clients; the journal outlives a degrade, so this is subscribed once.
    this.notifier = new Notifier({ log, view: (run) => this.queries.view(run), lookup: (uuid) => h.store.lookup(uuid) ?? null, now: Date.now });
    this.notifier.setConfig(config.notify);
    h.store.reader.onEvent((event, row) => this.notifier.onEvent(event, row));
  }

  /** Why the journal could not be written when it was opened (a full disk), or null: then the supervisor starts degraded. */
  get unwritableAtOpen(): string | null {
    return this.h.store.unwritableAtOpen;
  }

  /** Why the journal cannot be written, while it cannot. */
  get degraded(): string | null {
    return this.h.lifecycle.degraded;
  }

  /**
   * With config `cluster`: join it before start(). A refusal (caps differ, a
   * bad URL, credentials or privileges) is thrown; a database that is merely
   * away leaves this machine failed closed until it is back.
   */
  async joinCluster(): Promise<void> {
    const cfg = this.settings.config.cluster;
    if (!cfg) return;
    // Loaded only here: a machine on its own never loads the PostgreSQL driver.
    const { ClusterLink } = await import('./cluster-link.js');
    const { store, lifecycle, slots } = this.h;
    const link = new ClusterLink(
      {
        home: this.home,
        store,
        config: this.settings.get,
        log: this.log,
        background: (w) => lifecycle.background(w),
        held: (run) => this.h.dependencies.holds(run.uuid) || this.h.fleet.keepsOut(run),
      },
      cfg,
      admissionPolicy(this.settings.config),
    );
    await link.connect();
    slots.cluster = link;
    slots.limiter = link;
  }

  /** A run's row changed without an event (its last text or tool, its meters): for clients that show rows live. */
  onQuietChange(fn: (uuid: string) => void): void {
    this.h.store.onQuietSave(fn);
  }

  cluster(): ClusterState | null {
    return this.h.slots.cluster?.state() ?? null;
  }

  async clusterMachines(): Promise<ClusterState['machines'] | null> {
    return this.h.slots.cluster ? this.h.slots.cluster.machines() : null;
  }

  /** `orcr cluster forget HOST`, or null when not in a cluster. */
  async forgetMachine(host: string): Promise<{ forgotten: boolean; alive: boolean } | null> {
    return this.h.slots.cluster ? this.h.slots.cluster.forget(host) : null;
  }

  /**
   * Rebuild memory from the journal and repair what changed while no
   * supervisor watched. `draining`: admit nothing from the start (a
   * supervisor started only to kill the agents left running).
   */
  start(opts: { draining?: boolean } = {}): void {
    const { store, lifecycle, lending, slots, retention, loops, continuing } = this.h;
    const active = rebuild(this.h.reconciling);
    lending.clear();
    // Kept through a rebuild after a degrade: a drain asked for before goes on.
    lifecycle.mode = withPaused(recovered(lifecycle.mode), store.reader.getMeta('queue_paused') !== null);
    if (opts.draining === true) lifecycle.mode = withDraining(lifecycle.mode);
    store.event(null, { type: 'supervisor_started', data: { pid: process.pid, active: active.length } });
    // One unit of work for the whole reconciliation: a thousand re-adopted
    // runs would otherwise be a thousand commits between start and ready.
    store.transaction(() => {
      for (const run of active) if (holdsSlot(run.status)) reconcile(this.h.reconciling, run);
    });
    // Runs waiting between attempts: their --timeout still runs out while they wait.
    for (const run of active) continuing.watch(run);
    // Dependents whose inputs ended while no supervisor watched go on (or are canceled) now.
    store.transaction(() => this.h.dependencies.recheck());
    // A shared limiter learns this journal's runs once it can be reached.
    if (slots.cluster) lifecycle.background(slots.cluster.start());
    retention.start();
    loops.start();
    store.emit({ kind: 'admit' });
  }

  /** The loops room (durable cron for a command): server.ts speaks to it directly. */
  get loops(): Loops {
    return this.h.loops;
  }

  /** The active runs a filter matches (kill --all/--status/-a/-w/--name GLOB). */
  select(f: { all?: boolean; status?: string; provider?: string; workload?: string; name?: string; after?: string }): Run[] {
    const input = f.after === undefined ? null : this.resolve(f.after).uuid;
    const glob =
      f.name === undefined
        ? null
        : new RegExp(
            '^' +
              f.name
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '.*')
                .replace(/\?/g, '.') +
              '$',
            's',
          );
    return [...this.h.store.active()]
      .filter(
        (r) =>
          (f.status === undefined || r.status === f.status) &&
          (f.provider === undefined || r.provider === f.provider) &&
          (f.workload === undefined || r.workload === f.workload) &&
          (glob === null || glob.test(r.name)) &&
          (input === null || (r.after ?? []).includes(input)),
      )
      .sort((a, b) => a.queue_seq - b.queue_seq);
  }

  /** `orcr rerun`: a new queued run with an ended run's spec, named `<name>-2`, `-3`, … (its maker's environment too). */
  rerun(uuid: string): Run {
    return this.h.queueing.rerun(uuid);
  }

  /** `orcr queue pause|resume`: journaled, so it outlives a restart. */
  setPaused(paused: boolean): { paused: boolean; queued: number } {
    const { store, lifecycle } = this.h;
    if (lifecycle.paused !== paused) {
      store.transaction(() => {
        store.setMeta('queue_paused', paused ? { at: monoNow() } : null);
        store.event(null, { type: paused ? 'queue_paused' : 'queue_resumed', data: {} });
        store.afterCommit(() => {
          lifecycle.mode = withPaused(lifecycle.mode, paused);
        });
      });
      store.emit({ kind: 'admit' });
    }
    return { paused: lifecycle.paused, queued: this.queuedCount() };
  }

  /**
   * `server stop --drain` (admit nothing more, wait for the running agents) or
   * `--kill-agents` (kill them first); resolves once no agent runs.
   */
  async drain(kill: boolean): Promise<void> {
    const { store, lifecycle, input } = this.h;
    lifecycle.mode = withDraining(lifecycle.mode);
    const running = (): Run[] => [...store.active()].filter((r) => holdsSlot(r.status));
    const killed = kill ? running().flatMap((r) => (r.pid !== null ? [{ pid: r.pid, start: r.pid_start }] : [])) : [];
    await new Promise<void>((resolve) => {
      const off = store.reader.onEvent((e) => {
        if (e.type === 'ended' && running().length === 0) {
          off();
          resolve();
        }
      });
      if (running().length === 0) {
        off();
        resolve();
        return;
      }
      if (kill)
        this.kill(
          running().map((r) => r.uuid),
          false,
        );
      // An idle interactive agent would wait for input that will not come: let it finish.
      else for (const r of running()) if (r.status === 'idle') input.close(r);
    });
    // A run ends when its agent's exit is read, its wrapper a moment before its own: the stop answers once they are gone.
    await processesGone(killed, 5_000);
  }

  /** Agents running now (slot holders). */
  runningCount(): number {
    return [...this.h.store.active()].filter((r) => holdsSlot(r.status)).length;
  }

  /** This home's queued runs: what a stop leaves for the next supervisor. */
  queuedCount(): number {
    return [...this.h.store.active()].filter((r) => r.status === 'queued').length;
  }

  /** `retention.ended` in ms, or null for "never". */
  retentionMs(): number | null {
    const keep = this.settings.config.retention.ended;
    return keep === 'never' ? null : keep;
  }

  /** `orcr gc`: ended runs older than that go (or, in a dry run, are counted). */
  gc(olderThanMs: number, dryRun: boolean): Promise<GcResult> {
    return this.h.retention.gc(olderThanMs, dryRun);
  }

  /** `orcr gc`'s worktree part: those of ended runs (dirty ones only with force; ones whose branch has commits only with branches). */
  gcWorktrees(opts: { force: boolean; branches: boolean; dryRun: boolean }): Promise<LetGo[]> {
    return this.h.worktrees.collect(opts);
  }

  pruneWorktrees(opts: { force: boolean; dryRun: boolean }): Promise<LetGo[]> {
    return this.h.worktrees.prune(opts);
  }

  finishWorktree(uuid: string, mode: FinishMode): ReturnType<Worktrees['finish']> {
    return this.h.worktrees.finish(uuid, mode);
  }

  diff(uuid: string, stat: boolean): ReturnType<Worktrees['diff']> {
    return this.h.worktrees.diff(uuid, stat);
  }

  /** An error off the request path. */
  private fail(e: unknown): void {
    if (e instanceof JournalUnavailable) this.degrade(e.message);
    else if ((e as Error)?.name === 'ClusterUnavailable' && this.h.slots.cluster) this.h.slots.cluster.down(e);
    else if (this.h.lifecycle.stopping) this.log(`while stopping: ${(e as Error)?.stack ?? String(e)}`);
    else
      // Anything else is a bug: the journal is the truth, so crash (serve.ts logs it) rather than run on.
      setImmediate(() => {
        throw e;
      });
  }

  /** Queue runs, all or none (queueing.ts); what a client should be told is pushed onto `warnings`. */
  enqueue(specs: RunSpec[], warnings: string[] = [], uuids?: readonly string[]): Run[] {
    return this.h.queueing.enqueue(specs, warnings, uuids);
  }

  /**
   * Kill runs: a queued or never-spawned one is canceled at once; a live one
   * is signalled and ends when it exits. Its active descendants go with it,
   * unless `keepChildren` (they then run on, still its children). What waits
   * for it (`run --after`) is canceled once it ends, unless `keepDependents`:
   * then it waits for its other inputs only.
   */
  kill(uuids: string[], force: boolean, keepChildren = false, keepDependents = false): Run[] {
    const { store, stops, dependencies } = this.h;
    const out: Run[] = [];
    for (const uuid of uuids) {
      const run = store.get(uuid);
      if (!run) {
        const ended = store.lookup(uuid);
        if (ended) out.push(ended);
        continue;
      }
      if (!keepChildren) stops.stopBelow(uuid, 'killed', null, force);
      if (keepDependents) store.transaction(() => dependencies.drop(uuid));
      stops.kill(uuid, force);
      out.push(store.lookup(uuid)!);
    }
    return out;
  }

  /**
   * `o` in the TUI: a person carries this run's session on in the agent's own
   * CLI. A working run is stopped when its turn ends (`now`: at once); any
   * other live one at once; an ended one is left as it is (its session can
   * still be resumed). Ends `taken_over`.
   */
  takeover(uuid: string, now: boolean): Run {
    const { store, stops, live } = this.h;
    const run = store.get(uuid);
    if (!run) {
      const ended = store.lookup(uuid);
      if (!ended) throw new RemoteError('not_found', `no run ${uuid}`);
      return ended;
    }
    if (run.status === 'queued') throw new RemoteError('usage', `${run.name} has not started: it has no session to take over`);
    if (run.status === 'working' && !now) {
      if (live.requestTakeover(uuid)) store.event(uuid, { type: 'takeover_requested', data: { at: 'turn_end' } });
      return run;
    }
    stops.stop(uuid, 'taken_over', now && run.status === 'working' ? 'stopped mid-turn' : null);
    return store.lookup(uuid)!;
  }

  /** The active runs below a run (what a kill of it also kills). */
  activeDescendants(uuid: string): Run[] {
    return this.h.tree.activeDescendants(uuid);
  }

  send(uuid: string, text: string): Run {
    return this.h.input.send(uuid, text);
  }

  /** `caller`: the waiting client's ORCR_RUN; a run waiting on its own descendants lends them its slot meanwhile (lending.ts). */
  wait(uuids: string[], timeoutMs: number | null, signal?: AbortSignal, caller?: string): Promise<Settled[]> {
    const giveBack = this.h.lending.forWait(caller, uuids);
    return this.h.waits.wait(uuids, timeoutMs, signal).finally(giveBack);
  }

  resumeProvider(provider: string): boolean {
    return this.h.fleet.resume(provider);
  }

  // ---------- reads ----------

  activeUuids(): string[] {
    return this.h.store.activeUuids();
  }

  /** `wait --all`'s runs for a client whose ORCR_RUN is `caller` (run-tree.ts). */
  waitAllTargets(caller: string | undefined): string[] {
    return this.h.tree.waitAllTargets(caller);
  }

  getLive(uuid: string): Run | null {
    return this.h.store.get(uuid) ?? null;
  }

  view(run: Run): PublicRun {
    return this.queries.view(run);
  }

  /** How many waits are open. */
  openWaits(): number {
    return this.h.waits.open;
  }

  /** Every queued run's queue_position, at once. */
  queuePositions(): Map<string, number> {
    return this.queries.positions();
  }

  resolve(ref: string): Run {
    return this.queries.resolve(ref);
  }

  stats(): Stats {
    return this.queries.stats();
  }

  eventNames(events: readonly RunEvent[]): Record<string, string> {
    return this.queries.eventNames(events);
  }

  spend(): SpendReply {
    return this.queries.spend();
  }

  get configError(): { at: number; message: string } | null {
    return this.queries.configError;
  }

  // ---------- config, degrade, stop ----------

  /** config.json as just read: noted (cluster status tells an edit that waits for a restart), and why it cannot be applied while running (a cluster change), or null. */
  readConfig(next: Config): string | null {
    this.settings.onDisk = next;
    return clusterEditProblem(this.settings.config.cluster, next.cluster);
  }

  /** Why config.json's "cluster" is not the one in force (an edit waiting for the next start), or null. */
  clusterPending(): string | null {
    return this.settings.clusterPending();
  }

  /** A config.json edit refused: the previous config stays in force, and the journal says why. */
  rejectConfig(message: string): void {
    this.queries.configError = { at: Date.now(), message };
    this.h.store.event(null, { type: 'config_rejected', data: { error: message } });
  }

  setConfig(cfg: Config): void {
    const { slots, fleet, store } = this.h;
    this.queries.configError = null;
    this.settings.config = cfg;
    this.notifier.setConfig(cfg.notify);
    slots.limiter.setPolicy(admissionPolicy(cfg));
    fleet.loadUsage();
    fleet.check();
    store.emit({ kind: 'admit' });
    store.event(null, { type: 'config_reloaded', data: { warnings: cfg.warnings } });
  }

  /** A journal that cannot be written, as thrown: degrade, and say it was absorbed; anything else is not. */
  absorbs(e: unknown): e is JournalUnavailable {
    if (!(e instanceof JournalUnavailable)) return false;
    this.degrade(e.message);
    return true;
  }

  /**
   * The journal cannot be written (disk full, read-only, I/O error). Fail
   * closed: let go of every process and timer, start nothing, and probe until
   * a write succeeds; then rebuild from the journal exactly as after a
   * restart, which re-adopts live agents and ends those that exited meanwhile.
   */
  degrade(reason: string): void {
    const { lifecycle, launching, store, slots } = this.h;
    if (!lifecycle.writes()) return;
    lifecycle.mode = degraded(lifecycle.mode, reason);
    this.log(`journal unavailable, not promoting until it can be written: ${reason}`);
    this.letGo();
    launching.invalidate();
    // Memory stays as the journal has it (it changes only after a commit): reads go on
    // telling what runs and waits — `wait --all` and `server status` among them.
    if (!slots.cluster) slots.limiter = new LocalLimiter(admissionPolicy(this.settings.config));
    this.probeTimer = setInterval(() => {
      try {
        store.setMeta('probe', monoNow());
      } catch {
        return;
      }
      clearInterval(this.probeTimer!);
      this.probeTimer = null;
      this.log('journal writable again: resuming');
      try {
        this.start();
      } catch (e) {
        if (e instanceof JournalUnavailable) this.degrade(e.message);
        else throw e;
      }
    }, 1000);
    this.probeTimer.unref();
  }

  /** Every watch, timer and helper let go; the journal untouched. */
  private letGo(): void {
    const { retention, loops, admission, fleet, live, continuing } = this.h;
    retention.stop();
    loops.stop();
    admission.stop();
    continuing.stop();
    fleet.stop();
    live.detachAll();
  }

  /** Stop supervising; agents keep running and are re-adopted by the next supervisor. */
  stop(): void {
    const { store, lifecycle, waits, launching, slots, live } = this.h;
    const wasDegraded = !lifecycle.writes();
    lifecycle.mode = STOPPING;
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.notifier.stop();
    waits.stopAll();
    launching.close();
    // Leases stay: the agents go on, and a supervisor back within lease_ttl keeps them.
    if (slots.cluster) lifecycle.background(slots.cluster.close());
    if (wasDegraded) {
      this.letGo();
      store.close();
      return;
    }
    // Persist read offsets so a successor does not re-read applied output.
    const watched = new Set(live.uuids());
    store.transaction(() => {
      for (const run of [...store.active()]) if (watched.has(run.uuid)) store.save(run, null);
    });
    this.letGo();
    store.close();
  }
}
