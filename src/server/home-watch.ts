// Is the home still the one this supervisor locked? A home deleted under a
// running supervisor (rm -rf, a cleanup script) left it running on unlinked
// files, and a new supervisor started beside it for the recreated home: two
// writers of one fleet. The lock file's and the directory's inodes are
// checked every few seconds (a stat each: nothing for an idle supervisor);
// either gone or replaced, the supervisor stops.

import fs from 'node:fs';
import type { Home } from '../config/home.js';

export interface HomeWatch {
  close(): void;
}

const inode = (file: string): string | null => {
  try {
    const st = fs.statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch (e) {
    // Only its absence counts: a stat refused for a passing reason (out of descriptors does not apply) is looked at again.
    return (e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR' ? null : 'unknown';
  }
};

/** Call `gone` once with a reason when the home's directory or its lock file is removed or replaced. */
export function watchHome(home: Home, gone: (why: string) => void, everyMs = 2000): HomeWatch {
  const dir = inode(home.dir);
  const lock = inode(home.lock);
  const timer = setInterval(() => {
    const d = inode(home.dir);
    const l = inode(home.lock);
    if (d === 'unknown' || l === 'unknown') return;
    const why =
      d === null
        ? `the home ${home.dir} was deleted`
        : d !== dir
          ? `the home ${home.dir} was replaced by another directory`
          : l === null
            ? `the lock file ${home.lock} was deleted`
            : l !== lock
              ? `the lock file ${home.lock} was replaced`
              : null;
    if (why === null) return;
    clearInterval(timer);
    gone(why);
  }, everyMs);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
