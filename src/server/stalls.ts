// The per-turn deadline (`turn_timeout`): a working run whose agent has
// printed nothing for that long is stalled — warned (a flag on the run until
// its next output) or ended `timeout` with detail `stall`, per its `on_stall`.
// Output only moves a time kept on the run's Live: one timer per run looks at
// it when it would fall due and re-arms itself, so a chatty agent costs no
// timer work per line. The decision is core/stall's.
//
// A supervisor restart does not journal output times: a re-adopted run's
// clock starts again from its re-adoption (it gets a whole turn timeout more,
// never less).

import { stallVerdict } from '../core/stall.js';
import { setLongTimeout } from '../runtime/long-timer.js';
import { monoNow } from './clock.js';
import type { Parts } from './parts.js';

export class Stalls {
  constructor(private readonly p: Parts) {}

  /** (Re)arm the run's stall timer from its state now (a status change, a watch). */
  arm(uuid: string): void {
    const live = this.p.live.get(uuid);
    const run = this.p.store.get(uuid);
    if (!live) return;
    live.stallTimer?.clear();
    live.stallTimer = null;
    if (!run) return;
    this.decide(uuid);
  }

  /** The agent printed something: the clock starts again, and a warned stall is over. */
  onOutput(uuid: string): void {
    const live = this.p.live.get(uuid);
    const run = this.p.store.get(uuid);
    if (!live || !run) return;
    const now = monoNow();
    const silentSince = run.stalled_since;
    live.lastOutputAt = now;
    if (silentSince !== null && silentSince !== undefined) {
      this.p.store.save({ ...run, stalled_since: null }, { type: 'stall_ended', data: { silent_ms: Math.max(0, now - silentSince) } });
    }
    // A pending timer will find the new time when it fires; arm only if none runs.
    if (!live.stallTimer?.pending) this.decide(uuid);
  }

  private decide(uuid: string): void {
    const live = this.p.live.get(uuid);
    const run = this.p.store.get(uuid);
    // Being stopped already (a guard, a kill): a stall would only say it again.
    if (!live || !run || live.finished || live.progress.stoppedFor !== null || run.kill_requested_at !== null) return;
    const now = monoNow();
    const stalled = run.stalled_since !== null && run.stalled_since !== undefined;
    // A turn that began after the last output (input sent to an idle run) counts from its start.
    const lastOutputAt = Math.max(live.lastOutputAt, run.status_at);
    const v = stallVerdict({ status: run.status, turnTimeoutMs: run.limits.turn_timeout_ms, lastOutputAt, stalled, now });
    if (v.kind === 'off') return;
    if (v.kind === 'wait') {
      live.stallTimer = setLongTimeout(() => this.decide(uuid), v.at - now, { unref: true });
      return;
    }
    live.stallTimer = null;
    const action = run.limits.on_stall ?? 'terminate';
    const data = { silent_ms: v.silentMs, turn_timeout_ms: run.limits.turn_timeout_ms, action };
    if (action === 'terminate') {
      this.p.store.event(uuid, { type: 'stall', data });
      this.p.guards.stopFor(uuid, 'timeout', 'stall');
    } else {
      this.p.store.save({ ...run, stalled_since: lastOutputAt }, { type: 'stall', data });
    }
  }
}
