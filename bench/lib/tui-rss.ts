// Run as its own process (node --expose-gc, ORCR_HOME set): the real
// orcr-tui pieces — the Controller (snapshot, stream, stats) and the App
// rendered by Ink to a fake 160x50 terminal — attached to a running
// supervisor whose home already holds its runs. Once the snapshot is in and
// a few frames are drawn, prints {"rssMb", "heapMb", "held"}: the process's
// RSS and heap after a full GC, and the runs the TUI holds.

process.env.NODE_ENV = 'production';
delete process.env.CI;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const dir = process.env.ORCR_HOME;
if (!dir) throw new Error('ORCR_HOME must name the home');

const { renderOnFakeTerminal } = await import('./fake-terminal.js');
const { createTuiStore } = await import('../../src/tui/state/store.js');
const { Controller } = await import('../../src/tui/connection/controller.js');
const { homePaths } = await import('../../src/config/home.js');

const store = createTuiStore({ home: dir, theme: 'dark' });
const ctl = new Controller(store, homePaths(dir), { quiet: true, env: { TERM: 'xterm-256color' }, cwd: dir });
ctl.start();
const tui = await renderOnFakeTerminal(store, { actions: ctl });
const deadline = Date.now() + 30_000;
while (!(store.getState().loaded && store.getState().stats !== null)) {
  if (Date.now() > deadline) throw new Error('the TUI never loaded its snapshot and stats');
  await new Promise((r) => setTimeout(r, 20));
}
// A couple of clock ticks: the frames a person would see in the first seconds.
await new Promise((r) => setTimeout(r, 2500));
gc();
gc();
const mem = process.memoryUsage();
const held = Object.keys(store.getState().runs.byId).length;
tui.unmount();
ctl.stop();
process.stdout.write(JSON.stringify({ rssMb: mem.rss / 1e6, heapMb: mem.heapUsed / 1e6, held }) + '\n');
process.exit(0);
