// Turns a running total into increments. Codex (`turn.completed.usage`) and
// Gemini (`result.stats`) report token counts for the whole session so far,
// not for the turn: their CLIs copy the session's running totals into every
// turn-end event. Signals carry amounts to ADD, so each report is diffed
// against the previous one.

export interface TokenTriple {
  input: number;
  output: number;
  cached: number;
}

export interface CumulativeCounter {
  /** The increment since the previous report. */
  next(total: TokenTriple): TokenTriple;
}

export function createCumulativeCounter(): CumulativeCounter {
  let last: TokenTriple = { input: 0, output: 0, cached: 0 };
  return {
    next(total) {
      // A running total never shrinks. If one does, the agent restarted its
      // counters (or a version reports per-turn numbers): take the report
      // as a fresh amount rather than emitting a negative increment.
      const reset = total.input < last.input || total.output < last.output || total.cached < last.cached;
      const delta = reset ? { ...total } : { input: total.input - last.input, output: total.output - last.output, cached: total.cached - last.cached };
      last = { ...total };
      return delta;
    },
  };
}
