// What the journal throws that its owner acts on: a store written by a newer
// orcr, and a store that cannot be written now.

export class JournalVersionError extends Error {
  override readonly name = 'JournalVersionError';
}

/** The store cannot be written right now (disk full, read-only, I/O error); nothing was committed. */
export class JournalUnavailable extends Error {
  override readonly name = 'JournalUnavailable';
}

const UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY)/;

/** `code: message` of an error SQLite raises when the store cannot be written now, or null for any other. */
export function unavailableReason(e: unknown): string | null {
  const code = codeOf(e);
  return typeof code === 'string' && UNAVAILABLE.test(code) ? `${code}: ${messageOf(e)}` : null;
}

/** An error's message, whatever was thrown. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The code a Node.js or SQLite error carries (`EEXIST`, `SQLITE_BUSY`), or undefined. */
export function codeOf(e: unknown): unknown {
  return e instanceof Error && 'code' in e ? e.code : undefined;
}
