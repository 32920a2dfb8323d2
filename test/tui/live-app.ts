// orcr-tui's real pieces on a real supervisor, for tests: the Controller
// (snapshot, stream, stats, actions) and the App rendered by
// ink-testing-library, with keys to press and frames to wait for.

import React from 'react';
import { render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import { ensureHome } from '../../src/config/home.js';
import { Controller } from '../../src/tui/connection/controller.js';
import { createTuiStore, type TuiStore } from '../../src/tui/state/store.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { tick } from './helpers.js';
import { until } from '../support/harness.js';
import type { Home } from './home.js';

export interface LiveApp {
  store: TuiStore;
  ctl: Controller;
  /** The last frame as written (colours included when the test turned them on). */
  frame(): string;
  /** Type keys one at a time, each handled on its own. */
  press(...keys: string[]): Promise<void>;
  /** Wait (15 s at most) for a frame that `pred` accepts: with `plain`, read without its colours. */
  until(pred: (frame: string) => boolean, what: string): Promise<string>;
  /** The same over every frame drawn so far, not only the last: for a line a later one may replace (the footer's). */
  untilDrawn(pred: (frame: string) => boolean, what: string): Promise<string>;
  /** Unmount and stop: the test's afterEach calls it before the home is cleaned up. */
  close(): void;
}

const SGR = /\x1b\[[0-9;]*m/g;

export function liveApp(h: Home, size: { columns: number; rows: number }, opts: { plain?: boolean } = {}): LiveApp {
  const store = createTuiStore({ home: h.dir });
  const ctl = new Controller(store, ensureHome(h.dir), { env: { TERM: 'xterm' }, cwd: h.dir, statsIntervalMs: 200 });
  ctl.start();
  const inst = render(React.createElement(App, { store, actions: ctl, themes: loadThemes([builtinThemeDir()]), onExit: () => undefined, size }));
  const frame = (): string => inst.lastFrame() ?? '';
  const read = (): string => (opts.plain ? frame().replace(SGR, '') : frame());
  return {
    store,
    ctl,
    frame,
    press: async (...keys) => {
      for (const k of keys) {
        inst.stdin.write(k);
        await tick();
      }
    },
    until: (pred, what) =>
      until(
        () => (pred(read()) ? read() : null),
        () => `${what}; last frame:\n${read()}`,
        15_000,
      ),
    untilDrawn: (pred, what) =>
      until(
        () => inst.frames.map((f) => (opts.plain ? f.replace(SGR, '') : f)).find(pred) ?? null,
        () => `${what}; last frame:\n${read()}`,
        15_000,
      ),
    close: () => {
      inst.unmount();
      ctl.stop();
    },
  };
}
