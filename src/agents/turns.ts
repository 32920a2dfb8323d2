// The bookkeeping every JSON adapter shares: "alive" exactly once, and turns
// that always pair up — each turn_end is preceded by exactly one turn_start,
// even when an agent skips its turn-begin line.

import type { Signal } from './signals.js';

export interface TurnTracker {
  readonly inTurn: boolean;
  /** The agent's own init line: alive once, with whatever it told us. */
  alive(info?: { session_id?: string; model?: string }): Signal[];
  /** Any protocol line proves life, even when the init line was missed. */
  ensureAlive(): Signal[];
  /** turn_start unless a turn is already open (alive first if needed). */
  start(): Signal[];
  /** turn_end, opening the turn first when its start was never seen. */
  end(): Signal[];
  /**
   * An explicit "a turn begins" line: closes a turn left open (its end line
   * was lost, or the turn was abandoned) so turns are never merged.
   */
  begin(): Signal[];
}

export function createTurnTracker(): TurnTracker {
  let isAlive = false;
  let inTurn = false;
  const tracker: TurnTracker = {
    get inTurn() {
      return inTurn;
    },
    alive(info) {
      if (isAlive) return [];
      isAlive = true;
      const sig: Signal = { kind: 'alive' };
      if (info?.session_id) sig.session_id = info.session_id;
      if (info?.model) sig.model = info.model;
      return [sig];
    },
    ensureAlive() {
      return tracker.alive();
    },
    start() {
      if (inTurn) return [];
      inTurn = true;
      return [...tracker.ensureAlive(), { kind: 'turn_start' }];
    },
    end() {
      const out = tracker.start();
      inTurn = false;
      out.push({ kind: 'turn_end' });
      return out;
    },
    begin() {
      const out: Signal[] = inTurn ? tracker.end() : [];
      out.push(...tracker.start());
      return out;
    },
  };
  return tracker;
}
