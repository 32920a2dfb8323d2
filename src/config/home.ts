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

/** Create the home (0700) if missing and refuse one that is unsafe. */
export function ensureHome(dir: string): Home {
  const home = homePaths(dir);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new HomeError(`cannot create ORCR_HOME ${dir}: ${(e as Error).message}`);
  }
  checkHome(dir);
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
    throw new HomeError(
      `ORCR_HOME ${dir} is writable by group or others (mode ${(st.mode & 0o777).toString(8)}); run: chmod 700 ${dir}`,
    );
  }
}
