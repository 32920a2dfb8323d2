// The real orcr-tui App rendered by Ink to a fake 160x50 terminal, for the
// bench scripts that measure the TUI in-process (tui-frame, tui-heap,
// tui-rss). Import it after the script has set NODE_ENV and removed CI: Ink
// reads CI when it loads (and buffers every frame under it).

import { PassThrough, Writable } from 'node:stream';
import type { Actions } from '../../src/tui/input/actions.js';
import type { TuiStore } from '../../src/tui/state/store.js';

const noop = (): void => undefined;
/** Actions that do nothing (every port, every method): the scripts change the store themselves. */
const NO_PORT = new Proxy({}, { get: () => noop });
const NO_ACTIONS = new Proxy({}, { get: () => NO_PORT }) as Actions;

export interface FakeTerminalOptions {
  actions?: Actions;
  /** Ink's cap on frames a second (its default when absent). */
  maxFps?: number;
  /** Only the lines that changed, as orcr-tui draws. */
  incremental?: boolean;
}

export async function renderOnFakeTerminal(store: TuiStore, opts: FakeTerminalOptions = {}): Promise<{ unmount: () => void; written: () => number }> {
  const { render } = await import('ink');
  const React = (await import('react')).default;
  const { App } = await import('../../src/tui/app.js');
  const { builtinThemeDir, loadThemes } = await import('../../src/tui/view/theme.js');
  let bytes = 0;
  const stdout = Object.assign(
    new Writable({
      write: (c: Buffer | string, _e, cb) => {
        bytes += c.length;
        cb();
      },
    }),
    { isTTY: true, columns: 160, rows: 50 },
  );
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => stdin, ref: () => stdin, unref: () => stdin });
  const inst = render(React.createElement(App, { store, actions: opts.actions ?? NO_ACTIONS, themes: loadThemes([builtinThemeDir()]), onExit: noop }), {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: stdin as unknown as NodeJS.ReadStream,
    patchConsole: false,
    exitOnCtrlC: false,
    ...(opts.maxFps !== undefined ? { maxFps: opts.maxFps } : {}),
    ...(opts.incremental ? { incrementalRendering: true } : {}),
  });
  return { unmount: () => inst.unmount(), written: () => bytes };
}
