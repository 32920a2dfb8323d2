// The supervisor: the single writer. It owns the in-memory projection of the
// journal (active runs, the queue), asks the pure core what to do, journals the
// decision, and only then takes the side effect.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { canEnqueue, capUsage, type Waiter } from '../core/admission.js';
import { AdmissionIndex } from '../core/admission-index.js';
import { exitReason, holdsSlot, transition, type ExitFacts } from '../core/run-state.js';
import { newRun } from '../core/run-record.js';
import { MAX_HOLD_MS } from '../core/run-progress.js';
import type { ExitReason, Protocol, Run, RunEvent } from '../core/types.js';
import {
  countedTokens,
  firstTrip,
  fleetMeters,
  mergeLimits,
  roundCost,
  roundFraction,
  runCost,
  runMeters,
  tripReason,
  type FleetBudget,
  type Meter,
} from '../core/budget.js';
import { initialLoopState, loopConfigFor, observeTurn, type LoopState, type TurnRecord } from '../core/loop.js';
import { admissionPolicy, type Config } from '../config/load.js';
import { BUILTIN_PROVIDERS, type ProviderPreset } from '../config/schema.js';
import { runDir, type Home } from '../config/home.js';
import { Journal, JournalUnavailable } from '../journal/journal.js';
import {
  checkLaunch,
  findWrapper,
  isWrapperOf,
  groupAlive,
  isOurProcess,
  LaunchError,
  prepareRunDirAsync,
  procStat,
  resolveProgram,
  readExitStatus,
  readRunStatus,
  signalGroup,
  signalRun,
  processStartTime,
  startWrapper,
  wrapperArgs,
  type LaunchSpec,
} from '../runtime/launcher.js';
import { SpawnHelper, SpawnHelperGone } from '../runtime/spawner.js';
import { setLongTimeout, type LongTimeout } from '../runtime/long-timer.js';
import { FifoWriter } from '../runtime/fifo-writer.js';
import { Tailer, type TailLine } from '../runtime/tailer.js';
import { acceptsInput, createAdapter, createDetectingAdapter, inputLine } from '../agents/index.js';
import type { ExtendedAdapter, ExtendedSignal } from '../agents/signals.js';
import { publicRun, type PublicRun } from './view.js';
import { RemoteError } from './protocol.js';
import type { RunSpec } from '../config/run-spec.js';

export type { RunSpec } from '../config/run-spec.js';

/** A run whose launch was checked and whose directory was made (or why not). */
interface Prepared {
  run: Run;
  spec: LaunchSpec;
  /** What the run's environment adds to the supervisor's (all the spawn helper needs). */
  extraEnv: Record<string, string>;
  /** The environment extraEnv adds to: the run's maker's, or null for ours. */
  base: { id: string; env: Readonly<Record<string, string>> } | null;
  program: string | null;
  error: string | null;
}

interface Outcome {
  run: Run;
  launched: { pid: number; pidStart: string | null; child: ChildProcess | null } | null;
  error: string | null;
}

interface Live {
  /** Our child when we started it ourselves: its exit event is the quickest news of the run's end. */
  child: ChildProcess | null;
  tailer: Tailer | null;
  /** The run directory, watched for output in `out` and the wrapper's `exit` line in `status`. */
  dirWatch: fs.FSWatcher | null;
  adapter: (ExtendedAdapter & { protocol?: () => Protocol | null }) | null;
  killTimer: LongTimeout | null;
  guardTimer: LongTimeout | null;
  stoppedFor: { reason: ExitReason; detail?: string | null } | null;
  lastResultOk: boolean | null;
  /** Why the agent's last result failed (`login`, `limit`, …), for the exit detail. */
  lastResultDetail: string | null;
  /** The agent's input FIFO: what was sent and not yet in the pipe, written as it drains. */
  input: FifoWriter | null;
  loop: LoopState;
  turn: TurnRecord;
  /** Monotonic ms at which the run started, for timeouts immune to clock jumps. */
  startedMono: number;
  finished: boolean;
  /** A loop warning to send once the agent is idle again. */
  pendingWarning: string | null;
}

interface Settled {
  uuid: string;
  name: string;
  token: string;
}

/** One `wait` call: its runs not settled yet, and those that are. */
interface Waiting {
  uuids: string[];
  minInput: Map<string, number>;
  pending: Set<string>;
  done: Map<string, Settled>;
  resolve: (settled: Settled[]) => void;
  timer: LongTimeout | null;
}

/**
 * The supervisor's clock: wall time at process start, advanced by the
 * monotonic clock. A system clock that jumps (NTP, a user) neither expires
 * nor extends queue waits, holds, guards or timeouts while this process runs.
 * Whole milliseconds: every time it stamps reaches users (JSON, events).
 */
const monoNow = (): number => Math.round(performance.timeOrigin + performance.now());

export class Supervisor {
  readonly journal: Journal;
  private readonly runs = new Map<string, Run>();
  /** Names of active runs (→ uuid): a new run may not take one. */
  private readonly activeByName = new Map<string, string>();
  /** Queued runs and slot holders, kept incrementally: a decision costs O(log classes), not O(queue). */
  private index: AdmissionIndex;
  private readonly live = new Map<string, Live>();
  private admitScheduled = false;
  private deadlineTimer: LongTimeout | null = null;
  private waits = new Set<Waiting>();
  private holds: Record<string, number> = {};
  private fleetUsage = { tokens: 0, cost: 0 };
  private fleetExceeded = false;
  private fleetWarned = new Set<string>();
  private fleetTimer: NodeJS.Timeout | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private stopping = false;
  /** Why the journal cannot be written, while it cannot: nothing is promoted or changed then. */
  degraded: string | null = null;
  /** Moves on each degrade: a launch begun before it must not start a run the rebuilt memory launches again. */
  private epoch = 0;
  /** Starts wrappers during bursts, so the fork is of a small process and off the event loop. */
  private readonly helper = new SpawnHelper();
  private lastLaunchAt = -Infinity;
  private probeTimer: NodeJS.Timeout | null = null;
  readonly startedAt = monoNow();

  constructor(
    readonly home: Home,
    private config: Config,
    private readonly log: (msg: string) => void = () => undefined,
  ) {
    this.journal = new Journal(home.db, { synchronous: config.journal.synchronous });
    this.index = new AdmissionIndex(admissionPolicy(config));
  }

  // ---------- start-up: rebuild and reconcile ----------

  /** Rebuild memory from the journal and repair what changed while no supervisor watched. */
  start(): void {
    this.holds = this.journal.getMeta<Record<string, number>>('holds') ?? {};
    this.index = new AdmissionIndex(admissionPolicy(this.config), this.holds);
    this.fleetExceeded = this.journal.getMeta('fleet_exceeded') !== null;
    this.loadFleetUsage();
    // A rolling window moves with the clock: re-read it each minute.
    this.fleetTimer = setInterval(() => {
      this.loadFleetUsage();
      this.checkFleet();
    }, 60_000);
    this.fleetTimer.unref();
    const active = this.journal.activeRuns();
    for (const run of active) {
      this.runs.set(run.uuid, run);
      this.activeByName.set(run.name, run.uuid);
      if (run.status === 'queued') this.index.enqueue(toWaiter(run));
      else if (holdsSlot(run.status)) this.index.acquire(run);
    }
    this.journal.appendEvent(null, { type: 'supervisor_started', data: { pid: process.pid, active: active.length } });
    // One transaction for the whole reconciliation: a thousand re-adopted runs
    // would otherwise be a thousand commits between start and ready.
    this.journal.transaction(() => {
      for (const run of active) if (holdsSlot(run.status)) this.reconcile(run);
    });
    this.scheduleAdmit();
  }

  private reconcile(run: Run): void {
    const dir = runDir(this.home, run.uuid);
    let pid = run.pid;
    // A crash right after a spawn can leave neither a journaled pid nor (for a
    // few instructions of the wrapper) a status file: look for the wrapper itself
    // before concluding that the run never started.
    if (pid === null) pid = readRunStatus(dir).pid ?? findWrapper(dir);
    if (pid !== null && isOurProcess(pid, run.pid === pid ? run.pid_start : null) && isWrapperOf(pid, dir)) {
      // Alive: re-adopt with its slot, reading output from the journaled offset.
      let adopted: Run = { ...run, pid };
      // For a run without a self-announcing protocol, being alive is being at work.
      if (adopted.status === 'starting' && (adopted.protocol === null || adopted.protocol === 'plain')) {
        adopted = transition(adopted, 'working', monoNow());
      }
      this.save(adopted, { type: 'adopted', data: { pid, status: adopted.status } });
      this.watch(this.runs.get(run.uuid)!, null);
      if (run.kill_requested_at !== null) this.signalKill(run.uuid, false);
      return;
    }
    const code = readExitStatus(dir);
    if (code !== null || pid !== null) {
      // Exited while we were away: apply the output we had not read, then end it.
      this.watch(run, null);
      this.finish(run.uuid, code, code === null);
      return;
    }
    // Promoted but never spawned (the crash fell between the two): start it now.
    this.spawn([run]);
  }

  // ---------- enqueue ----------

  resolveSpec(spec: RunSpec): { command: string[]; provider: string; protocol: Protocol | null; promptArgv: boolean } {
    // A config entry refines the built-in preset of the same name (e.g. adds a price), key by key.
    const presetFor = (name: string): ProviderPreset | undefined => {
      const builtin = Object.hasOwn(BUILTIN_PROVIDERS, name) ? BUILTIN_PROVIDERS[name] : undefined;
      const configured = Object.hasOwn(this.config.providers, name) ? this.config.providers[name] : undefined;
      return builtin || configured ? { ...builtin, ...configured } : undefined;
    };
    let command = spec.command && spec.command.length > 0 ? spec.command : null;
    let provider = spec.provider ?? null;
    let protocol: Protocol | null = spec.protocol ?? null;
    let promptArgv = false;
    if (!command) {
      if (!provider) throw new RemoteError('usage', 'nothing to run: give -a PROVIDER (a preset) or -- COMMAND ARGS...');
      const preset = presetFor(provider);
      if (!preset || !preset.command) {
        throw new RemoteError('usage', `no provider preset named "${provider}" (define providers.${provider}.command in config.json, or give -- COMMAND)`);
      }
      protocol = protocol ?? preset.protocol ?? null;
      // A preset's `{prompt}` puts the prompt in argv (the user's choice in
      // config.json); without one it goes to stdin: the first input line of an
      // agent that takes input, else the text followed by EOF. The command
      // keeps the placeholder: `ps`, `show` and events never show the prompt.
      promptArgv = preset.command.some((a) => a.includes('{prompt}'));
      const takesInput = preset.interactive_input === true || acceptsInput(protocol);
      if (spec.prompt === undefined && !(spec.interactive && takesInput && !promptArgv)) {
        throw new RemoteError('usage', `provider "${provider}" needs a prompt: give -p PROMPT (or -p @FILE, -p - for stdin)`);
      }
      command = preset.command;
    } else {
      const preset = provider ? presetFor(provider) : undefined;
      protocol = protocol ?? preset?.protocol ?? null;
      provider = provider ?? path.basename(command[0]!);
    }
    return { command, provider, protocol, promptArgv };
  }

  /**
   * A name is a reference users type (`kill NAME`): it must stay unambiguous.
   * Refused: one an active run holds (or an earlier spec of the same call),
   * and one that reads as a prefix of a run's uuid.
   */
  private checkName(name: string, taken: Set<string>): void {
    const shown = JSON.stringify(name);
    const holder = this.activeByName.get(name);
    if (taken.has(name) || holder !== undefined) {
      throw new RemoteError('usage', `the name ${shown} is taken by an active run${holder ? ` (${holder.slice(0, 8)})` : ''}; pick another, or kill that run first`);
    }
    if (/^[0-9a-f-]{4,}$/i.test(name) && this.journal.runsByPrefix(name).length > 0) {
      throw new RemoteError('usage', `the name ${shown} reads as the start of another run's uuid; pick a name that does not`);
    }
    taken.add(name);
  }

  /** What would fail at launch, refused at enqueue instead: a cwd that is not a directory, a program not found on the run's PATH. */
  private checkCommand(command: string[], cwd: string, env: NodeJS.ProcessEnv): void {
    let dir: fs.Stats;
    try {
      dir = fs.statSync(cwd);
    } catch (e) {
      throw new RemoteError('usage', `cwd ${cwd}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (e as Error).message}`);
    }
    if (!dir.isDirectory()) throw new RemoteError('usage', `cwd ${cwd}: not a directory`);
    try {
      resolveProgram(command[0]!, cwd, env.PATH);
    } catch (e) {
      if (e instanceof LaunchError) throw new RemoteError('usage', `cannot run ${JSON.stringify(command[0])}: ${e.message}`);
      throw e;
    }
  }

  enqueue(specs: RunSpec[]): Run[] {
    const now = monoNow();
    const policy = admissionPolicy(this.config);
    if (this.fleetExceeded) {
      throw new RemoteError('refused', 'the fleet budget is exceeded (budgets.fleet); nothing was queued');
    }
    if (!canEnqueue(policy, this.index.queued + specs.length - 1)) {
      throw new RemoteError('queue_full', `the queue is full (concurrency.max_queued = ${policy.max_queued}); nothing was queued`);
    }
    const names = new Set<string>();
    const prepared = specs.map((spec) => {
      const r = this.resolveSpec(spec);
      if (spec.name !== undefined) this.checkName(spec.name, names);
      this.checkCommand(r.command, spec.cwd, { ...(spec.caller_env ?? process.env), ...spec.env });
      const workload = spec.workload ?? this.config.concurrency.default_workload;
      const presetBudgets = this.config.providers[r.provider]?.budgets;
      const limits = mergeLimits(
        {
          max_turns: this.config.budgets.run.max_turns,
          max_tokens: this.config.budgets.run.max_tokens,
          max_cost_usd: this.config.budgets.run.max_cost_usd,
          timeout_ms: this.config.budgets.run.timeout,
          idle_after_ms: this.config.timings.idle_after,
          loop: this.config.loop.action,
        },
        presetBudgets
          ? {
              max_turns: presetBudgets.max_turns,
              max_tokens: presetBudgets.max_tokens,
              max_cost_usd: presetBudgets.max_cost_usd,
              timeout_ms: presetBudgets.timeout,
            }
          : {},
        {
          max_turns: spec.max_turns ?? null,
          max_tokens: spec.max_tokens ?? null,
          max_cost_usd: spec.max_cost_usd ?? null,
          timeout_ms: spec.timeout_ms ?? null,
          idle_after_ms: spec.idle_after_ms ?? null,
          ...(spec.loop ? { loop: spec.loop } : {}),
        },
      );
      if (limits.max_cost_usd !== null && r.protocol !== 'claude' && !this.config.providers[r.provider]?.price) {
        throw new RemoteError(
          'usage',
          `a cost ceiling needs a price for provider "${r.provider}" (providers.${r.provider}.price in config.json), or an agent that reports its own cost`,
        );
      }
      if (spec.interactive && r.protocol !== null && !acceptsInput(r.protocol)) {
        // codex exec / gemini -p take no input after their prompt, and with a
        // pipe on stdin they wait for its end before starting at all.
        throw new RemoteError('usage', `--interactive needs an agent that takes input (protocol claude or jsonl); ${r.protocol} runs are one-shot`);
      }
      return { spec, r, workload, limits };
    });
    this.scheduleAdmit();
    return this.journal.transaction(() =>
      prepared.map(({ spec, r, workload, limits }) => {
        const queue_seq = this.journal.nextQueueSeq();
        const run = newRun({
          uuid: crypto.randomUUID(),
          name: spec.name ?? `${r.provider}-${queue_seq}`,
          provider: r.provider,
          workload,
          protocol: r.protocol,
          queue_seq,
          command: r.command,
          cwd: spec.cwd,
          env: spec.env ?? {},
          prompt: spec.prompt ?? null,
          promptArgv: r.promptArgv,
          interactive: spec.interactive ?? false,
          limits,
          now,
        });
        this.journal.insertRun(
          run,
          { type: 'queued', data: { name: run.name, provider: run.provider, workload: run.workload, queue_seq } },
          now,
          spec.caller_env ?? null,
        );
        this.runs.set(run.uuid, run);
        this.activeByName.set(run.name, run.uuid);
        this.index.enqueue(toWaiter(run));
        return run;
      }),
    );
  }

  // ---------- admission ----------

  scheduleAdmit(): void {
    if (this.admitScheduled || this.stopping) return;
    this.admitScheduled = true;
    setImmediate(() => {
      this.admitScheduled = false;
      this.admit();
    });
  }

  admit(): void {
    if (this.stopping) return;
    const now = monoNow();
    this.liftHolds(now);
    const late = this.index.expired(now);
    if (late.length > 0) {
      this.journal.transaction(() => {
        for (const uuid of late) this.end(uuid, 'expired', 'max_wait', null);
      });
    }
    // The index moves the promoted runs to its holders; if the journal write
    // below fails, degrade() rebuilds the index from the journal.
    const promote = this.index.decide(now);
    if (promote.length > 0) {
      // Group commit: every promotion of this pass in one transaction, before any spawn.
      const starting = this.journal.transaction(() =>
        promote.map((uuid) => {
          const next = transition(this.runs.get(uuid)!, 'starting', now);
          this.save(next, { type: 'starting', data: { from: 'queued' } });
          return next;
        }),
      );
      this.spawn(starting);
    }
    this.armDeadline(now);
  }

  private armDeadline(now: number): void {
    this.deadlineTimer?.clear();
    this.deadlineTimer = null;
    const at = this.index.nextDeadline(now);
    if (at !== null) this.deadlineTimer = setLongTimeout(() => this.admit(), at - monoNow(), { unref: true });
  }

  // ---------- processes ----------

  /**
   * Launch runs already journaled as `starting`: check each, make the run
   * directories on the thread pool (all at once, beside the event loop), then
   * start the wrappers and record every outcome in one transaction.
   */
  private spawn(runs: Run[]): void {
    const checked = runs.map((run) => {
      // The environment of the client that made the run (else, for older runs, ours), then -e, then orcr's own.
      const base = this.journal.launchEnv(run.uuid);
      const extraEnv: Record<string, string> = { ...run.env, ORCR_RUN: run.uuid, ORCR_RUN_NAME: run.name, ORCR_HOME: this.home.dir };
      const spec: LaunchSpec = {
        dir: runDir(this.home, run.uuid),
        argv: run.prompt_argv === true ? run.command.map((a) => a.split('{prompt}').join(run.prompt ?? '')) : run.command,
        cwd: run.cwd,
        env: { ...(base?.env ?? process.env), ...extraEnv },
        stdinFifo: run.interactive || acceptsInput(run.protocol),
      };
      // A one-shot agent reads its prompt to EOF before it starts: from a file, not through the FIFO.
      const prompt = stdinPrompt(run);
      if (!spec.stdinFifo && prompt !== null) spec.promptFile = inputLine(run.protocol, prompt);
      try {
        return { run, spec, extraEnv, base, program: checkLaunch(spec), error: null as string | null };
      } catch (e) {
        return { run, spec, extraEnv, base, program: null, error: e instanceof LaunchError ? e.message : `spawn failed: ${(e as Error).message}` };
      }
    });
    // A burst — several launches at once, or one right after another — has the
    // spawn helper up for the launches that follow; launches far apart do not
    // keep a second process around (ORCR_SPAWN_HELPER=0: never).
    const now = monoNow();
    const burst = runs.length >= 2 || now - this.lastLaunchAt < 250;
    this.lastLaunchAt = now;
    if (burst && process.env.ORCR_SPAWN_HELPER !== '0') this.helper.warm();
    const epoch = this.epoch;
    void Promise.all(
      checked.map(async (c) => {
        if (c.program === null) return c;
        try {
          await prepareRunDirAsync(c.spec.dir, c.spec.promptFile ?? null);
          return c;
        } catch (e) {
          return { ...c, program: null, error: `run directory: ${(e as Error).message}` };
        }
      }),
    ).then(async (ready) => {
      // Stopped or rebuilt (degraded) meanwhile: the journal still says `starting`, and the next start launches them.
      const stale = (): boolean => this.stopping || this.degraded !== null || epoch !== this.epoch;
      if (stale()) return;
      const outcomes = await this.startWrappers(ready, stale);
      // Started but no longer ours to record: the wrappers' status files name them, and the next start re-adopts them.
      if (stale()) return;
      try {
        this.recordLaunches(outcomes);
      } catch (e) {
        if (e instanceof JournalUnavailable) this.degrade(e.message);
        else throw e;
      }
    });
  }

  /**
   * Start the wrappers of the runs still `starting`: through the spawn helper
   * when it is up, else directly; nothing once `stale` (stopping, degraded).
   */
  private async startWrappers(ready: Prepared[], stale: () => boolean): Promise<Outcome[]> {
    const outcomes = await Promise.all(
      ready.map(async ({ run: before, spec, extraEnv, base, program, error }): Promise<Outcome | null> => {
        // Killed while its directory was being made: it was ended as canceled then.
        const run = this.runs.get(before.uuid);
        if (run?.status !== 'starting') return null;
        if (program === null) return { run, launched: null, error };
        try {
          if (this.helper.up) {
            try {
              const pid = await this.helper.spawn('/bin/sh', wrapperArgs(spec, program), spec.cwd, extraEnv, base);
              return { run, launched: { pid, pidStart: processStartTime(pid), child: null }, error: null };
            } catch (e) {
              if (!(e instanceof SpawnHelperGone)) throw e;
              // The helper went away (closed when stopping or degrading, or it died): fail closed, or start it here.
              if (stale()) return null;
            }
          }
          return { run, launched: startWrapper(spec, program), error: null };
        } catch (e) {
          return { run, launched: null, error: e instanceof LaunchError ? e.message : `spawn failed: ${(e as Error).message}` };
        }
      }),
    );
    return outcomes.filter((o): o is Outcome => o !== null);
  }

  /** Record every launch outcome in one transaction, then follow the started runs. */
  private recordLaunches(all: Outcome[]): void {
    const outcomes = all.flatMap((o): Outcome[] => {
      const run = this.runs.get(o.run.uuid);
      if (run?.status === 'starting') return [{ ...o, run }];
      // Canceled while its wrapper was being started: it must not run on.
      if (o.launched) signalGroup(o.launched.pid, 'SIGKILL');
      return [];
    });
    const started = this.journal.transaction(() =>
      outcomes.flatMap(({ run, launched, error }) => {
        if (!launched) {
          this.end(run.uuid, 'failed', error, null);
          return [];
        }
        let next: Run = { ...run, pid: launched.pid, pid_start: launched.pidStart };
        if (awaitsFirstInput(next) && next.protocol !== 'jsonl') {
          // Nothing to do until the user sends something, and (claude, plain)
          // nothing will be said before that: it is ready once it runs.
          next = transition(next, 'idle', monoNow());
          this.save(next, { type: 'idle', data: { from: 'starting', pid: launched.pid, turn: 0 } });
        } else if (next.protocol === null || next.protocol === 'plain') {
          // Without a protocol that announces itself, being spawned is the only sign of life.
          next = transition(next, 'working', monoNow());
          this.save(next, { type: 'working', data: { from: 'starting', pid: launched.pid } });
        } else {
          this.save(next, { type: 'spawned', data: { pid: launched.pid } });
        }
        return [{ next, child: launched.child }];
      }),
    );
    for (const { next, child } of started) {
      this.watch(next, child);
      // An agent that takes input gets its prompt as its first input line (a one-shot one has it in its prompt file).
      const prompt = stdinPrompt(next);
      if (prompt !== null && (next.interactive || acceptsInput(next.protocol))) this.writeInput(next, prompt, false);
    }
  }

  private newLive(child: ChildProcess | null, run: Run): Live {
    return {
      child,
      tailer: null,
      dirWatch: null,
      adapter: null,
      killTimer: null,
      guardTimer: null,
      stoppedFor: null,
      lastResultOk: null,
      lastResultDetail: null,
      input: null,
      loop: initialLoopState(),
      turn: { tools: [], text: null },
      startedMono: run.started_at ?? monoNow(),
      finished: false,
      pendingWarning: null,
    };
  }

  /** Follow a spawned run: its output, its exit, its guards. */
  private watch(run: Run, child: ChildProcess | null): void {
    const dir = runDir(this.home, run.uuid);
    const live = this.newLive(child, run);
    this.live.set(run.uuid, live);
    live.adapter = run.protocol ? createAdapter(run.protocol, { modelTurns: true }) : createDetectingAdapter({ modelTurns: true });
    // No poll timer per tailer: the supervisor's one sweep re-reads them all.
    live.tailer = new Tailer(path.join(dir, 'out'), run.out_offset, (lines) => this.onLines(run.uuid, lines), 0);
    // One watch per run, on its directory: `out` grows (read it), and the
    // wrapper appends `exit N` to `status` when the agent ends — how the end
    // of a run we are not the parent of is heard at once. The sweep re-reads
    // and re-checks in case a notification is lost.
    try {
      live.dirWatch = fs.watch(dir, { persistent: false }, (_ev, name) => {
        if (name === 'out' || name === null) live.tailer?.read();
        if (name === 'status' || name === null) this.onStatus(run.uuid);
      });
      live.dirWatch.on('error', () => undefined);
    } catch {
      live.dirWatch = null;
    }
    live.tailer.start(false);
    if (child) child.on('exit', () => this.finish(run.uuid, readExitStatus(dir), false));
    this.armGuards(run.uuid);
    this.armSweep();
    // It may have ended before anything above was listening.
    if (child && (child.exitCode !== null || child.signalCode !== null)) this.finish(run.uuid, readExitStatus(dir), false);
    else this.onStatus(run.uuid);
  }

  private onStatus(uuid: string): void {
    const code = readExitStatus(runDir(this.home, uuid));
    if (code !== null) this.finish(uuid, code, false);
  }

  /** Stop listening to a run's files, process and timers (the run itself goes on). */
  private detachLive(live: Live): void {
    live.tailer?.close();
    live.dirWatch?.close();
    live.dirWatch = null;
    live.child?.removeAllListeners('exit');
    live.killTimer?.clear();
    live.guardTimer?.clear();
    live.input?.close();
  }

  /**
   * One timer for every run instead of two per run (a thousand re-adopted runs
   * cost a tenth of a core in timer callbacks): it notices a re-adopted run's
   * exit — only its parent hears of it otherwise — and, every fourth tick,
   * re-reads each output file in case a change notification was lost.
   */
  private armSweep(): void {
    if (this.sweepTimer) return;
    let tick = 0;
    this.sweepTimer = setInterval(() => {
      tick++;
      for (const [uuid, live] of [...this.live]) {
        if (tick % 4 === 0) live.tailer?.read();
        if (live.child === null) {
          const r = this.runs.get(uuid);
          if (r && r.pid !== null && !isOurProcess(r.pid, r.pid_start)) this.finish(uuid, readExitStatus(runDir(this.home, uuid)), false);
        }
      }
      if (this.live.size === 0 && this.sweepTimer) {
        clearInterval(this.sweepTimer);
        this.sweepTimer = null;
      }
    }, 250);
    this.sweepTimer.unref();
  }

  private armGuards(uuid: string): void {
    const live = this.live.get(uuid);
    const run = this.runs.get(uuid);
    if (!live || !run) return;
    live.guardTimer?.clear();
    live.guardTimer = null;
    const now = monoNow();
    let at: number | null = null;
    let why: { reason: ExitReason; detail: string } | null = null;
    if (run.status === 'starting') {
      at = (run.started_at ?? now) + this.config.timings.max_starting;
      why = { reason: 'failed', detail: 'stuck_start: no sign of life within timings.max_starting' };
    } else if (run.status === 'idle' && run.limits.idle_after_ms !== null) {
      at = run.status_at + run.limits.idle_after_ms;
      why = { reason: 'completed', detail: 'idle_reaped' };
    }
    if (run.limits.timeout_ms !== null && run.status !== 'starting') {
      const t = now + (run.limits.timeout_ms - (monoNow() - live.startedMono));
      if (at === null || t < at) {
        at = t;
        why = { reason: 'timeout', detail: null as unknown as string };
      }
    }
    if (at !== null && why) {
      const w = why;
      live.guardTimer = setLongTimeout(() => this.stopFor(uuid, w.reason, w.detail), at - now + 1, { unref: true });
    }
  }

  private onLines(uuid: string, lines: TailLine[]): void {
    const live = this.live.get(uuid);
    let run = this.runs.get(uuid);
    if (!live || !run || !live.adapter) return;
    const before = run;
    const events: { type: string; data: Record<string, unknown> }[] = [];
    for (const line of lines) {
      for (const sig of live.adapter.line(line.text)) run = this.applySignal(run, live, sig, events);
      run = { ...run, out_offset: line.end };
    }
    if (run.protocol === null && live.adapter.protocol) {
      const p = live.adapter.protocol();
      if (p) run = { ...run, protocol: p };
    }
    this.commitProgress(before, run, events);
  }

  private applySignal(run: Run, live: Live, sig: ExtendedSignal, events: { type: string; data: Record<string, unknown> }[]): Run {
    const now = monoNow();
    switch (sig.kind) {
      case 'alive': {
        let next = { ...run, session_id: sig.session_id ?? run.session_id };
        if (next.status === 'starting' && awaitsFirstInput(next)) {
          // Ready, and nothing was asked of it yet: it waits for input.
          next = transition(next, 'idle', now);
          events.push({ type: 'idle', data: { from: 'starting', turn: 0 } });
        } else if (next.status === 'starting') {
          next = transition(next, 'working', now);
          events.push({ type: 'working', data: { from: 'starting' } });
        }
        return next;
      }
      case 'turn_start':
        if (run.status === 'idle' || run.status === 'blocked' || run.status === 'starting') {
          events.push({ type: 'working', data: { from: run.status } });
          return transition(run, 'working', now);
        }
        return run;
      case 'model_turn':
        // One model message: the unit the loop detector counts.
        return this.observeLoop(run, live, events);
      case 'turn_end': {
        // Whatever the last model_turn did not cover (nothing, for adapters that emit them).
        let next = { ...this.observeLoop(run, live, events), turns: run.turns + 1 };
        if (next.status === 'blocked' && next.blocked_kind === 'login' && next.interactive) {
          // The turn ended on a refused login: nothing will change until the
          // user logs in, so the run stays blocked (not idle) while the agent lives.
          return next;
        }
        if (next.status !== 'ended' && next.status !== 'idle') {
          if (next.interactive && !live.stoppedFor && !this.fleetExceeded) {
            next = transition(next, 'idle', now);
            events.push({ type: 'idle', data: { from: run.status, turn: next.turns } });
          } else {
            // One-shot: the turn is done, so close the agent's input and let it exit.
            this.closeInput(next);
          }
        }
        return next;
      }
      case 'usage':
        return {
          ...this.resumeFromBlocked(run, events, now),
          tokens: {
            input: run.tokens.input + sig.input,
            output: run.tokens.output + sig.output,
            cached: run.tokens.cached + sig.cached,
          },
          cost_reported: sig.cost_usd_total ?? run.cost_reported,
        };
      case 'tool':
        live.turn.tools.push({ name: sig.name, input: sig.input });
        return { ...this.resumeFromBlocked(run, events, now), last_tool: sig.name };
      case 'text':
        live.turn.text = sig.text;
        return { ...this.resumeFromBlocked(run, events, now), last_text: sig.text.slice(0, 500) };
      case 'result':
        live.lastResultOk = sig.ok;
        live.lastResultDetail = sig.ok ? null : (sig.detail ?? null);
        // A result's text is the agent's last word (as foldSignals has it): on a
        // failure it is the only place the reason is given (Gemini, Codex).
        return sig.text ? { ...run, last_text: sig.text.slice(0, 500) } : run;
      case 'blocked':
        if (sig.blocked === 'limit') this.holdProvider(run.provider, sig.retry_after_s ?? null, run.uuid, now, events);
        if (run.status === 'ended' || run.status === 'blocked') return run;
        events.push({ type: 'blocked', data: { from: run.status, kind: sig.blocked, retry_after_s: sig.retry_after_s ?? null } });
        return transition(run, 'blocked', now, { blocked_kind: sig.blocked });
      case 'output':
        if (run.status === 'starting' && (run.protocol === 'plain' || run.protocol === null)) {
          events.push({ type: 'working', data: { from: 'starting' } });
          return transition(run, 'working', now);
        }
        return run;
    }
  }

  /** Feed the model output since the last boundary to the loop detector, and act on its verdict. */
  private observeLoop(run: Run, live: Live, events: { type: string; data: Record<string, unknown> }[]): Run {
    const effect = observeTurn(live.loop, live.turn, loopConfigFor(run.limits.loop));
    live.loop = effect.state;
    live.turn = { tools: [], text: null };
    const next = { ...run, loop_flags: { detected: effect.state.detected, warned: effect.state.warned, repetitions: effect.state.repetitions } };
    if (effect.effect.kind !== 'none') {
      events.push({ type: 'loop_detected', data: { by: effect.effect.by, action: effect.effect.kind } });
      if (effect.effect.kind === 'terminate') live.stoppedFor = { reason: 'loop', detail: effect.effect.by };
    }
    if (effect.effect.kind === 'warn' && next.interactive && acceptsInput(next.protocol)) live.pendingWarning = effect.effect.message;
    return next;
  }

  /** Activity after a block means the agent got past it (e.g. a retried rate limit). */
  private resumeFromBlocked(run: Run, events: { type: string; data: Record<string, unknown> }[], now: number): Run {
    if (run.status !== 'blocked') return run;
    events.push({ type: 'working', data: { from: 'blocked' } });
    return transition(run, 'working', now);
  }

  private commitProgress(before: Run, run: Run, events: { type: string; data: Record<string, unknown> }[]): void {
    const price = this.config.providers[run.provider]?.price ?? null;
    const cost = runCost(run.cost_reported, run.tokens, price) ?? 0;
    if (cost !== run.cost_usd) run = { ...run, cost_usd: cost };
    const dTokens = countedTokens(run.tokens) - countedTokens(before.tokens);
    const dCost = run.cost_usd - before.cost_usd;
    const meters = runMeters(
      { turns: run.turns, tokens: run.tokens, cost_usd: run.cost_usd, elapsed_ms: 0 },
      { ...run.limits, timeout_ms: null },
    );
    for (const m of meters) {
      if (m.warn && !m.tripped && !run.warned_meters.includes(m.name)) {
        run = { ...run, warned_meters: [...run.warned_meters, m.name] };
        events.push({ type: 'budget_warning', data: { meter: m.name, used: m.used, limit: m.limit, fraction: roundFraction(m.fraction) } });
      }
    }
    const changed =
      run.tokens.input !== before.tokens.input ||
      run.tokens.output !== before.tokens.output ||
      run.tokens.cached !== before.tokens.cached ||
      run.cost_usd !== before.cost_usd ||
      run.turns !== before.turns;
    this.journal.transaction(() => {
      if (dTokens !== 0 || dCost !== 0) {
        this.journal.addUsage(monoNow(), dTokens, dCost);
        this.fleetUsage.tokens += dTokens;
        this.fleetUsage.cost += dCost;
      }
      if (events.length === 0 && changed) {
        this.save(run, { type: 'usage', data: { turns: run.turns, tokens: run.tokens, cost_usd: run.cost_usd } });
      } else if (events.length === 0) {
        // Only the offset moved: keep it in memory; it is written with the next change.
        this.runs.set(run.uuid, run);
      } else {
        events.forEach((e, i) => {
          if (i === events.length - 1) this.save(run, e);
          else this.journal.appendEvent(run.uuid, e);
        });
      }
    });
    if (run.status !== before.status) this.armGuards(run.uuid);
    const live = this.live.get(run.uuid);
    const trip = firstTrip(meters);
    if (trip && live && !live.stoppedFor) this.stopFor(run.uuid, tripReason(trip), trip.name);
    else if (live?.stoppedFor && live.killTimer === null) this.stopFor(run.uuid, live.stoppedFor.reason, live.stoppedFor.detail ?? null);
    if (holdsSlot(before.status) !== holdsSlot(run.status)) this.scheduleAdmit();
    if (dTokens !== 0 || dCost !== 0) this.checkFleet();
    if (live?.pendingWarning && run.status === 'idle' && !live.stoppedFor) {
      const message = live.pendingWarning;
      live.pendingWarning = null;
      this.send(run.uuid, message);
    }
    this.settleWaits(run.uuid);
  }

  // ---------- fleet budget and provider holds ----------

  private fleetBudget(): FleetBudget {
    const f = this.config.budgets.fleet;
    return { max_tokens: f.max_tokens, max_cost_usd: f.max_cost_usd, window: f.window };
  }

  /** Re-read fleet usage for the current window from the journal (at start, on config change, each minute). */
  private loadFleetUsage(): void {
    const w = this.config.budgets.fleet.window;
    this.fleetUsage = this.journal.usageSince(w === 'all' ? 0 : monoNow() - w.rolling_ms);
  }

  private fleetMetersNow(): Meter[] {
    return fleetMeters({ tokens: this.fleetUsage.tokens, cost_usd: this.fleetUsage.cost }, this.fleetBudget());
  }

  private checkFleet(): void {
    const meters = this.fleetMetersNow();
    const trip = firstTrip(meters);
    for (const m of meters) {
      if (m.warn && !m.tripped && !this.fleetWarned.has(m.name)) {
        this.fleetWarned.add(m.name);
        this.journal.appendEvent(null, { type: 'budget_warning', data: { scope: 'fleet', meter: m.name, used: roundCost(m.used), limit: m.limit, fraction: roundFraction(m.fraction) } });
      }
    }
    if (trip && !this.fleetExceeded) {
      this.fleetExceeded = true;
      this.journal.transaction(() => {
        this.journal.setMeta('fleet_exceeded', { at: monoNow(), meter: trip.name });
        this.journal.appendEvent(null, { type: 'budget_exceeded', data: { scope: 'fleet', meter: trip.name, used: roundCost(trip.used), limit: trip.limit } });
        // Nothing new starts; queued runs are canceled; in-flight runs finish their turn.
        for (const w of this.index.waiting()) this.end(w.uuid, 'canceled', 'fleet_budget', null);
      });
      for (const run of this.runs.values()) if (run.status === 'idle') this.closeInput(run);
    } else if (!trip && this.fleetExceeded) {
      this.fleetExceeded = false;
      this.fleetWarned.clear();
      this.journal.setMeta('fleet_exceeded', null);
      this.journal.appendEvent(null, { type: 'budget_reset', data: { scope: 'fleet' } });
    }
  }

  private holdProvider(provider: string, retryAfterS: number | null, uuid: string, now: number, events: { type: string; data: Record<string, unknown> }[]): void {
    const until = now + (retryAfterS !== null && retryAfterS > 0 ? Math.min(Math.round(retryAfterS * 1000), MAX_HOLD_MS) : this.config.timings.limit_hold);
    if (Object.hasOwn(this.holds, provider) && this.holds[provider]! >= until) return;
    this.journal.setMeta('holds', { ...this.holds, [provider]: until });
    this.holds = { ...this.holds, [provider]: until };
    this.index.setHolds(this.holds);
    events.push({ type: 'hold', data: { provider, until, retry_after_s: retryAfterS, by: uuid } });
    this.scheduleAdmit();
  }

  /** Lift holds whose time has come (and, with `provider`, one hold early). */
  private liftHolds(now: number, provider?: string): boolean {
    let lifted = false;
    for (const [p, until] of Object.entries(this.holds)) {
      if (until <= now || p === provider) {
        const { [p]: _, ...rest } = this.holds;
        this.holds = rest;
        this.journal.appendEvent(null, { type: 'hold_lifted', data: { provider: p, early: until > now } });
        lifted = true;
      }
    }
    if (lifted) {
      this.journal.setMeta('holds', Object.keys(this.holds).length ? this.holds : null);
      this.index.setHolds(this.holds);
    }
    return lifted;
  }

  resumeProvider(provider: string): boolean {
    if (!Object.hasOwn(this.holds, provider)) return false;
    this.liftHolds(monoNow(), provider);
    this.scheduleAdmit();
    return true;
  }

  /** The wrapper exited (or was found gone): end the run with the right reason. */
  private finish(uuid: string, code: number | null, vanished: boolean): void {
    const live = this.live.get(uuid);
    const run = this.runs.get(uuid);
    if (!run || run.status === 'ended' || (live && live.finished)) return;
    if (live) {
      live.finished = true;
      // Read the last lines before deciding: a result line may change the verdict.
      live.tailer?.read();
      const tail = live.tailer?.flushPartial();
      if (tail) this.onLines(uuid, [tail]);
      const end = live.adapter?.end?.() ?? [];
      if (end.length > 0) {
        const r = this.runs.get(uuid)!;
        const events: { type: string; data: Record<string, unknown> }[] = [];
        let next = r;
        for (const s of end) next = this.applySignal(next, live, s, events);
        this.commitProgress(r, next, events);
      }
      this.cleanupLive(uuid);
    }
    const current = this.runs.get(uuid)!;
    if (current.status === 'ended') return;
    // Leftovers in the group go; a run that was stopped also loses whatever it
    // started outside the group (tools in their own sessions). That needs a
    // scan of /proc, too dear for every normal exit.
    if (current.pid !== null) {
      if (current.kill_requested_at !== null || live?.stoppedFor) signalRun(uuid, current.pid, 'SIGKILL');
      else if (groupAlive(current.pid)) signalGroup(current.pid, 'SIGKILL');
    }
    const facts: ExitFacts = {
      code,
      killRequested: current.kill_requested_at !== null,
      stoppedFor: live?.stoppedFor ?? undefined,
      lastResultOk: live?.lastResultOk ?? null,
      lastResultDetail: current.status === 'blocked' && current.blocked_kind === 'login' ? 'login' : (live?.lastResultDetail ?? null),
      vanished: vanished && code === null,
    };
    const { reason, detail } = exitReason(current, facts);
    this.end(uuid, reason, detail, code);
  }

  private cleanupLive(uuid: string): void {
    const live = this.live.get(uuid);
    if (!live) return;
    this.detachLive(live);
    this.live.delete(uuid);
  }

  /** End a run (any status) and free what it held. */
  private end(uuid: string, reason: ExitReason, detail: string | null, code: number | null): void {
    const run = this.runs.get(uuid);
    if (!run || run.status === 'ended') return;
    const from = run.status;
    const next = transition(run, 'ended', monoNow(), { exit_reason: reason, exit_detail: detail, exit_code: code });
    this.save(next, { type: 'ended', data: { from, reason, detail, exit_code: code } });
    this.runs.delete(uuid);
    if (this.activeByName.get(run.name) === uuid) this.activeByName.delete(run.name);
    if (from === 'queued') this.index.remove(uuid);
    else this.index.release(uuid);
    this.cleanupLive(uuid);
    this.scheduleAdmit();
    this.settleWaits(uuid);
  }

  /** Journal first, memory second: a write that fails leaves memory as the journal has it. */
  private save(run: Run, ev: { type: string; data: Record<string, unknown> } | null): void {
    this.journal.updateRun(run, ev);
    this.runs.set(run.uuid, run);
  }

  // ---------- kill, stop, input ----------

  kill(uuids: string[], force: boolean): Run[] {
    const out: Run[] = [];
    for (const uuid of uuids) {
      const run = this.runs.get(uuid);
      if (!run) {
        const ended = this.journal.getRun(uuid);
        if (ended) out.push(ended);
        continue;
      }
      if (run.status === 'queued') {
        this.end(uuid, 'canceled', null, null);
      } else if (run.pid === null) {
        this.end(uuid, 'canceled', 'never spawned', null);
      } else {
        if (run.kill_requested_at === null) {
          this.save({ ...run, kill_requested_at: monoNow() }, { type: 'kill_requested', data: { force } });
        }
        this.signalKill(uuid, force);
      }
      out.push(this.runs.get(uuid) ?? this.journal.getRun(uuid)!);
    }
    return out;
  }

  /** TERM the process group now, KILL it after the grace period. */
  private signalKill(uuid: string, force: boolean): void {
    const run = this.runs.get(uuid);
    const live = this.live.get(uuid);
    if (!run || run.pid === null) return;
    signalRun(uuid, run.pid, force ? 'SIGKILL' : 'SIGTERM');
    if (live && !force && live.killTimer === null) {
      live.killTimer = setLongTimeout(() => signalRun(uuid, run.pid!, 'SIGKILL'), this.config.timings.kill_grace, { unref: true });
    }
  }

  /** A guardrail ends a run: remember why, then kill it. */
  private stopFor(uuid: string, reason: ExitReason, detail: string | null): void {
    const live = this.live.get(uuid);
    const run = this.runs.get(uuid);
    if (!run || run.status === 'ended') return;
    if (live) live.stoppedFor = { reason, detail };
    if (run.pid === null) {
      this.end(uuid, reason, detail, null);
      return;
    }
    this.journal.appendEvent(uuid, { type: 'stop_requested', data: { reason, detail } });
    this.signalKill(uuid, false);
  }

  send(uuid: string, text: string): Run {
    const run = this.runs.get(uuid);
    if (!run) throw new RemoteError('not_idle', 'the run has ended; it takes no input');
    if (run.status !== 'idle') {
      throw new RemoteError('not_idle', `the run is ${run.status}, not idle: input goes only to an idle run`);
    }
    if (this.fleetExceeded) throw new RemoteError('refused', 'the fleet budget is exceeded (budgets.fleet): no new turns');
    const next = transition(run, 'working', monoNow(), { input_seq: run.input_seq + 1 });
    this.save(next, { type: 'working', data: { from: 'idle', input_seq: next.input_seq } });
    this.writeInput(next, text, true);
    this.armGuards(uuid);
    return next;
  }

  private writeInput(run: Run, text: string, sent: boolean): void {
    const live = this.live.get(run.uuid);
    const line = inputLine(run.protocol, text);
    if (sent) this.journal.appendEvent(run.uuid, { type: 'input_sent', data: { input_seq: run.input_seq, bytes: Buffer.byteLength(line) } });
    if (!live) return;
    // Until the wrapper has made and opened the FIFO the writer retries; past
    // the pipe's 64 KiB it writes the rest as the agent reads.
    live.input ??= new FifoWriter(path.join(runDir(this.home, run.uuid), 'in'), {
      onError: (e) => {
        try {
          this.journal.appendEvent(run.uuid, { type: 'input_failed', data: { error: e.message } });
        } catch (err) {
          if (err instanceof JournalUnavailable) this.degrade(err.message);
          else throw err;
        }
      },
    });
    live.input.write(line);
  }

  /** Ask the wrapper to close the agent's stdin (EOF), ending a one-shot agent. */
  private closeInput(run: Run): void {
    if (run.pid !== null) {
      try {
        process.kill(run.pid, 'SIGUSR1');
      } catch {
        /* already gone */
      }
    }
  }

  // ---------- wait ----------

  private settleToken(run: Run, minInput: number): string | null {
    if (run.status === 'ended') return run.exit_reason ?? 'ended';
    if (run.input_seq < minInput) return null;
    if (run.status === 'idle') return 'turn_complete';
    if (run.status === 'blocked') return 'blocked';
    return null;
  }

  wait(uuids: string[], timeoutMs: number | null): Promise<Settled[]> {
    // Nothing to wait for (`wait --all` on an idle fleet): settled at once.
    if (uuids.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const minInput = new Map<string, number>();
      for (const u of uuids) minInput.set(u, this.runs.get(u)?.input_seq ?? 0);
      const w: Waiting = { uuids, minInput, pending: new Set(uuids), done: new Map(), resolve, timer: null };
      this.waits.add(w);
      if (timeoutMs !== null) {
        w.timer = setLongTimeout(() => {
          this.waits.delete(w);
          resolve(uuids.map((u) => w.done.get(u) ?? { uuid: u, name: this.nameOf(u), token: 'pending' }));
        }, timeoutMs);
      }
      for (const u of uuids) this.settleWait(w, u);
    });
  }

  private nameOf(uuid: string): string {
    return (this.runs.get(uuid) ?? this.journal.getRun(uuid))?.name ?? uuid;
  }

  private settled(uuid: string, minInput: number): Settled | null {
    const run = this.runs.get(uuid) ?? this.journal.getRun(uuid);
    if (!run) return { uuid, name: uuid, token: 'not_found' };
    const token = this.settleToken(run, minInput);
    return token ? { uuid, name: run.name, token } : null;
  }

  /**
   * A run changed: settle it in every wait that still expects it. Only that
   * run is looked at — with `wait --all` over a thousand runs, re-checking
   * them all on every change made a fleet's drain quadratic.
   */
  private settleWaits(uuid: string): void {
    for (const w of this.waits) if (w.pending.has(uuid)) this.settleWait(w, uuid);
  }

  private settleWait(w: Waiting, uuid: string): void {
    if (!w.pending.has(uuid)) return;
    const s = this.settled(uuid, w.minInput.get(uuid)!);
    if (!s) return;
    w.pending.delete(uuid);
    w.done.set(uuid, s);
    if (w.pending.size === 0) {
      this.waits.delete(w);
      w.timer?.clear();
      w.resolve(w.uuids.map((u) => w.done.get(u)!));
    }
  }

  // ---------- reads ----------

  activeUuids(): string[] {
    return [...this.runs.keys()];
  }

  getLive(uuid: string): Run | null {
    return this.runs.get(uuid) ?? null;
  }

  view(run: Run): PublicRun {
    // Admission order (priority, then first come): where the run really stands.
    const position = run.status === 'queued' ? this.index.queuePosition(run.uuid) : null;
    const elapsed = run.started_at === null ? 0 : (run.ended_at ?? monoNow()) - run.started_at;
    const meters = runMeters({ turns: run.turns, tokens: run.tokens, cost_usd: run.cost_usd, elapsed_ms: elapsed }, run.limits);
    const budget: PublicRun['budget'] = {};
    for (const m of meters) budget[m.name] = { used: m.name === 'cost_usd' ? roundCost(m.used) : m.used, limit: m.limit, fraction: roundFraction(m.fraction), warn: m.warn };
    const held = this.holds[run.provider];
    let waiting = run.status === 'queued' ? this.index.waitingFor(run.uuid, monoNow(), this.fleetExceeded) : null;
    if (run.status === 'queued' && this.degraded !== null) {
      waiting = { reason: 'unavailable', name: null, active: null, limit: null, reserved: null, until: null, position };
    }
    return publicRun(run, {
      waiting,
      queuePosition: position,
      budget,
      heldUntil: held !== undefined && held > monoNow() && run.status !== 'ended' ? held : null,
      loop: run.loop_flags ?? undefined,
    });
  }

  /** Resolve a user's reference: uuid, unique uuid prefix, or name. */
  resolve(ref: string): Run {
    if (this.runs.has(ref)) return this.runs.get(ref)!;
    const exact = this.journal.getRun(ref);
    if (exact) return exact;
    const byName = this.journal.runsByName(ref);
    if (byName.length > 0) {
      const active = byName.filter((r) => r.status !== 'ended');
      if (active.length > 1) throw new RemoteError('ambiguous', `"${ref}" names ${active.length} active runs; use a uuid`);
      const r = active[0] ?? byName[0]!;
      return this.runs.get(r.uuid) ?? r;
    }
    if (/^[0-9a-f-]{4,}$/i.test(ref)) {
      const byPrefix = this.journal.runsByPrefix(ref);
      if (byPrefix.length > 1) throw new RemoteError('ambiguous', `"${ref}" matches several runs; give more of the uuid`);
      if (byPrefix.length === 1) return this.runs.get(byPrefix[0]!.uuid) ?? byPrefix[0]!;
    }
    throw new RemoteError('not_found', `no run "${ref}"`);
  }

  stats(): {
    caps: ReturnType<typeof capUsage>;
    names: Record<string, string>;
    queued: number;
    active: number;
    holds: Record<string, number>;
    fleet: { exceeded: boolean; window: string; meters: Record<string, { used: number; limit: number | null; fraction: number | null; warn: boolean }> };
    warnings: string[];
    config_error: { at: number; message: string } | null;
  } {
    const input = this.index.snapshot(monoNow());
    const meters: Record<string, { used: number; limit: number | null; fraction: number | null; warn: boolean }> = {};
    for (const m of this.fleetMetersNow()) meters[m.name] = { used: roundCost(m.used), limit: m.limit, fraction: roundFraction(m.fraction), warn: m.warn };
    const w = this.config.budgets.fleet.window;
    // Names of the runs the caps list (holders and the first waiters), so a reader need not look each up.
    const names: Record<string, string> = {};
    const caps = capUsage(input);
    for (const c of caps) for (const u of [...c.holders, ...c.waiting]) names[u] ??= this.runs.get(u)?.name ?? u;
    return {
      caps,
      names,
      queued: this.index.queued,
      active: this.index.active,
      holds: { ...this.holds },
      fleet: { exceeded: this.fleetExceeded, window: w === 'all' ? 'all' : `${w.rolling_ms}ms`, meters },
      warnings: [...this.config.warnings],
      config_error: this.configError,
    };
  }

  /** The last config.json edit that was refused (the previous config stays in force), until a good one loads. */
  configError: { at: number; message: string } | null = null;

  rejectConfig(message: string): void {
    this.configError = { at: Date.now(), message };
  }

  setConfig(cfg: Config): void {
    this.configError = null;
    this.config = cfg;
    this.index.setPolicy(admissionPolicy(cfg));
    this.loadFleetUsage();
    this.checkFleet();
    this.scheduleAdmit();
  }

  /**
   * The journal cannot be written (disk full, read-only, I/O error). Fail
   * closed: forget the in-memory projection, start nothing, and probe until a
   * write succeeds; then rebuild from the journal exactly as after a restart,
   * which re-adopts live agents and ends those that exited meanwhile.
   */
  degrade(reason: string): void {
    if (this.degraded !== null || this.stopping) return;
    this.degraded = reason;
    this.epoch++;
    this.log(`journal unavailable, not promoting until it can be written: ${reason}`);
    this.detachAll();
    this.runs.clear();
    this.activeByName.clear();
    this.index = new AdmissionIndex(admissionPolicy(this.config));
    this.probeTimer = setInterval(() => {
      try {
        this.journal.setMeta('probe', monoNow());
      } catch {
        return;
      }
      clearInterval(this.probeTimer!);
      this.probeTimer = null;
      this.degraded = null;
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

  /** Let go of every process and timer without touching the journal. */
  private detachAll(): void {
    this.deadlineTimer?.clear();
    this.deadlineTimer = null;
    if (this.fleetTimer) clearInterval(this.fleetTimer);
    this.fleetTimer = null;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    for (const live of this.live.values()) this.detachLive(live);
    this.live.clear();
    this.helper.close();
  }

  /** Stop supervising; agents keep running and are re-adopted by the next supervisor. */
  stop(): void {
    this.stopping = true;
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.deadlineTimer?.clear();
    if (this.fleetTimer) clearInterval(this.fleetTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.degraded !== null) {
      this.journal.close();
      return;
    }
    this.helper.close();
    for (const live of this.live.values()) this.detachLive(live);
    // Persist read offsets so a successor does not re-read applied output.
    this.journal.transaction(() => {
      for (const run of this.runs.values()) if (this.live.has(run.uuid)) this.journal.updateRun(run, null);
    });
    this.live.clear();
    this.journal.close();
  }
}

function toWaiter(run: Run): Waiter {
  return { uuid: run.uuid, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, enqueued_at: run.created_at };
}

/** An interactive run started without a prompt: idle, not working, once its agent is ready. */
function awaitsFirstInput(run: Run): boolean {
  return run.interactive && stdinPrompt(run) === null && run.input_seq === 0;
}

/** The prompt to write to the agent's stdin, if it takes it there (not in argv). */
function stdinPrompt(run: Run): string | null {
  return run.prompt_argv === true ? null : run.prompt;
}
