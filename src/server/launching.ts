// Starting runs already journaled as `starting`: check each launch, make the
// run directories beside the event loop, start the wrappers (through the
// spawn helper during a burst), and record every outcome in one unit of
// work. A launch begun before a degrade or a stop is not recorded: the next
// start finds its wrapper and re-adopts it.

import type { ChildProcess } from 'node:child_process';
import { acceptsInput, inputLine } from '../agents/input.js';
import { awaitsFirstInput } from '../core/run-progress.js';
import { transition } from '../core/run-state.js';
import type { Run } from '../core/types.js';
import { runDir, type Home } from '../config/home.js';
import {
  checkLaunch,
  LaunchError,
  prepareRunDirAsync,
  processStartTime,
  signalGroup,
  startWrapper,
  wrapperArgs,
  type LaunchSpec,
} from '../runtime/launcher.js';
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
}

interface Outcome {
  run: Run;
  launched: { pid: number; pidStart: string | null; child: ChildProcess | null } | null;
  error: string | null;
}

/** The prompt to write to the agent's stdin, if it takes it there (not in argv). */
export function stdinPrompt(run: Run): string | null {
  return run.prompt_argv === true ? null : run.prompt;
}

export class Launching {
  /** Starts wrappers during bursts, so the fork is of a small process and off the event loop. */
  private readonly helper = new SpawnHelper();
  private lastLaunchAt = -Infinity;
  /** Moves on each degrade: a launch begun before it must not start a run the rebuilt memory launches again. */
  private epoch = 0;

  constructor(
    private readonly p: {
      home: Home;
      store: RunStore;
      lifecycle: Pick<Lifecycle, 'writes' | 'fail'>;
      worktrees: Pick<Worktrees, 'prepare' | 'discardMade'>;
      ending: Pick<Ending, 'end'>;
      live: Pick<LiveRuns, 'watch'>;
      input: Pick<RunInput, 'record' | 'prompt'>;
    },
  ) {}

  /** Launches in flight are no longer ours to record (degrade). */
  invalidate(): void {
    this.epoch++;
    this.helper.close();
  }

  close(): void {
    this.helper.close();
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
          return { ...c, program: null, error: `run directory: ${(e as Error).message}` };
        }
        if (c.run.worktree) {
          // Made here, not at enqueue: a queue of hundreds holds no checkouts, and a canceled run never had one.
          const failed = await this.p.worktrees.prepare(c.run);
          if (failed !== null) return { ...c, program: null, error: failed };
          try {
            return { ...c, program: checkLaunch(c.spec) };
          } catch (e) {
            await this.p.worktrees.discardMade(c.run);
            return { ...c, program: null, error: e instanceof LaunchError ? e.message : `spawn failed: ${(e as Error).message}` };
          }
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
      try {
        this.record(outcomes);
      } catch (e) {
        this.p.lifecycle.fail(e);
      }
    });
  }

  private check(run: Run): Prepared {
    const { home } = this.p;
    // The environment of the client that made the run (else, for older runs, ours), then -e, then orcr's own.
    const base = this.p.store.journal.launchEnv(run.uuid);
    const extraEnv: Record<string, string> = { ...run.env, ORCR_RUN: run.uuid, ORCR_RUN_NAME: run.name, ORCR_HOME: home.dir };
    const spec: LaunchSpec = {
      dir: runDir(home, run.uuid),
      argv: run.prompt_argv === true ? run.command.map((a) => a.split('{prompt}').join(run.prompt ?? '')) : run.command,
      cwd: run.worktree ? Worktrees.cwdOf(run.worktree) : run.cwd,
      env: { ...(base?.env ?? process.env), ...extraEnv },
      stdinFifo: run.interactive || acceptsInput(run.protocol),
    };
    // A one-shot agent reads its prompt to EOF before it starts: from a file, not through the FIFO.
    const prompt = stdinPrompt(run);
    if (!spec.stdinFifo && prompt !== null) spec.promptFile = inputLine(run.protocol, prompt);
    // Its worktree is not made yet: the program is looked for once it is.
    if (run.worktree) return { run, spec, extraEnv, base, program: null, error: null };
    try {
      return { run, spec, extraEnv, base, program: checkLaunch(spec), error: null };
    } catch (e) {
      return { run, spec, extraEnv, base, program: null, error: e instanceof LaunchError ? e.message : `spawn failed: ${(e as Error).message}` };
    }
  }

  /**
   * Start the wrappers of the runs still `starting`: through the spawn helper
   * when it is up, else directly; nothing once `stale` (stopping, degraded).
   */
  private async startWrappers(ready: Prepared[], stale: () => boolean): Promise<Outcome[]> {
    const outcomes = await Promise.all(
      ready.map(async ({ run: before, spec, extraEnv, base, program, error }): Promise<Outcome | null> => {
        // Killed while its directory was being made: it was ended as canceled then.
        const run = this.p.store.get(before.uuid);
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
        if (awaitsFirstInput(next) && next.protocol !== 'jsonl') {
          // Nothing to do until the user sends something, and (claude, plain)
          // nothing will be said before that: it is ready once it runs.
          next = transition(next, 'idle', monoNow());
          store.save(next, { type: 'idle', data: { from: 'starting', pid: launched.pid, turn: 0 } });
        } else if (next.protocol === null || next.protocol === 'plain') {
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
      // An agent that takes input gets its prompt as its first input line (a one-shot one has it in its prompt file).
      const prompt = stdinPrompt(next);
      if (prompt !== null && (next.interactive || acceptsInput(next.protocol))) this.p.input.prompt(next, prompt);
    }
  }
}
