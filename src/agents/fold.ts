// Folds a signal stream into run totals. Used by the adapter tests and the
// bench, and a reference for the supervisor's run reducer: usage ADDS,
// cost_usd_total REPLACES, turns count completed turns.

import type { BlockedKind } from '../core/types.js';
import type { Signal } from './signals.js';

export interface SignalFold {
  alive: boolean;
  session_id: string | null;
  /** Completed turns (turn_end signals). */
  turns: number;
  /** Turns begun (turn_start signals); one more than `turns` while a turn is open. */
  turns_started: number;
  tokens: { input: number; output: number; cached: number };
  /** The latest cost_usd_total seen, 0 when the agent reports no cost. */
  cost_usd: number;
  /** Tool names in call order. */
  tools: string[];
  /** The latest text, or the latest result's text when it came after. */
  last_text: string | null;
  /** The latest result's ok, null when no result was seen. */
  ok: boolean | null;
  /** The latest blocked signal, null when none was seen. */
  blocked: { kind: BlockedKind; retry_after_s?: number } | null;
  /** Lines kept as plain output. */
  output_lines: number;
}

export function foldSignals(signals: Iterable<Signal>): SignalFold {
  const f: SignalFold = {
    alive: false,
    session_id: null,
    turns: 0,
    turns_started: 0,
    tokens: { input: 0, output: 0, cached: 0 },
    cost_usd: 0,
    tools: [],
    last_text: null,
    ok: null,
    blocked: null,
    output_lines: 0,
  };
  for (const s of signals) {
    switch (s.kind) {
      case 'alive':
      case 'opened':
        if (s.kind === 'alive') f.alive = true;
        if (s.session_id) f.session_id = s.session_id;
        break;
      case 'turn_start':
        f.turns_started++;
        break;
      case 'turn_end':
        f.turns++;
        break;
      case 'usage':
        f.tokens.input += s.input;
        f.tokens.output += s.output;
        f.tokens.cached += s.cached;
        if (s.cost_usd_total !== undefined) f.cost_usd = s.cost_usd_total;
        break;
      case 'tool':
        f.tools.push(s.name);
        break;
      case 'text':
        f.last_text = s.text;
        break;
      case 'result':
        f.ok = s.ok;
        if (s.text !== undefined) f.last_text = s.text;
        break;
      case 'blocked':
        f.blocked = s.retry_after_s === undefined ? { kind: s.blocked } : { kind: s.blocked, retry_after_s: s.retry_after_s };
        break;
      case 'output':
        f.output_lines++;
        break;
      // Not among the totals: the run reducer (src/core/run-progress.ts) keeps what these say.
      case 'quota':
      case 'agent_retry':
      case 'approval':
      case 'approval_withdrawn':
      case 'denied':
      case 'reply':
      case 'protocol_error':
        break;
    }
  }
  return f;
}
