// Stopping runs, in one place and with a verb per meaning:
// - stop: a guardrail ends a live run — its reason is remembered, and its
//   group gets TERM now and KILL after the grace (never spawned: ended now);
// - kill: `orcr kill` — a queued or never-spawned run is canceled at once, a
//   live one signalled (it ends when its exit is heard);
// - stopBelow: every active descendant of a run, nearest first;
// - signal: TERM (KILL with force) now, KILL after the grace.

import type { Config } from '../config/load.js';
import { descendantsOf } from '../core/run-tree.js';
import type { ExitReason } from '../core/types.js';
import { signalRun } from '../runtime/launcher.js';
import { setLongTimeout } from '../runtime/long-timer.js';
import { monoNow } from './clock.js';
import type { Ending } from './ending.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';

export class Stops {
  constructor(private readonly d: { store: RunStore; live: LiveRuns; ending: Pick<Ending, 'end'>; config: () => Config }) {}

  /** A guardrail ends a run: remember why, then signal it. */
  stop(uuid: string, reason: ExitReason, detail: string | null): void {
    const { store, live, ending } = this.d;
    const run = store.get(uuid);
    if (!run) return;
    live.markStopped(uuid, reason, detail);
    if (run.pid === null) {
      ending.end(uuid, reason, detail, null);
      return;
    }
    store.save({ ...run, stop_requested: { reason, detail } }, { type: 'stop_requested', data: { reason, detail } });
    this.signal(uuid, false);
  }

  /** `orcr kill`: a queued or never-spawned run is canceled at once; a live one is signalled, and ends when it exits. */
  kill(uuid: string, force: boolean): void {
    const { store, ending } = this.d;
    const run = store.get(uuid);
    if (!run) return;
    if (run.status === 'queued') ending.end(uuid, 'canceled', null, null);
    else if (run.pid === null) ending.end(uuid, 'canceled', 'never spawned', null);
    else {
      if (run.kill_requested_at === null) store.save({ ...run, kill_requested_at: monoNow() }, { type: 'kill_requested', data: { force } });
      this.signal(uuid, force);
    }
  }

  /** Every active run below `uuid`: `killed` ones get a kill; `budget` ones are canceled (queued) or stopped (nearest first). */
  stopBelow(uuid: string, reason: 'budget' | 'killed', detail: string | null, force = false): void {
    const { store, ending } = this.d;
    for (const d of descendantsOf(uuid, store.active())) {
      const run = store.get(d.uuid);
      if (!run) continue;
      if (reason === 'killed') this.kill(run.uuid, force);
      else if (run.status === 'queued' || run.pid === null) ending.end(run.uuid, 'canceled', detail, null);
      else this.stop(run.uuid, 'budget', detail);
    }
  }

  /** TERM the process group now (KILL with `force`), KILL it after the grace period. */
  signal(uuid: string, force: boolean): void {
    const { store, live } = this.d;
    const run = store.get(uuid);
    if (!run || run.pid === null) return;
    const pid = run.pid;
    signalRun(uuid, pid, force ? 'SIGKILL' : 'SIGTERM');
    if (live.has(uuid) && !force && !live.hasTimer(uuid, 'kill')) {
      live.setTimer(
        uuid,
        'kill',
        setLongTimeout(() => signalRun(uuid, pid, 'SIGKILL'), this.d.config().timings.kill_grace, { unref: true }),
      );
    }
  }
}
