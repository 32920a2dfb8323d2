// The normalized signals every protocol adapter produces. The run reducer in
// src/core consumes only these, so a new agent CLI is one new adapter.

import type { BlockedKind } from '../core/types.js';

export type Signal =
  /** The agent showed its first sign of life (init line, or first output for plain). */
  | { kind: 'alive'; session_id?: string; model?: string }
  | { kind: 'turn_start' }
  /** A turn ended; the process may still be alive waiting for input. */
  | { kind: 'turn_end' }
  /**
   * Token usage to ADD to the run's totals (adapters de-duplicate: a Claude
   * message id is counted once, result summaries are not double counted).
   * `cost_usd_total`, when present, is the agent's own cumulative cost for the
   * session and REPLACES the run's cost.
   */
  | { kind: 'usage'; input: number; output: number; cached: number; cost_usd_total?: number }
  | { kind: 'tool'; name: string; input: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'result'; ok: boolean; text?: string; detail?: string }
  | { kind: 'blocked'; blocked: BlockedKind; retry_after_s?: number; message?: string }
  /** A line that is not part of the protocol: kept as plain output. */
  | { kind: 'output'; line: string };

export interface Adapter<S = Signal> {
  /** Feed one complete output line (without its newline). */
  line(line: string): S[];
  /** The process exited: flush anything pending. */
  end?(): S[];
}

/**
 * One model message finished: a Claude `assistant` message (all lines of one
 * message.id), a Codex tool or message item, a Gemini model response. Loop
 * detection counts these, so an agent repeating one tool call inside a single
 * input turn is caught. It carries nothing: the tool and text signals since
 * the previous boundary are that message's content.
 *
 * Kept out of `Signal` until the supervisor handles it: adapters emit it only
 * when created with `{ modelTurns: true }` (see AdapterOptions), and their
 * `line()` then returns `ExtendedSignal[]`.
 */
export interface ModelTurnSignal {
  kind: 'model_turn';
}

export type ExtendedSignal = Signal | ModelTurnSignal;

export interface AdapterOptions {
  /** Also emit a `model_turn` boundary after each model message. */
  modelTurns?: boolean;
  /**
   * The wall clock (ms since the epoch), for limits stated as a time ("try
   * again at 8:49 AM") rather than a delay. Default Date.now; tests pass a fixed one.
   */
  now?: () => number;
}

/** Options of an adapter that emits plain `Signal`s only. */
export type PlainAdapterOptions = Omit<AdapterOptions, 'modelTurns'> & { modelTurns?: false };

export type ExtendedAdapter = Adapter<ExtendedSignal>;
