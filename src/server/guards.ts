// The clocks on a live run — stuck at start, idle too long, past its timeout,
// silent too long in a turn (a stall) — as one timer per run at the deadline
// core/guard's nextGuard names. Output only moves a time kept on the run's
// live record: the timer, when it fires, asks nextGuard again and re-arms if
// the deadline moved on, so a chatty agent costs no timer work per line. What
// falls due becomes a stop (an effect) or a stall warning (a flag on the run
// until its next output, per its `on_stall`).
//
// A supervisor restart does not journal output times: a re-adopted run's
// stall clock starts again from its re-adoption (it gets a whole turn timeout
// more, never less).

import type { Config } from '../config/load.js';
import { nextGuard } from '../core/guard.js';
import { setLongTimeout } from '../runtime/long-timer.js';
import { monoNow } from './clock.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';

export class Guards {
  constructor(private readonly d: { store: RunStore; live: LiveRuns; config: () => Config }) {}

  /** (Re)arm the one timer a live run needs now (a status change, a watch). */
  arm(uuid: string): void {
    const { live } = this.d;
    live.setTimer(uuid, 'guard', null);
    this.decide(uuid);
  }

  /** The agent printed something: the stall clock starts again, and a warned stall is over. */
  heard(uuid: string): void {
    const { store, live } = this.d;
    const run = store.get(uuid);
    if (!live.has(uuid) || !run) return;
    const now = monoNow();
    const silentSince = run.stalled_since;
    live.heard(uuid, now);
    if (silentSince !== null && silentSince !== undefined) {
      store.save({ ...run, stalled_since: null }, { type: 'stall_ended', data: { silent_ms: Math.max(0, now - silentSince) } });
      // Its stall clock runs again, perhaps before the deadline the timer waits for.
      this.arm(uuid);
      return;
    }
    // Output only moves a stall later: a pending timer finds the new time when it fires.
    if (!live.timerPending(uuid, 'guard')) this.decide(uuid);
  }

  private decide(uuid: string): void {
    const { store, live } = this.d;
    const run = store.get(uuid);
    const clocks = live.clocks(uuid);
    if (!run || !clocks) return;
    const now = monoNow();
    const g = nextGuard(run, { ...clocks, stopping: live.stopping(uuid) }, this.d.config().timings.max_starting, now);
    if (g === null) {
      live.setTimer(uuid, 'guard', null);
      return;
    }
    if (g.at > now) {
      live.setTimer(
        uuid,
        'guard',
        setLongTimeout(() => this.decide(uuid), g.at - now + 1, { unref: true }),
      );
      return;
    }
    live.setTimer(uuid, 'guard', null);
    const due = g.due;
    if (due.kind === 'stop') {
      store.emit({ kind: 'stop', uuid, reason: due.reason, detail: due.detail });
      return;
    }
    const action = run.limits.on_stall;
    const data = { silent_ms: due.silentMs, turn_timeout_ms: run.limits.turn_timeout_ms, action };
    if (action === 'terminate') {
      store.transaction(() => {
        store.event(uuid, { type: 'stall', data });
        store.emit({ kind: 'stop', uuid, reason: 'timeout', detail: 'stall' });
      });
    } else {
      // Warned: no clock runs until its next output (or status change) arms one.
      store.save({ ...run, stalled_since: due.since }, { type: 'stall', data });
      this.decide(uuid);
    }
  }
}
