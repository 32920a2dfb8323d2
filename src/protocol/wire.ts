// The socket's wire: newline-delimited JSON over a Unix socket.
//
//   client → server  {"id": 1, "method": "run.list", "params": {...}}
//   server → client  {"id": 1, "result": {...}}  or  {"id": 1, "error": {"code", "message"}}
//   server → client  {"type": "event", "event": RunEvent, "run": PublicRun | null}  (after subscribe)
//   server → client  {"type": "rows", "seq": N, "runs": PublicRun[], "positions"?: {uuid: N}}  (after subscribe with rows)
//   server → client  {"type": "stopping"}  (to every connection, just before a deliberate stop)
//
// The first request must be `hello` with the client's protocol version; a
// server that does not speak it says so instead of guessing. The methods and
// their parameters and results are in methods.ts.

import type { RunEvent } from '../core/events.js';
import type { PublicRun } from './views.js';

export const PROTOCOL_VERSION = 1;
/** A frame larger than this is refused and the connection closed: nothing legitimate is that big. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
/** Deeper than any request orcr's clients send (a run spec is four levels): a request nested deeper is refused. */
export const MAX_NESTING = 100;
/** The longest path a Unix socket can be bound at (sun_path, less its NUL). */
export const socketPathLimit = 107;
/** The most runs or events one reply carries: every listing is paged. */
export const PAGE = 10_000;

/** A committed event, with the run as it stood when it was written (null for an event about no run). */
export interface EventMessage {
  type: 'event';
  event: RunEvent;
  run: PublicRun | null;
}

/** Queued runs by uuid → their place in admission order (queue_position); null: none now. */
export type QueuePositions = Record<string, number | null>;

/** Rows that changed without an event (last words, tool, output offset), coalesced; `seq`: the last event sent before them. */
export interface RowsMessage {
  type: 'rows';
  seq: number;
  runs: PublicRun[];
  /**
   * The queued runs whose place in admission order moved since the last
   * rows message (a run ahead started or left, one of a higher priority
   * came, the priorities changed): their queue_position now, rows otherwise
   * as last sent. The first one after subscribing holds every queued run's.
   */
  positions?: QueuePositions;
}

/** Sent to every connection just before a deliberate stop. */
export interface StoppingMessage {
  type: 'stopping';
}
