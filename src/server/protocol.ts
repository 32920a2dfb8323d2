// The socket protocol shared by server and client: newline-delimited JSON.
//
//   client → server  {"id": 1, "method": "run.list", "params": {...}}
//   server → client  {"id": 1, "result": {...}}  or  {"id": 1, "error": {"code", "message"}}
//   server → client  {"type": "event", "event": RunEvent, "run": PublicRun | null}  (after subscribe)
//   server → client  {"type": "stopping"}  (to every connection, just before a deliberate stop)
//
// The first request must be `hello` with the client's protocol version; a
// server that does not speak it says so instead of guessing.

export const PROTOCOL_VERSION = 1;
/** A frame larger than this is refused and the connection closed: nothing legitimate is that big. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

export interface Request {
  id: number;
  method: string;
  params?: Record<string, unknown>;
}

export interface ErrorBody {
  code: string;
  message: string;
}

/** Error codes and the CLI exit code each maps to (the README's table of exit codes). */
export const ERROR_EXIT: Readonly<Record<string, number>> = {
  usage: 2,
  config: 2,
  not_found: 6,
  ambiguous: 2,
  queue_full: 7,
  unavailable: 7,
  stopped: 7,
  refused: 7,
  version: 7,
  internal: 1,
  not_idle: 4,
  wait_timeout: 3,
  conflict: 4,
};

export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const socketPathLimit = 107;
