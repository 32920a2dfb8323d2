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

export interface Adapter {
  /** Feed one complete output line (without its newline). */
  line(line: string): Signal[];
  /** The process exited: flush anything pending. */
  end?(): Signal[];
}
