// Starting runs already journaled as `starting`: check each launch, make the
// run directories beside the event loop, start the wrappers (through the
// spawn helper during a burst), and record every outcome in one unit of
// work. A launch begun before a degrade or a stop is not recorded: the next
// start finds its wrapper and re-adopts it. A launch the OS refuses for want
// of processes or descriptors is no outcome: the run stays `starting`, is
// launched again after a backoff, and admission waits until launches succeed
// again (the fleet is told once per such spell).

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { acceptsInput, announcesBeforeInput, firstInput } from '../agents/input.js';
import { awaitsFirstInput } from '../core/run-progress.js';
import { transition } from '../core/run-state.js';
import { PLAIN_PROTOCOL, type Run } from '../core/types.js';
import { runDir, type Home } from '../config/home.js';
import {
  checkLaunch,
  LaunchError,
  prepareRunDirAsync,
  processStartTime,
  signalGroup,
  spawnWrapper,
  wrapperArgs,
  type LaunchSpec,
} from '../runtime/launcher.js';
import { isResourceLimit, limitName } from '../runtime/os-limits.js';
import { SpawnHelper, SpawnHelperGone } from '../runtime/spawner.js';
import { monoNow } from './clock.js';
import type { Ending } from './ending.js';
import type { Lifecycle } from './lifecycle.js';
import type { LiveRuns } from './live-runs.js';
import type { RunInput } from './run-input.js';
import type { RunStore } from './run-store.js';
import { Worktrees } from './worktrees.js';

/** A run whose launch was checked and whose directory was made (or why not). */
interface Prepared {
  run: Run;
  spec: LaunchSpec;
  /** What the run's environment adds to its base: -e, and orcr's own variables. */
  extraEnv: Record<string, string>;
  /** The environment extraEnv adds to: the run's maker's, or null for ours. */
  base: { id: string; env: Readonly<Record<string, string>> } | null;
  program: string | null;
  error: string | null;
  /** The OS refused for now (EAGAIN, EMFILE, ENFILE): launched again later, not failed. */
  deferred?: string;
}

interface Outcome {
  run: Run;
  launched: { pid: number; pidStart: string | null; child: ChildProcess | null } | null;
  error: string | null;
  deferred?: string;
}

/** The first wait after the OS refuses a launch, doubled while it goes on refusing, up to the last. */
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;
const FIRST_BATCH = 8;
const MAX_BATCH = 256;

/** Runs waiting for the OS to start them again, and when they are tried next. */
interface Held {
  runs: Map<string, Run>;
  delay: number;
  timer: NodeJS.Timeout | null;
  /** How many are tried at the next retry. */
  batch: number;
}

/** The prompt to write to the agent's stdin, if it takes it there (not in argv). */
function stdinPrompt(run: Run): string | null {
  return run.prompt_argv ? null : run.prompt;
}

/** The program a launch would run, or why it cannot (a LaunchError's own words). */
function programOf(spec: LaunchSpec): { program: string | null; error: string | null } {
  try {
    return { program: checkLaunch(spec), error: null };
  } catch (e) {
    return { program: null, error: e instanceof LaunchError ? e.message : `spawn failed: ${(e as Error).message}` };
  }
}

export class Launching {
  /** Starts wrappers during bursts, so the fork is of a small process and off the event loop. */
  private readonly helper = new SpawnHelper();
  private lastLaunchAt = -Infinity;
  /** Moves on each degrade: a launch begun before it must not start a run the rebuilt memory launches again. */
  private epoch = 0;
  private held: Held | null = null;

  constructor(
    private readonly p: {
      home: Home;
      store: RunStore;
      log: (msg: string) => void;
      lifecycle: Pick<Lifecycle, 'writes' | 'fail'>;
      worktrees: Pick<Worktrees, 'prepare' | 'discardMade'>;
      ending: Pick<Ending, 'end'>;
      live: Pick<LiveRuns, 'watch' | 'detach' | 'stopping'>;
      input: Pick<RunInput, 'record'>;
    },
  ) {}

  /** Launches in flight are no longer ours to record (degrade); the rebuild launches what is still `starting`. */
  invalidate(): void {
    this.epoch++;
    this.helper.close();
    this.release();
  }

  close(): void {
    this.helper.close();
    this.release();
  }

  /** A launch waits for the OS (out of processes or descriptors): admit nothing meanwhile. */
  holding(): boolean {
    return this.held !== null;
  }

  private release(): void {
    if (this.held?.timer) clearTimeout(this.held.timer);
    this.held = null;
  }

  /** Launch runs already journaled as `starting`. */
  launch(runs: Run[]): void {
    const checked = runs.map((run) => this.check(run));
    // A burst — several launches at once, or one right after another — has the
    // spawn helper up for the launches that follow; launches far apart do not
    // keep a second process around (ORCR_SPAWN_HELPER=0: never).
    const now = monoNow();
    const burst = runs.length >= 2 || now - this.lastLaunchAt < 250;
    this.lastLaunchAt = now;
    if (burst && process.env.ORCR_SPAWN_HELPER !== '0') void this.helper.warm();
    const epoch = this.epoch;
    void Promise.all(
      checked.map(async (c) => {
        if (c.program === null && c.error !== null) return c;
        try {
          await prepareRunDirAsync(c.spec.dir, c.spec.promptFile ?? null);
        } catch (e) {
          if (isResourceLimit(e)) return { ...c, deferred: (e as NodeJS.ErrnoException).code! };
          return { ...c, program: null, error: `run directory: ${(e as Error).message}` };
        }
        if (c.run.worktree?.state === 'ready') {
          // A continued or retried run: its worktree holds the work of its attempts so far, which a fresh one would lose.
          if (!fs.existsSync(c.run.worktree.path))
            return { ...c, program: null, error: `worktree: ${c.run.worktree.path} is gone (the run's earlier attempts worked there)` };
          return { ...c, ...programOf(c.spec) };
        }
        if (c.run.worktree) {
          // Made here, not at enqueue: a queue of hundreds holds no checkouts, and a canceled run never had one.
          const failed = await this.p.worktrees.prepare(c.run);
          // The OS had no process or descriptor for git: the run waits with the other launches it refused.
          if (failed !== null && typeof failed === 'object') return { ...c, deferred: failed.deferred };
          if (failed !== null) return { ...c, program: null, error: failed };
          const found = programOf(c.spec);
          if (found.program === null) await this.p.worktrees.discardMade(c.run);
          return { ...c, ...found };
        }
        return c;
      }),
    ).then(async (ready) => {
      // Stopped or rebuilt (degraded) meanwhile: the journal still says `starting`, and the next start launches them.
      const stale = (): boolean => !this.p.lifecycle.writes() || epoch !== this.epoch;
      if (stale()) return;
      const outcomes = await this.startWrappers(ready, stale);
      // Started but no longer ours to record: the wrappers' status files name them, and the next start re-adopts them.
      if (stale()) return;
      const deferred = outcomes.filter((o) => o.deferred !== undefined);
      try {
        this.record(outcomes.filter((o) => o.deferred === undefined));
        if (deferred.length > 0 || this.held !== null) this.afterBatch(outcomes.length - deferred.length, deferred);
      } catch (e) {
        this.p.lifecycle.fail(e);
      }
    });
  }

  /**
   * A batch done while launches wait for the OS, or with some the OS refused:
   * those stay `starting` (their slots held) and are tried again a few at a
   * time — the batch doubles while every launch of it starts, shrinks to what
   * started when some do not, and halves (the wait doubling, up to 5 s) when
   * none does — so a limit that lets runs through as others end is not
   * hammered with every waiting launch at once. Lifted once nothing waits.
   * The first refusal of a spell is told to the fleet, once.
   */
  private afterBatch(started: number, deferred: Outcome[]): void {
    const first = this.held === null;
    const held: Held = this.held ?? { runs: new Map(), delay: FIRST_RETRY_MS, timer: null, batch: FIRST_BATCH };
    this.held = held;
    for (const o of deferred) held.runs.set(o.run.uuid, o.run);
    if (!first) {
      if (deferred.length === 0) held.batch = Math.min(held.batch * 2, MAX_BATCH);
      else if (started === 0) {
        held.delay = Math.min(held.delay * 2, MAX_RETRY_MS);
        held.batch = Math.max(1, Math.floor(held.batch / 2));
      } else {
        held.delay = FIRST_RETRY_MS;
        held.batch = Math.max(1, started);
      }
    }
    if (held.runs.size === 0 && held.timer === null) {
      this.lift();
      return;
    }
    if (held.timer !== null) return;
    // A batch that all started: the next at once; else after the wait.
    held.timer = setTimeout(() => this.retry(), deferred.length === 0 ? 0 : held.delay);
    held.timer.unref();
    if (!first) return;
    const code = deferred[0]!.deferred!;
    const until = monoNow() + held.delay;
    const message = `${limitName(code)} reached (${code}), admitting nothing until ${new Date(until).toISOString().slice(11, 19)}`;
    this.p.log(`${message}: ${deferred.length} launch${deferred.length === 1 ? '' : 'es'} will be retried`);
    this.p.store.event(null, { type: 'resource_limit', data: { limit: code, message, until } });
  }

  /** Launch the next few of what waited for the OS (oldest first); lifted once nothing waits. */
  private retry(): void {
    const held = this.held;
    if (held === null) return;
    held.timer = null;
    const runs: Run[] = [];
    for (const uuid of [...held.runs.keys()]) {
      if (runs.length >= held.batch) break;
      held.runs.delete(uuid);
      const run = this.p.store.get(uuid);
      if (run?.status === 'starting') runs.push(run);
    }
    if (runs.length === 0 && held.runs.size === 0) this.lift();
    else if (runs.length === 0) this.retry();
    else this.launch(runs);
  }

  /**
   * The wrapper started but could not start the agent (it could not fork:
   * out of processes), so nothing of the run ever ran: back to `starting`,
   * to wait with the launches the OS refused. False when the run was to stop
   * anyway (a kill, a guardrail): then it ends as it would have.
   */
  relaunch(uuid: string): boolean {
    const { store, live } = this.p;
    const run = store.get(uuid);
    if (!run || run.kill_requested_at !== null || live.stopping(uuid) || !this.p.lifecycle.writes()) return false;
    live.detach(uuid);
    if (run.pid !== null) signalGroup(run.pid, 'SIGKILL');
    // Not a transition of the run's life (it never began): the row goes back to before its spawn.
    const back: Run = { ...run, status: 'starting', status_at: monoNow(), pid: null, pid_start: null };
    store.transaction(() => store.save(back, { type: 'launch_retried', data: { pid: run.pid, limit: 'EAGAIN' } }));
    // Waits with the others (no batch of ours to judge the limit by), or begins a spell.
    if (this.held === null) this.afterBatch(0, [{ run: back, launched: null, error: null, deferred: 'EAGAIN' }]);
    else {
      this.held.runs.set(uuid, back);
      if (this.held.timer === null) {
        this.held.timer = setTimeout(() => this.retry(), this.held.delay);
        this.held.timer.unref();
      }
    }
    return true;
  }

  private lift(): void {
    this.release();
    this.p.log('launches succeed again: admitting');
    this.p.store.emit({ kind: 'admit' });
  }

  private check(run: Run): Prepared {
    const { home } = this.p;
    // The environment of the client that made the run (else, for older runs, ours), then -e, then orcr's own.
    const base = this.p.store.reader.launchEnv(run.uuid);
    const extraEnv: Record<string, string> = { ...run.env, ORCR_RUN: run.uuid, ORCR_RUN_NAME: run.name, ORCR_HOME: home.dir };
    // What it waited for (`run --after`), its uuids in order, space-separated: its agent can read their logs, diffs and records.
    if (run.after.length) extraEnv.ORCR_AFTER = run.after.join(' ');
    const spec: LaunchSpec = {
      dir: runDir(home, run.uuid),
      argv: run.prompt_argv ? run.command.map((a) => a.split('{prompt}').join(run.prompt ?? '')) : run.command,
      cwd: run.worktree ? Worktrees.cwdOf(run.worktree) : run.cwd,
      env: { ...(base?.env ?? process.env), ...extraEnv },
      stdinFifo: run.interactive || acceptsInput(run.protocol),
    };
    // A one-shot agent reads its prompt to EOF from a file; one with a FIFO gets it as the first line the
    // wrapper writes there. Either way it is on disk before the wrapper starts: a supervisor that dies
    // during the launch loses no prompt, and the next one sends none twice.
    // A two-way protocol's first lines are its opening instead (its session resumed on a later attempt that keeps it):
    // the prompt follows as the first turn once the agent has answered.
    const first = firstInput(run.protocol, stdinPrompt(run), { cwd: spec.cwd, session: run.session_id });
    if (first !== null) spec.promptFile = first;
    // Its worktree is not made yet: the program is looked for once it is.
    if (run.worktree) return { run, spec, extraEnv, base, program: null, error: null };
    return { run, spec, extraEnv, base, ...programOf(spec) };
  }

  /**
   * Start the wrappers of the runs still `starting`: through the spawn helper
   * when it is up, else directly; nothing once `stale` (stopping, degraded).
   */
  private async startWrappers(ready: Prepared[], stale: () => boolean): Promise<Outcome[]> {
    const outcomes = await Promise.all(
      ready.map(async ({ run: before, spec, extraEnv, base, program, error, deferred }): Promise<Outcome | null> => {
        // Killed while its directory was being made: it was ended as canceled then.
        const run = this.p.store.get(before.uuid);
        if (run?.status !== 'starting') return null;
        if (deferred !== undefined) return { run, launched: null, error: null, deferred };
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
          return { run, launched: await spawnWrapper(spec, program), error: null };
        } catch (e) {
          if (isResourceLimit(e)) return { run, launched: null, error: null, deferred: (e as NodeJS.ErrnoException).code! };
          return { run, launched: null, error: e instanceof LaunchError ? e.message : `spawn failed: ${(e as Error).message}` };
        }
      }),
    );
    return outcomes.filter((o): o is Outcome => o !== null);
  }

  /** Record every launch outcome in one unit of work, then follow the started runs. */
  private record(all: Outcome[]): void {
    const { store, ending } = this.p;
    const outcomes = all.flatMap((o): Outcome[] => {
      const run = store.get(o.run.uuid);
      if (run?.status === 'starting') return [{ ...o, run }];
      // Canceled while its wrapper was being started: it must not run on.
      if (o.launched) signalGroup(o.launched.pid, 'SIGKILL');
      return [];
    });
    const started = store.transaction(() =>
      outcomes.flatMap(({ run, launched, error }) => {
        if (!launched) {
          ending.end(run.uuid, 'failed', error, null);
          return [];
        }
        let next: Run = { ...run, pid: launched.pid, pid_start: launched.pidStart };
        if (next.worktree) next = { ...next, worktree: { ...next.worktree, state: 'ready' } };
        if (awaitsFirstInput(next) && !announcesBeforeInput(next.protocol)) {
          // Nothing to do until the user sends something, and nothing will be
          // said before that: it is ready once it runs.
          next = transition(next, 'idle', monoNow());
          store.save(next, { type: 'idle', data: { from: 'starting', pid: launched.pid, turn: 0 } });
        } else if (next.protocol === null || next.protocol === PLAIN_PROTOCOL) {
          // Without a protocol that announces itself, being spawned is the only sign of life.
          next = transition(next, 'working', monoNow());
          store.save(next, { type: 'working', data: { from: 'starting', pid: launched.pid } });
        } else {
          store.save(next, { type: 'spawned', data: { pid: launched.pid } });
        }
        return [{ next, child: launched.child }];
      }),
    );
    for (const { next, child } of started) {
      // Recorded for every prompt, wherever it goes (argv, a prompt file, stdin): the transcript's first entry.
      if (next.prompt !== null) this.p.input.record(next, next.prompt, true);
      this.p.live.watch(next, child);
      this.p.store.emit({ kind: 'guard', uuid: next.uuid });
      // Idle at once (an interactive run without a prompt): a wait begun while it was starting settles now.
      if (next.status === 'idle') this.p.store.emit({ kind: 'settle', uuid: next.uuid });
    }
  }
}
