// The supervisor refuses a request line longer than MAX_FRAME_BYTES and drops
// the connection: measure a large request first and say what is too big.

import { MAX_FRAME_BYTES } from '../server/protocol.js';
import { UsageError } from './usage-error.js';

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;

/** Throw a usage error when `method(params)` would not fit in one frame; `what` names the big part. */
export function checkFrame(method: string, params: unknown, what: string): void {
  // The id is the longest an id can be; the frame ends with a newline.
  const bytes = Buffer.byteLength(JSON.stringify({ id: Number.MAX_SAFE_INTEGER, method, params })) + 1;
  if (bytes > MAX_FRAME_BYTES) {
    throw new UsageError(
      `${what}: too large to send: the request would be ${mib(bytes)} (${bytes} bytes as JSON), ` +
        `and the supervisor takes at most ${mib(MAX_FRAME_BYTES)} (${MAX_FRAME_BYTES} bytes) in one request`,
    );
  }
}
