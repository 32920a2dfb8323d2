// The clocks on a live run — stuck at start, idle too long, past its timeout —
// and stopping a run: TERM its group now, KILL it after the grace. What a
// guard decides is remembered as the run's stop reason; the exit itself is
// heard by LiveRuns and ended by Ending.

import type { ExitReason } from '../core/types.js';
import { signalRun } from '../runtime/launcher.js';
import { setLongTimeout } from '../runtime/long-timer.js';
import { monoNow } from './clock.js';
import type { Parts } from './parts.js';

export class Guards {
  constructor(private readonly p: Parts) {}

  /** (Re)arm the one timer a live run needs now: the earliest of its guards. */
  arm(uuid: string): void {
    const live = this.p.live.get(uuid);
    const run = this.p.store.get(uuid);
    if (!live || !run) return;
    live.guardTimer?.clear();
    live.guardTimer = null;
    const now = monoNow();
    let at: number | null = null;
    let why: { reason: ExitReason; detail: string | null } | null = null;
    if (run.status === 'starting') {
      at = (run.started_at ?? now) + this.p.config.timings.max_starting;
      why = { reason: 'failed', detail: 'stuck_start: no sign of life within timings.max_starting' };
    } else if (run.status === 'idle' && run.limits.idle_after_ms !== null) {
      at = run.status_at + run.limits.idle_after_ms;
      why = { reason: 'completed', detail: 'idle_reaped' };
    }
    if (run.limits.timeout_ms !== null && run.status !== 'starting') {
      const t = now + (run.limits.timeout_ms - (monoNow() - live.startedMono));
      if (at === null || t < at) {
        at = t;
        why = { reason: 'timeout', detail: null };
      }
    }
    if (at !== null && why) {
      const w = why;
      live.guardTimer = setLongTimeout(() => this.stopFor(uuid, w.reason, w.detail), at - now + 1, { unref: true });
    }
    // The per-turn deadline runs only in a turn: every status change passes here.
    this.p.stalls.arm(uuid);
  }

  /** A guardrail ends a run: remember why, then kill it. */
  stopFor(uuid: string, reason: ExitReason, detail: string | null): void {
    const { store, live: lives, ending } = this.p;
    const run = store.get(uuid);
    if (!run) return;
    const live = lives.get(uuid);
    if (live) live.progress = { ...live.progress, stoppedFor: { reason, detail } };
    if (run.pid === null) {
      ending.end(uuid, reason, detail, null);
      return;
    }
    store.event(uuid, { type: 'stop_requested', data: { reason, detail } });
    this.signalKill(uuid, false);
  }

  /** `orcr kill`: a queued or never-spawned run is canceled at once; a live one is signalled, and ends when it exits. */
  kill(uuid: string, force: boolean): void {
    const { store, ending } = this.p;
    const run = store.get(uuid);
    if (!run) return;
    if (run.status === 'queued') ending.end(uuid, 'canceled', null, null);
    else if (run.pid === null) ending.end(uuid, 'canceled', 'never spawned', null);
    else {
      if (run.kill_requested_at === null) store.save({ ...run, kill_requested_at: monoNow() }, { type: 'kill_requested', data: { force } });
      this.signalKill(uuid, force);
    }
  }

  /** TERM the process group now (KILL with `force`), KILL it after the grace period. */
  signalKill(uuid: string, force: boolean): void {
    const run = this.p.store.get(uuid);
    const live = this.p.live.get(uuid);
    if (!run || run.pid === null) return;
    const pid = run.pid;
    signalRun(uuid, pid, force ? 'SIGKILL' : 'SIGTERM');
    if (live && !force && live.killTimer === null) {
      live.killTimer = setLongTimeout(() => signalRun(uuid, pid, 'SIGKILL'), this.p.config.timings.kill_grace, { unref: true });
    }
  }
}
