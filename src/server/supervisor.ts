// The supervisor: the single writer of orcr's state, as a facade over its
// rooms (parts.ts) — the run store, admission, launching, live runs and their
// progress, guards, input, fleet budget and holds, ending, waits, queries.
// It wires them, rebuilds them from the journal at start, and fails closed
// when the journal cannot be written. It holds no run state itself.

import type { ClusterState, FinishMode, GcResult, LetGo, Settled, SpendReply, Stats } from '../protocol/results.js';
import crypto from 'node:crypto';
import { admissionPolicy, type Config } from '../config/load.js';
import type { RunSpec } from '../config/run-spec.js';
import type { Home } from '../config/home.js';
import { holdsSlot } from '../core/run-state.js';
import { newRun } from '../core/run-record.js';
import type { Run } from '../core/types.js';
import type { RunEvent } from '../core/events.js';
import { Journal, JournalUnavailable } from '../journal/journal.js';
import { LocalLimiter } from '../limiter/local.js';
import { clusterEditProblem } from '../config/cluster-edit.js';
import { AdmissionLoop } from './admission-loop.js';
import { monoNow } from './clock.js';
import { Ending } from './ending.js';
import { Fleet } from './fleet.js';
import { Guards } from './guards.js';
import { Stalls } from './stalls.js';
import { Launching } from './launching.js';
import { Lending } from './lending.js';
import { LiveRuns } from './live-runs.js';
import { Loops } from './loops.js';
import { Notifier } from './notify.js';
import type { Parts } from './parts.js';
import { Progress } from './progress.js';
import { canEnqueue } from '../core/admission.js';
import { Queries } from './queries.js';
import { rebuild, reconcile, toWaiter } from './reconcile.js';
import { RemoteError } from '../protocol/errors.js';
import { RunInput } from './run-input.js';
import { Retention } from './retention.js';
import { Reads } from './reads.js';
import { RunStore } from './run-store.js';
import { RunTree } from './run-tree.js';
import { planRuns } from './spec-resolution.js';
import type { PublicRun } from '../protocol/views.js';
import { Waits } from './waits.js';
import { Worktrees } from './worktrees.js';

export type { RunSpec } from '../config/run-spec.js';

export class Supervisor {
  readonly journal: Journal;
  /** What clients read: runs as they stand, pages of runs and events, the snapshot (the handlers' and transport's only way in). */
  readonly reads: Reads;
  private readonly p: Parts;
  private readonly queries: Queries;
  private readonly notifier: Notifier;
  private probeTimer: NodeJS.Timeout | null = null;
  readonly startedAt = monoNow();

  constructor(home: Home, config: Config, log: (msg: string) => void = () => undefined) {
    // One clock for run and event times: wall time at start, advanced monotonically.
    this.journal = new Journal(home.db, { synchronous: config.journal.synchronous, now: monoNow });
    const store = new RunStore(this.journal);
    this.reads = new Reads(this.journal, (uuid) => store.get(uuid) ?? null);
    const p = {
      home,
      config,
      log,
      store,
      limiter: new LocalLimiter(admissionPolicy(config)),
      cluster: null,
      stopping: false,
      paused: false,
      draining: false,
      degraded: null,
      degrade: (reason: string) => this.degrade(reason),
      fail: (e: unknown) => this.fail(e),
      background: (work: Promise<unknown>) => void work.catch((e: unknown) => this.fail(e)),
    } as Partial<Parts> as Parts;
    Object.assign(p, {
      admission: new AdmissionLoop(p),
      launching: new Launching(p),
      live: new LiveRuns(p),
      progress: new Progress(p),
      guards: new Guards(p),
      stalls: new Stalls(p),
      input: new RunInput(p),
      fleet: new Fleet(p),
      ending: new Ending(p),
      waits: new Waits(p),
      retention: new Retention(p),
      tree: new RunTree(p),
      lending: new Lending(p),
      loops: new Loops(p),
    });
    Object.assign(p, { worktrees: new Worktrees(p) });
    this.p = p;
    this.queries = new Queries(p);
    // Told after each commit, like the clients; the journal outlives a degrade, so this is subscribed once.
    this.notifier = new Notifier({ log, view: (run) => this.queries.view(run), lookup: (uuid) => p.store.lookup(uuid) ?? null, now: Date.now });
    this.notifier.setConfig(config.notify);
    this.journal.onEvent((event, row) => this.notifier.onEvent(event, row));
  }

  /** Why the journal cannot be written, while it cannot. */
  get degraded(): string | null {
    return this.p.degraded;
  }

  /**
   * With config `cluster`: join it before start(). A refusal (caps differ, a
   * bad URL, credentials or privileges) is thrown; a database that is merely
   * away leaves this machine failed closed until it is back.
   */
  async joinCluster(): Promise<void> {
    const p = this.p;
    const cfg = p.config.cluster;
    if (!cfg) return;
    // Loaded only here: a machine on its own never loads the PostgreSQL driver.
    const { ClusterLink } = await import('./cluster-link.js');
    const link = new ClusterLink(p, cfg, admissionPolicy(p.config));
    await link.connect();
    p.cluster = link;
    p.limiter = link;
  }

  /** A run's row changed without an event (its last text or tool, its meters): for clients that show rows live. */
  onQuietChange(fn: (uuid: string) => void): void {
    this.p.store.onQuietSave(fn);
  }

  cluster(): ClusterState | null {
    return this.p.cluster?.state() ?? null;
  }

  async clusterMachines(): Promise<ClusterState['machines'] | null> {
    return this.p.cluster ? this.p.cluster.machines() : null;
  }

  /** `orcr cluster forget HOST`, or null when not in a cluster. */
  async forgetMachine(host: string): Promise<{ forgotten: boolean; alive: boolean } | null> {
    return this.p.cluster ? this.p.cluster.forget(host) : null;
  }

  /**
   * Rebuild memory from the journal and repair what changed while no
   * supervisor watched. `draining`: admit nothing from the start (a
   * supervisor started only to kill the agents left running).
   */
  start(opts: { draining?: boolean } = {}): void {
    const p = this.p;
    const active = rebuild(p);
    p.lending.clear();
    p.paused = this.journal.getMeta('queue_paused') !== null;
    // Kept through a rebuild after a degrade: a drain asked for before goes on.
    p.draining ||= opts.draining === true;
    this.journal.appendEvent(null, { type: 'supervisor_started', data: { pid: process.pid, active: active.length } });
    // One unit of work for the whole reconciliation: a thousand re-adopted
    // runs would otherwise be a thousand commits between start and ready.
    p.store.transaction(() => {
      for (const run of active) if (holdsSlot(run.status)) reconcile(p, run);
    });
    // A shared limiter learns this journal's runs once it can be reached.
    if (p.cluster) p.background(p.cluster.start());
    p.retention.start();
    p.loops.start();
    p.admission.schedule();
  }

  /** The loops room (durable cron for a command): server.ts speaks to it directly. */
  get loops(): Loops {
    return this.p.loops;
  }

  /** The active runs a filter matches (kill --all/--status/-a/-w/--name GLOB). */
  select(f: { all?: boolean; status?: string; provider?: string; workload?: string; name?: string }): Run[] {
    const glob = f.name === undefined ? null : new RegExp('^' + f.name.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$', 's');
    return [...this.p.store.active()]
      .filter((r) => (f.status === undefined || r.status === f.status) && (f.provider === undefined || r.provider === f.provider) && (f.workload === undefined || r.workload === f.workload) && (glob === null || glob.test(r.name)))
      .sort((a, b) => a.queue_seq - b.queue_seq);
  }

  /** `orcr rerun`: a new queued run with an ended run's spec, named `<name>-2`, `-3`, … (its maker's environment too). */
  rerun(uuid: string): Run {
    const p = this.p;
    const old = p.store.lookup(uuid);
    if (!old) throw new RemoteError('not_found', `no run ${uuid}`);
    if (old.status !== 'ended') throw new RemoteError('usage', `${old.name} is ${old.status}: rerun takes an ended run (kill it first)`);
    if (p.fleet.exceeded) throw new RemoteError('refused', 'the fleet budget is exceeded (budgets.fleet); nothing was queued');
    const base = old.name.replace(/-\d+$/, '');
    let n = 2;
    while (p.store.holderOfName(`${base}-${n}`) !== undefined || this.journal.runsByName(`${base}-${n}`).length > 0) n++;
    const now = monoNow();
    const env = this.journal.launchEnv(old.uuid);
    return p.store.transaction(() => {
      const run = newRun({
        uuid: crypto.randomUUID(),
        name: `${base}-${n}`,
        provider: old.provider,
        workload: old.workload,
        protocol: old.protocol,
        queue_seq: this.journal.nextQueueSeq(),
        command: old.command,
        cwd: old.cwd,
        env: old.env,
        prompt: old.prompt,
        promptArgv: old.prompt_argv === true,
        interactive: old.interactive,
        limits: old.limits,
        now,
      });
      p.store.insert(run, { type: 'queued', data: { name: run.name, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, rerun_of: old.uuid } }, now, env ? { ...env.env } : null);
      p.store.afterCommit(() => {
        p.background(p.limiter.enqueue({ ...toWaiter(run), name: run.name }));
        p.admission.schedule();
      });
      return run;
    });
  }

  /** `orcr queue pause|resume`: journaled, so it outlives a restart. */
  setPaused(paused: boolean): { paused: boolean; queued: number } {
    const p = this.p;
    if (p.paused !== paused) {
      p.store.transaction(() => {
        this.journal.setMeta('queue_paused', paused ? { at: monoNow() } : null);
        this.journal.appendEvent(null, { type: paused ? 'queue_paused' : 'queue_resumed', data: {} });
        p.store.afterCommit(() => {
          p.paused = paused;
        });
      });
      p.admission.schedule();
    }
    return { paused: p.paused, queued: [...p.store.active()].filter((r) => r.status === 'queued').length };
  }

  /**
   * `server stop --drain` (admit nothing more, wait for the running agents) or
   * `--kill-agents` (kill them first); resolves once no agent runs.
   */
  async drain(kill: boolean): Promise<void> {
    const p = this.p;
    p.draining = true;
    const running = (): Run[] => [...p.store.active()].filter((r) => holdsSlot(r.status));
    await new Promise<void>((resolve) => {
      const off = this.journal.onEvent((e) => {
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
      if (kill) this.kill(running().map((r) => r.uuid), false);
      // An idle interactive agent would wait for input that will not come: let it finish.
      else for (const r of running()) if (r.status === 'idle') p.input.close(r);
    });
  }

  /** Agents running now (slot holders). */
  runningCount(): number {
    return [...this.p.store.active()].filter((r) => holdsSlot(r.status)).length;
  }

  /** This home's queued runs: what a stop leaves for the next supervisor. */
  queuedCount(): number {
    return [...this.p.store.active()].filter((r) => r.status === 'queued').length;
  }

  /** `retention.ended` in ms, or null for "never". */
  retentionMs(): number | null {
    const keep = this.p.config.retention.ended;
    return keep === 'never' ? null : keep;
  }

  /** `orcr gc`: ended runs older than that go (or, in a dry run, are counted). */
  gc(olderThanMs: number, dryRun: boolean): Promise<GcResult> {
    return this.p.retention.gc(olderThanMs, dryRun);
  }

  /** `orcr gc`'s worktree part: those of ended runs (dirty ones only with force; ones whose branch has commits only with branches). */
  gcWorktrees(opts: { force: boolean; branches: boolean; dryRun: boolean }): Promise<LetGo[]> {
    return this.p.worktrees.collect(opts);
  }

  pruneWorktrees(opts: { force: boolean; dryRun: boolean }): Promise<LetGo[]> {
    return this.p.worktrees.prune(opts);
  }

  finishWorktree(uuid: string, mode: FinishMode): ReturnType<Worktrees['finish']> {
    return this.p.worktrees.finish(uuid, mode);
  }

  diff(uuid: string, stat: boolean): ReturnType<Worktrees['diff']> {
    return this.p.worktrees.diff(uuid, stat);
  }

  /** An error off the request path. */
  private fail(e: unknown): void {
    if (e instanceof JournalUnavailable) this.degrade(e.message);
    else if ((e as Error)?.name === 'ClusterUnavailable' && this.p.cluster) this.p.cluster.down(e);
    else if (this.p.stopping) this.p.log(`while stopping: ${(e as Error)?.stack ?? String(e)}`);
    else
      // Anything else is a bug: the journal is the truth, so crash (serve.ts logs it) rather than run on.
      setImmediate(() => {
        throw e;
      });
  }

  /**
   * Queue runs: all of them, or (one bad spec, a full queue, a spent fleet
   * budget, a parent ended or too deep) none. A spec whose maker ran inside a
   * run of this home (caller_env.ORCR_RUN) is that run's child unless it says
   * `detach`; what a client should be told is pushed onto `warnings`.
   */
  enqueue(specs: RunSpec[], warnings: string[] = []): Run[] {
    const p = this.p;
    const now = monoNow();
    if (p.fleet.exceeded) throw new RemoteError('refused', 'the fleet budget is exceeded (budgets.fleet); nothing was queued');
    const policy = admissionPolicy(p.config);
    if (!canEnqueue(policy, p.limiter.queued + specs.length - 1)) {
      throw new RemoteError('queue_full', `the queue is full (concurrency.max_queued = ${policy.max_queued}); nothing was queued`);
    }
    const plans = planRuns(p.config, specs, { holderOfName: (n) => p.store.holderOfName(n), isUuidPrefix: (t) => this.journal.runsByPrefix(t).length > 0 }, now, p.worktrees.dir);
    const told = new Set<string>();
    const lineage = specs.map((spec) => {
      const w: string[] = [];
      const l = p.tree.parentFor(spec.detach ? undefined : spec.caller_env?.ORCR_RUN, w);
      for (const m of w) {
        if (!told.has(m)) warnings.push(m);
        told.add(m);
      }
      return l;
    });
    const runs = p.store.transaction(() =>
      plans.map((plan, i) => {
        const run = { ...plan.make(this.journal.nextQueueSeq()), ...lineage[i]! };
        const tree = run.parent === null ? {} : { parent: run.parent, depth: run.depth };
        p.store.insert(run, { type: 'queued', data: { name: run.name, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, ...tree } }, now, plan.launchEnv);
        p.store.afterCommit(() => p.background(p.limiter.enqueue({ ...toWaiter(run), name: run.name })));
        return run;
      }),
    );
    p.admission.schedule();
    return runs;
  }

  /**
   * Kill runs: a queued or never-spawned one is canceled at once; a live one
   * is signalled and ends when it exits. Its active descendants go with it,
   * unless `keepChildren` (they then run on, still its children).
   */
  kill(uuids: string[], force: boolean, keepChildren = false): Run[] {
    const { store, guards, tree } = this.p;
    const out: Run[] = [];
    for (const uuid of uuids) {
      const run = store.get(uuid);
      if (!run) {
        const ended = store.lookup(uuid);
        if (ended) out.push(ended);
        continue;
      }
      if (!keepChildren) tree.endDescendants(uuid, 'killed', null, force);
      guards.kill(uuid, force);
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
    const { store, guards, live } = this.p;
    const run = store.get(uuid);
    if (!run) {
      const ended = store.lookup(uuid);
      if (!ended) throw new RemoteError('not_found', `no run ${uuid}`);
      return ended;
    }
    if (run.status === 'queued') throw new RemoteError('usage', `${run.name} has not started: it has no session to take over`);
    if (run.status === 'working' && !now) {
      const l = live.get(uuid);
      if (l && !l.takeoverAtTurnEnd) {
        l.takeoverAtTurnEnd = true;
        store.event(uuid, { type: 'takeover_requested', data: { at: 'turn_end' } });
      }
      return run;
    }
    guards.stopFor(uuid, 'taken_over', now && run.status === 'working' ? 'stopped mid-turn' : null);
    return store.lookup(uuid)!;
  }

  /** The active runs below a run (what a kill of it also kills). */
  activeDescendants(uuid: string): Run[] {
    return this.p.tree.activeDescendants(uuid);
  }

  send(uuid: string, text: string): Run {
    return this.p.input.send(uuid, text);
  }

  /** `caller`: the waiting client's ORCR_RUN; a run waiting on its own descendants lends them its slot meanwhile (lending.ts). */
  wait(uuids: string[], timeoutMs: number | null, signal?: AbortSignal, caller?: string): Promise<Settled[]> {
    const giveBack = this.p.lending.forWait(caller, uuids);
    return this.p.waits.wait(uuids, timeoutMs, signal).finally(giveBack);
  }

  resumeProvider(provider: string): boolean {
    return this.p.fleet.resume(provider);
  }

  // ---------- reads ----------

  activeUuids(): string[] {
    return this.p.store.activeUuids();
  }

  /** `wait --all`'s runs for a client whose ORCR_RUN is `caller` (run-tree.ts). */
  waitAllTargets(caller: string | undefined): string[] {
    return this.p.tree.waitAllTargets(caller);
  }

  getLive(uuid: string): Run | null {
    return this.p.store.get(uuid) ?? null;
  }

  view(run: Run): PublicRun {
    return this.queries.view(run);
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

  /** Why this config cannot be applied while running (a cluster change), or null. */
  refusalOf(next: Config): string | null {
    return clusterEditProblem(this.p.config.cluster, next.cluster);
  }

  /** A config.json edit refused: the previous config stays in force, and the journal says why. */
  rejectConfig(message: string): void {
    this.queries.configError = { at: Date.now(), message };
    this.journal.appendEvent(null, { type: 'config_rejected', data: { error: message } });
  }

  setConfig(cfg: Config): void {
    const p = this.p;
    this.queries.configError = null;
    p.config = cfg;
    this.notifier.setConfig(cfg.notify);
    p.limiter.setPolicy(admissionPolicy(cfg));
    p.fleet.loadUsage();
    p.fleet.check();
    p.admission.schedule();
    this.journal.appendEvent(null, { type: 'config_reloaded', data: { warnings: cfg.warnings } });
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
    const p = this.p;
    if (p.degraded !== null || p.stopping) return;
    p.degraded = reason;
    p.log(`journal unavailable, not promoting until it can be written: ${reason}`);
    this.letGo();
    p.launching.invalidate();
    p.store.clear();
    if (!p.cluster) p.limiter = new LocalLimiter(admissionPolicy(p.config));
    this.probeTimer = setInterval(() => {
      try {
        this.journal.setMeta('probe', monoNow());
      } catch {
        return;
      }
      clearInterval(this.probeTimer!);
      this.probeTimer = null;
      p.degraded = null;
      p.log('journal writable again: resuming');
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
    const p = this.p;
    p.retention.stop();
    p.loops.stop();
    p.admission.stop();
    p.fleet.stop();
    p.live.detachAll();
  }

  /** Stop supervising; agents keep running and are re-adopted by the next supervisor. */
  stop(): void {
    const p = this.p;
    p.stopping = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.notifier.stop();
    p.waits.stopAll();
    p.launching.close();
    // Leases stay: the agents go on, and a supervisor back within lease_ttl keeps them.
    if (p.cluster) p.background(p.cluster.close());
    if (p.degraded !== null) {
      this.letGo();
      this.journal.close();
      return;
    }
    // Persist read offsets so a successor does not re-read applied output.
    const watched = new Set(p.live.uuids());
    p.store.transaction(() => {
      for (const run of [...p.store.active()]) if (watched.has(run.uuid)) p.store.save(run, null);
    });
    this.letGo();
    this.journal.close();
  }
}
