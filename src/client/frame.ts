// The supervisor refuses a request line longer than MAX_FRAME_BYTES (UTF-8
// bytes) and drops the connection: every client measures a request first and
// says what is too big, as a usage error, instead of losing its connection.

import { MAX_FRAME_BYTES } from '../protocol/wire.js';
import { UsageError } from './usage-error.js';

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;

function tooLarge(bytes: number, what: string): UsageError {
  return new UsageError(
    `${what}: too large to send: the request would be ${mib(bytes)} (${bytes} bytes as JSON), ` +
      `and the supervisor takes at most ${mib(MAX_FRAME_BYTES)} (${MAX_FRAME_BYTES} bytes) in one request`,
  );
}

/** Throw a usage error when `method(params)` would not fit in one frame; `what` names the big part. */
export function checkFrame(method: string, params: unknown, what: string): void {
  // The id is the longest an id can be; the frame ends with a newline.
  const bytes = Buffer.byteLength(JSON.stringify({ id: Number.MAX_SAFE_INTEGER, method, params })) + 1;
  if (bytes > MAX_FRAME_BYTES) throw tooLarge(bytes, what);
}

/**
 * The check of a line about to be written (without its newline): a usage
 * error when it does not fit, else null. A UTF-16 unit is at most 3 bytes in
 * UTF-8, so short lines are not measured.
 */
export function frameProblem(line: string): UsageError | null {
  if ((line.length + 1) * 3 <= MAX_FRAME_BYTES) return null;
  const bytes = Buffer.byteLength(line) + 1;
  return bytes > MAX_FRAME_BYTES ? tooLarge(bytes, 'the request') : null;
}
