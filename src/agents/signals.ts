// What an adapter is: one protocol's output lines in, normalized signals out.
// The signals themselves are the run reducer's vocabulary (src/core/signals.ts):
// a new agent CLI is one new adapter, and nothing else changes.

import type { ExtendedSignal, Signal } from '../core/signals.js';

export type { ExtendedSignal, Signal } from '../core/signals.js';

export interface Adapter<S = Signal> {
  /** Feed one complete output line (without its newline). */
  line(line: string): S[];
  /** The process exited: flush anything pending. */
  end?(): S[];
}

export interface AdapterOptions {
  /** Also emit a `model_turn` boundary after each model message. */
  modelTurns?: boolean;
  /**
   * The wall clock (ms since the epoch), for limits stated as a time ("try
   * again at 8:49 AM") rather than a delay. Default Date.now; tests pass a fixed one.
   */
  now?: () => number;
  /**
   * Which attempt of its run the agent process is (0 for the first): a
   * two-way protocol's request ids are its process's own, so the refs of its
   * requests carry it.
   */
  attempt?: number;
  /**
   * A two-way protocol's session was opened before this reader began (its
   * answer read by an earlier supervisor: the run is past `starting`): what
   * follows is the run's work, not a loaded session's replay.
   */
  opened?: boolean;
}

/** Options of an adapter that emits plain `Signal`s only. */
export type PlainAdapterOptions = Omit<AdapterOptions, 'modelTurns'> & { modelTurns?: false };

export type ExtendedAdapter = Adapter<ExtendedSignal>;
