// The operating system's limits as errors: out of processes (EAGAIN from
// fork), out of descriptors (EMFILE for this process, ENFILE for the whole
// system). Each is a passing state, not a verdict on what was attempted: the
// caller waits and tries again, and records nothing as failed because of it.

const CODES = new Set(['EAGAIN', 'EMFILE', 'ENFILE']);

/** An error that says a limit of the machine was met, not that the thing attempted is wrong. */
export function isResourceLimit(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CODES.has(code);
}

/** Which limit, in a person's words. */
export function limitName(code: string): string {
  return code === 'EAGAIN' ? 'process limit' : code === 'ENFILE' ? "the system's file limit" : 'file descriptor limit';
}

/** A file that exists could not be read for a passing reason (a limit, an I/O error): read it again later. */
export class Unreadable extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
  ) {
    super(`${file}: ${code}`);
  }
}
