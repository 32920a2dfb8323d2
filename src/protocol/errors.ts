// The error codes a call fails with, each with the CLI exit code it maps to
// (the README's table of exit codes), declared once: the server answers with
// them, the CLI exits with them, the SDK's OrcrError carries them.

export const ERROR_EXIT = {
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
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_EXIT;

export const ERROR_CODES = Object.keys(ERROR_EXIT) as ErrorCode[];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_EXIT, code);
}

/** The exit code for an error code; 1 for a code this version does not know. */
export function exitCodeOf(code: string): number {
  return isErrorCode(code) ? ERROR_EXIT[code] : 1;
}

/** What an error reply carries: `{"id", "error": {"code", "message"}}`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
}

/** A failure the server answers with (thrown by a handler, or rebuilt by a client from the reply). */
export class RemoteError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}
