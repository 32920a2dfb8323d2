// The normalized signals an agent's output becomes: what every protocol
// adapter (src/agents) emits and the run reducer (run-progress.ts) consumes,
// so a new agent CLI is one new adapter. Types only.

import type { Ask } from './approvals.js';
import type { BlockedKind } from './types.js';

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
  /**
   * Where the account stands in a usage window (Claude's rate_limit_event,
   * every turn): `window` five_hour, seven_day…, `utilization` 0–1 when
   * given, `resets_at` epoch ms; `status` allowed, allowed_warning, rejected.
   */
  | { kind: 'quota'; window: string; status: string; utilization?: number; resets_at?: number }
  /** The agent CLI retrying a failed API call by itself (Claude's api_retry): not stuck, waiting `delay_ms`. */
  | { kind: 'agent_retry'; attempt?: number; max?: number; error: string; delay_ms?: number }
  /** The agent asks before it uses a tool, or asks a question, and waits for the answer on its input (Claude Code's can_use_tool control request). `input` and `offers` (the agent's own suggestions for allowing the like of it from now on) are kept whole in the run's folder, never in events. */
  | { kind: 'approval'; ask: Ask; input: unknown; offers: unknown }
  /** The agent no longer waits for that answer (Claude Code's control_cancel_request: its turn was interrupted). */
  | { kind: 'approval_withdrawn'; ref: string }
  /** The agent CLI refused a tool by its own settings, nobody asked (no prompt tool in use): what the model was told. */
  | { kind: 'denied'; tool: string; tool_use_id: string | null; message: string }
  /** A line that is not part of the protocol: kept as plain output. */
  | { kind: 'output'; line: string }
  /**
   * A two-way protocol's session is open (Codex app-server's thread, an ACP
   * session): the agent takes input now, the first of this attempt (its
   * prompt) included. orcr, not the agent, starts each turn there.
   */
  /**
   * A two-way protocol's session opened (or loaded); `resume_after`: the
   * earliest wall time (epoch ms) another process may load it (Gemini CLI
   * refuses a load in the minute it was opened and overwrites its history).
   */
  | { kind: 'opened'; session_id: string; resume_after?: number }
  /** A line orcr writes back to the agent at once: the protocol's answer to a request orcr does not serve (a JSON-RPC error). */
  | { kind: 'reply'; line: string }
  /** The agent broke its protocol (a malformed or oversized frame, an answer to nothing): the run is told; `fatal` when its session cannot go on. */
  | { kind: 'protocol_error'; message: string; fatal: boolean };

/**
 * One model message finished: a Claude `assistant` message (all lines of one
 * message.id), a Codex tool or message item, a Gemini model response. Loop
 * detection counts these, so an agent repeating one tool call inside a single
 * input turn is caught. It carries nothing: the tool and text signals since
 * the previous boundary are that message's content.
 *
 * Kept out of `Signal`: adapters emit it only when asked (`{ modelTurns: true }`),
 * and their `line()` then returns `ExtendedSignal[]`.
 */
interface ModelTurnSignal {
  kind: 'model_turn';
}

export type ExtendedSignal = Signal | ModelTurnSignal;
