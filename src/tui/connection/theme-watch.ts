// The user's themes folder ($ORCR_HOME/themes), watched while the TUI runs so
// an edited theme is redrawn at once. chokidar follows editors that save by
// writing a temporary file and renaming it over the theme (vim, VS Code) and
// waits for a write to finish, so a half-written file is not read; a file
// that still does not read is refused by the reload (see loadThemes).

import fs from 'node:fs';
import chokidar from 'chokidar';

export interface ThemeWatch {
  close(): Promise<void>;
}

/** Call `changed` after any theme file in `dir` is added, changed or removed (edits close together: once). */
export function watchThemes(dir: string, changed: () => void): ThemeWatch {
  try {
    // Watched from the start, so a first theme dropped in later is seen too.
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    /* a home we may not write: nothing to watch but what is there */
  }
  let timer: NodeJS.Timeout | null = null;
  const kick = (file: string): void => {
    if (!file.endsWith('.json')) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      changed();
    }, 20);
  };
  const watcher = chokidar.watch(dir, {
    ignoreInitial: true,
    persistent: false,
    depth: 0,
    atomic: 50,
    awaitWriteFinish: { stabilityThreshold: 60, pollInterval: 20 },
  });
  watcher
    .on('add', kick)
    .on('change', kick)
    .on('unlink', kick)
    .on('error', () => undefined);
  // What is saved before chokidar's first scan ends is part of that scan, which
  // ignoreInitial keeps quiet: an edit in the first moments (a loaded machine
  // makes them seconds) would be missed. Once ready, a theme written since this
  // process started may be newer than what was loaded: read them again, once.
  watcher.on('ready', () => {
    if (editedSince(dir, performance.timeOrigin)) kick('ready.json');
  });
  return {
    close: async () => {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}

function editedSince(dir: string, ms: number): boolean {
  try {
    return fs.readdirSync(dir).some((f) => f.endsWith('.json') && fs.statSync(`${dir}/${f}`, { throwIfNoEntry: false })?.mtimeMs! >= ms);
  } catch {
    return false;
  }
}
