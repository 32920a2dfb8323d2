// A run's process exited (or vanished): read what it said last, choose the
// exit reason, kill what it left behind, and end it.

import { exitReason, holdsSlot, type ExitFacts } from '../core/run-state.js';
import { groupAlive, signalGroup, signalRun } from '../runtime/launcher.js';
import type { Continuing } from './continuing.js';
import type { Ending } from './ending.js';
import type { LiveRuns } from './live-runs.js';
import type { Progress } from './progress.js';
import type { RunStore } from './run-store.js';

export class Exits {
  constructor(
    private readonly d: {
      store: RunStore;
      live: LiveRuns;
      progress: Pick<Progress, 'onLines' | 'onEnd'>;
      ending: Pick<Ending, 'end'>;
      continuing: Pick<Continuing, 'decide' | 'continueRun'>;
    },
  ) {}

  /** The wrapper exited (or was found gone): end the run with the right reason. */
  onExit(uuid: string, code: number | null, vanished: boolean): void {
    const { store, live, progress } = this.d;
    // Heard once: a run already ended, or queued again for its next attempt, has no process to exit.
    const run = store.get(uuid);
    if (!run || !holdsSlot(run.status)) return;
    const watched = live.has(uuid);
    if (watched) {
      if (!live.markExited(uuid)) return;
      // Read the last lines before deciding: a result line may change the verdict.
      const tail = live.drain(uuid);
      if (tail) progress.onLines(uuid, [tail]);
      progress.onEnd(uuid);
    }
    const current = store.get(uuid);
    if (!current) return;
    const state = live.progress(uuid);
    // Said by this supervisor's guard, or by one before it (journaled).
    const stoppedFor = state?.stoppedFor ?? current.stop_requested ?? undefined;
    live.detach(uuid);
    // Leftovers in the group go; a run that was stopped also loses whatever it
    // started outside the group (tools in their own sessions). That needs a
    // scan of /proc, too dear for every normal exit.
    if (current.pid !== null) {
      if (current.kill_requested_at !== null || stoppedFor) signalRun(uuid, current.pid, 'SIGKILL');
      else if (groupAlive(current.pid)) signalGroup(current.pid, 'SIGKILL');
    }
    const facts: ExitFacts = {
      code,
      killRequested: current.kill_requested_at !== null,
      stoppedFor,
      lastResultOk: current.last_result?.ok ?? null,
      // A block journaled (read from the agent's output by a supervisor before this one) says it too.
      lastResultDetail:
        current.status === 'blocked' && current.blocked_kind === 'login'
          ? 'login'
          : (current.last_result?.detail ?? (current.status === 'blocked' && current.blocked_kind === 'limit' ? 'limit' : null)),
      vanished: vanished && code === null,
    };
    const after = this.d.continuing.decide(current, { ...exitReason(current, facts), code });
    if (after.kind === 'end') this.d.ending.end(uuid, after.reason, after.detail, code, after.note);
    else this.d.continuing.continueRun(uuid, after, code);
  }
}
