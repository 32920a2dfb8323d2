// A live run's guard deadline: the earliest of its clocks — stuck at start
// (timings.max_starting), idle too long (idle_after), past its timeout, or
// silent too long in a turn (turn_timeout, a stall) — and what is due then.
// Pure: the caller keeps one timer per run at `at`, and asks again when it
// fires (output may have moved a stall on by then).

import { stallVerdict } from './stall.js';
import type { ExitReason, Run } from './types.js';

export interface GuardClocks {
  /** Epoch ms (monotonic) at which the run started, for a timeout immune to clock jumps. */
  startedAt: number;
  /** Epoch ms of the agent's last output line (a re-adopted run: its re-adoption). */
  lastOutputAt: number;
  /** Already being stopped (a guard, a kill, an exit heard): no guard says it again. */
  stopping: boolean;
}

type GuardAction =
  | { kind: 'stop'; reason: ExitReason; detail: string | null }
  /** Silent past its turn timeout: warned or stopped, per its on_stall. */
  | { kind: 'stall'; silentMs: number; since: number };

export type Guard = { at: number; due: GuardAction } | null;

/**
 * When to look again and what is due then (`at <= now`: due now). Null: no
 * clock runs (queued, ended, being stopped, no limits that apply).
 */
export function nextGuard(run: Run, clocks: GuardClocks, maxStartingMs: number, now: number): Guard {
  // One stop is enough: a second guard falling due in the kill grace would only overwrite the first one's reason.
  if (clocks.stopping) return null;
  let best: Guard = null;
  const consider = (at: number, due: GuardAction): void => {
    if (best === null || at < best.at) best = { at, due };
  };
  if (run.status === 'starting') {
    // From this attempt's start (status_at): started_at is the run's first, long ago for a continued run.
    consider((run.status_at ?? run.started_at ?? now) + maxStartingMs, {
      kind: 'stop',
      reason: 'failed',
      detail: 'stuck_start: no sign of life within timings.max_starting',
    });
  } else if (run.status === 'idle' && run.limits.idle_after_ms !== null) {
    consider(run.status_at + run.limits.idle_after_ms, { kind: 'stop', reason: 'completed', detail: 'idle_reaped' });
  }
  if (run.limits.timeout_ms !== null && run.status !== 'starting' && run.status !== 'queued' && run.status !== 'ended') {
    // A continued or retried run's --timeout covers the whole run: from its first attempt's start, the waits between included.
    const first = run.attempts[0]?.started_at ?? null;
    const from = first !== null ? Math.min(clocks.startedAt, first) : clocks.startedAt;
    consider(from + run.limits.timeout_ms, { kind: 'stop', reason: 'timeout', detail: null });
  }
  if (run.kill_requested_at === null) {
    // A turn that began after the last output (input sent to an idle run) counts from its start.
    const lastOutputAt = Math.max(clocks.lastOutputAt, run.status_at);
    const stalled = run.stalled_since !== null;
    const v = stallVerdict({ status: run.status, turnTimeoutMs: run.limits.turn_timeout_ms, lastOutputAt, stalled, now });
    if (v.kind === 'wait') consider(v.at, { kind: 'stall', silentMs: v.at - lastOutputAt, since: lastOutputAt });
    else if (v.kind === 'stall') consider(now, { kind: 'stall', silentMs: v.silentMs, since: lastOutputAt });
  }
  return best;
}
