// ORCR_HOME: where everything lives, and the safety checks on it. A home that
// others can write to would let them inject commands through the socket or
// the journal, so it is refused rather than repaired behind the user's back.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class HomeError extends Error {
  override readonly name = 'HomeError';
}

export interface Home {
  dir: string;
  config: string;
  db: string;
  socket: string;
  lock: string;
  log: string;
  runs: string;
}

export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.ORCR_HOME && env.ORCR_HOME.trim() !== '' ? env.ORCR_HOME : path.join(os.homedir(), '.orcr');
  return path.resolve(dir);
}

export function homePaths(dir: string): Home {
  return {
    dir,
    config: path.join(dir, 'config.json'),
    db: path.join(dir, 'orcr.db'),
    socket: path.join(dir, 'orcr.sock'),
    lock: path.join(dir, 'server.lock'),
    log: path.join(dir, 'server.log'),
    runs: path.join(dir, 'runs'),
  };
}

export function runDir(home: Home, uuid: string): string {
  return path.join(home.runs, uuid);
}

/**
 * The real path of `dir` (absolute), every link on the way followed, and each
 * checked before it is followed: a link owned by anyone but the caller or
 * root is refused, since its owner can point it elsewhere at any moment (a
 * shared /tmp). Components that do not exist yet are kept as given.
 */
export function realHome(dir: string): string {
  const uid = process.getuid?.();
  const todo = path
    .resolve(dir)
    .split('/')
    .filter((p) => p !== '');
  let cur = '/';
  let links = 0;
  while (todo.length > 0) {
    const part = todo.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      // `cur` has no link in it: its parent is the real parent.
      cur = path.dirname(cur);
      continue;
    }
    const next = path.join(cur, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(next);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return path.resolve(next, ...todo);
      throw new HomeError(`cannot use ORCR_HOME ${dir}: ${(e as Error).message}`);
    }
    if (!st.isSymbolicLink()) {
      cur = next;
      continue;
    }
    if (uid !== undefined && st.uid !== uid && st.uid !== 0) {
      throw new HomeError(
        `ORCR_HOME ${dir} is reached through the link ${next}, owned by uid ${st.uid} (not you, uid ${uid}, or root): its owner can point it anywhere; give the path it leads to`,
      );
    }
    if (++links > 40) throw new HomeError(`cannot use ORCR_HOME ${dir}: too many levels of symbolic links`);
    const target = fs.readlinkSync(next);
    if (path.isAbsolute(target)) cur = '/';
    todo.unshift(...target.split('/').filter((p) => p !== ''));
  }
  return cur;
}

/**
 * Create the home (0700) if missing and refuse one that is unsafe. The home
 * is resolved here, once: the paths returned (socket, lock, journal, log,
 * runs) are real, so a link flipped after the check cannot send a request
 * to someone else's socket. Callers keep the Home and use its paths only.
 */
export function ensureHome(dir: string): Home {
  // Checked before anything is made through the links, and again after: a
  // link planted meanwhile where a folder was missing is seen.
  const planned = realHome(dir);
  try {
    fs.mkdirSync(planned, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new HomeError(`cannot create ORCR_HOME ${dir}: ${(e as Error).message}`);
  }
  const real = realHome(dir);
  checkHome(real);
  const home = homePaths(real);
  fs.mkdirSync(home.runs, { recursive: true, mode: 0o700 });
  return home;
}

export function checkHome(dir: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch (e) {
    throw new HomeError(`cannot use ORCR_HOME ${dir}: ${(e as Error).message}`);
  }
  if (!st.isDirectory()) throw new HomeError(`ORCR_HOME ${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new HomeError(`ORCR_HOME ${dir} is owned by uid ${st.uid}, not you (uid ${uid}); refusing to use it`);
  }
  if ((st.mode & 0o022) !== 0) {
    throw new HomeError(`ORCR_HOME ${dir} is writable by group or others (mode ${(st.mode & 0o777).toString(8)}); run: chmod 700 ${dir}`);
  }
}
