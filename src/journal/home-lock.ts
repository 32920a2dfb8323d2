// An exclusive lock on a file, held for as long as this process keeps it:
// an open SQLite EXCLUSIVE transaction, that is a POSIX record lock (fcntl)
// the kernel drops when the process dies, however it dies.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { codeOf, messageOf } from './errors.js';

export interface HeldLock {
  /** Let go of it (closing is enough: the transaction is never committed). */
  close(): void;
}

/**
 * Take the lock on `file`, made 0600 if missing, or return null when another
 * process holds it. Refuses a file that is not a regular file of ours (a
 * link or a file planted by someone else): whoever can open the file could
 * hold the lock. No wait: a held lock answers at once.
 */
export function lockFile(file: string): HeldLock | null {
  // Made here, not by SQLite (0644 less the umask), and never through a link.
  const { O_RDWR, O_CREAT, O_NOFOLLOW } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(file, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600);
  } catch (e) {
    throw new Error(`cannot open the lock file ${file}: ${messageOf(e)}`);
  }
  try {
    const st = fs.fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile()) throw new Error(`the lock file ${file} is not a regular file; remove it`);
    if (uid !== undefined && st.uid !== uid) throw new Error(`the lock file ${file} is owned by uid ${st.uid}, not you (uid ${uid}); remove it`);
    // Exactly 0600: a umask can take away even the owner's bits, and SQLite needs to write.
    if ((st.mode & 0o777) !== 0o600) fs.fchmodSync(fd, 0o600);
  } finally {
    fs.closeSync(fd);
  }
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: 0 });
  } catch (e) {
    throw new Error(`cannot open the lock file ${file}: ${messageOf(e)}`);
  }
  try {
    // Takes the lock at once; nothing is ever written, so the file stays empty. The rollback journal in
    // memory: no journal file is made either, so the lock is taken on a full disk too (a supervisor then starts degraded).
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if (codeOf(e) === 'SQLITE_BUSY') return null;
    throw new Error(`cannot lock ${file}: ${messageOf(e)} (remove the file while no supervisor runs)`);
  }
  return { close: () => db.close() };
}
