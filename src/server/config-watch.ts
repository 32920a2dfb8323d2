// config.json watched while the supervisor runs: each add, change or removal
// is handed to `changed` (which reads it and applies or refuses it). chokidar
// follows editors that save by writing a temporary file and renaming it over
// this one (vim, VS Code), and waits for a write to finish before the file is read.

import chokidar from 'chokidar';

/** Watching once this resolves: an edit made just after the start is not missed. */
export async function watchConfig(file: string, changed: () => void): Promise<{ close(): Promise<void> }> {
  const watcher = chokidar.watch(file, {
    ignoreInitial: true,
    persistent: false,
    atomic: 50,
    awaitWriteFinish: { stabilityThreshold: 60, pollInterval: 20 },
  });
  watcher
    .on('add', changed)
    .on('change', changed)
    .on('unlink', changed)
    .on('error', () => undefined);
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return { close: () => watcher.close() };
}
