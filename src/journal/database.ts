// The journal's SQLite file: made owner-only, opened in WAL mode and brought
// to this orcr's schema (schema.ts); on a full disk opened so that it reads,
// with the reason it cannot be written.

import fs from 'node:fs';
import Database from 'better-sqlite3';
import { decodeAs, num } from './decode.js';
import { codeOf, JournalVersionError, unavailableReason } from './errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export interface OpenOptions {
  synchronous?: 'normal' | 'full';
  readonly?: boolean;
}

export interface OpenedDatabase {
  db: Database.Database;
  /** Why the store could not be written when it was opened (a full disk), or null. */
  unwritableAtOpen: string | null;
}

/**
 * The journal tells who ran what, where and when: owner-only (0600) whatever
 * the umask. SQLite makes the -wal and -shm files with the database file's
 * mode, so a new database file is made here first; looser files from before
 * are tightened.
 */
function ownerOnly(file: string): void {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch (e) {
    // There already, or a place SQLite will refuse with its own, better message (read-only, missing directory).
    if (codeOf(e) !== 'EEXIST') return;
    fd = -1;
  }
  if (fd >= 0) {
    fs.fchmodSync(fd, 0o600); // a umask can take bits away from the mode asked for, even the owner's
    fs.closeSync(fd);
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(f).mode & 0o077) !== 0) fs.chmodSync(f, 0o600);
    } catch {
      /* missing (SQLite makes it with the database's mode), or on a read-only file system */
    }
  }
}

export function openDatabase(file: string, opts: OpenOptions): OpenedDatabase {
  if (opts.readonly) {
    const db = new Database(file, { readonly: true, timeout: 5000 });
    checkVersion(db);
    return { db, unwritableAtOpen: null };
  }
  ownerOnly(file);
  const db = new Database(file, { readonly: false, timeout: 5000 });
  try {
    db.pragma('journal_mode = WAL');
    setUp(db, opts.synchronous);
    return { db, unwritableAtOpen: null };
  } catch (e) {
    const reason = unavailableReason(e);
    if (reason === null) throw e;
    // A full disk: the WAL's shared-memory index cannot grow, so not even a read works. With the
    // exclusive locking mode SQLite keeps that index in memory (only this process opens the journal):
    // reads work, writes fail until there is room, and the supervisor starts degraded.
    db.close();
    const again = new Database(file, { timeout: 5000 });
    again.pragma('locking_mode = EXCLUSIVE');
    again.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // A store never made (no schema) cannot be served: the original error says why.
    if (userVersion(again) === 0) throw e;
    checkVersion(again);
    return { db: again, unwritableAtOpen: reason };
  }
}

function setUp(db: Database.Database, synchronous: 'normal' | 'full' | undefined): void {
  // NORMAL in WAL mode loses nothing when the process crashes (only on power
  // loss); FULL is offered for those who need that too.
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  // Truncate the WAL back to this size after each checkpoint: bounded on disk.
  db.pragma('journal_size_limit = 16777216');
  // A new store hands pages that retention frees back to the file system
  // (auto_vacuum can only be chosen before the first table exists).
  if (userVersion(db) === 0) db.pragma('auto_vacuum = INCREMENTAL');
  migrate(db);
}

function userVersion(db: Database.Database): number {
  return decodeAs(num, db.pragma('user_version', { simple: true }), 'schema version');
}

function checkVersion(db: Database.Database): number {
  const v = userVersion(db);
  if (v > SCHEMA_VERSION) {
    throw new JournalVersionError(
      `the journal ${db.name} has schema version ${v}, but this orcr understands up to ${SCHEMA_VERSION}: it was written by a newer orcr; upgrade orcr (the journal was not touched)`,
    );
  }
  return v;
}

function migrate(db: Database.Database): void {
  const from = checkVersion(db);
  for (let v = from; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!); // v < SCHEMA_VERSION, which is MIGRATIONS.length
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
}
