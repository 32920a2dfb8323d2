// The SDK's one error type: the code the CLI would print in
// `{"error":{"code",…}}` and the exit code it would exit with, so a program
// branches on the same things a shell script does.

import { ConfigError } from '../config/errors.js';
import { HomeError } from '../config/home.js';
import { UsageError } from '../client/usage-error.js';
import { ERROR_EXIT, isErrorCode, RemoteError, type ErrorCode } from '../protocol/errors.js';

/** Every code a call may fail with (the README's exit-code table, by cause): the protocol's, and the SDK's own `pruned`. */
export type OrcrErrorCode = ErrorCode | 'pruned';

/** The SDK's own codes, beyond the CLI's: events asked for that retention removed is "not there" (6), as a run would be. */
const SDK_EXIT: Readonly<Record<OrcrErrorCode, number>> = { ...ERROR_EXIT, pruned: 6 };

export class OrcrError extends Error {
  override readonly name = 'OrcrError';
  /** What `orcr` would exit with for this error. */
  readonly exitCode: number;
  /** With `pruned`: the oldest event the journal still holds. */
  readonly firstSeq?: number;
  constructor(
    readonly code: OrcrErrorCode,
    message: string,
    detail: { firstSeq?: number } = {},
  ) {
    super(message);
    this.exitCode = SDK_EXIT[code] ?? 1;
    if (detail.firstSeq !== undefined) this.firstSeq = detail.firstSeq;
  }
}

/** Any failure below the SDK, as an OrcrError (a programming error stays what it is). */
export function toOrcrError(e: unknown): unknown {
  if (e instanceof OrcrError) return e;
  if (e instanceof RemoteError) return new OrcrError(isErrorCode(e.code) ? e.code : 'internal', e.message);
  if (e instanceof UsageError || e instanceof HomeError) return new OrcrError('usage', e.message);
  if (e instanceof ConfigError) return new OrcrError('config', e.message);
  return e;
}

export async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toOrcrError(e);
  }
}
