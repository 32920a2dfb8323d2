// The per-turn deadline: a working run whose agent has printed nothing for its
// `turn_timeout` is stalled. Pure — the caller keeps the time of the last
// output and one timer; this says when to look again, or that it is a stall.

import type { RunStatus } from './types.js';

export interface StallInput {
  status: RunStatus;
  turnTimeoutMs: number | null | undefined;
  /** Epoch ms of the agent's last output line, or of the turn's start if later. */
  lastOutputAt: number;
  /** Already warned and silent since: warned once per silence, not again. */
  stalled: boolean;
  now: number;
}

export type StallVerdict =
  /** No clock runs: not in a turn, no turn timeout, or already warned. */
  | { kind: 'off' }
  /** Look again at `at` (output may have moved it on by then). */
  | { kind: 'wait'; at: number }
  | { kind: 'stall'; silentMs: number };

export function stallVerdict(i: StallInput): StallVerdict {
  // Only a turn in progress can stall: idle is waiting for a person, blocked for a limit or login.
  if (i.status !== 'working' || i.stalled || i.turnTimeoutMs === null || i.turnTimeoutMs === undefined) return { kind: 'off' };
  const at = i.lastOutputAt + i.turnTimeoutMs;
  return i.now >= at ? { kind: 'stall', silentMs: i.now - i.lastOutputAt } : { kind: 'wait', at };
}
