// Older ended runs against a real supervisor: a home with more ended runs
// than the TUI's window shows the most recent ones, says how many it left
// out, and pages them in from run.list when `o` is pressed.

import './no-ci.js';
import React from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { ensureHome } from '../../src/config/home.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { App } from '../../src/tui/app.js';
import { Controller } from '../../src/tui/connection/controller.js';
import { ENDED_WINDOW } from '../../src/tui/state/ended-window.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { until } from '../support/harness.js';
import { Home } from './home.js';

let home: Home | null = null;
let controller: Controller | null = null;

afterEach(() => {
  controller?.stop();
  controller = null;
  home?.cleanup();
  home = null;
});

const OLD = 400;

describe('older ended runs with a real supervisor', () => {
  it('the window holds the most recent ended runs, the list says how many are older, and o pages them in', async () => {
    home = new Home({ concurrency: { max: 1 } });
    home.run(['-n', 'holder', '--', 'sh', '-c', 'sleep 30']);
    // Queued behind the holder and canceled at once: ended runs without a process each.
    const c = await Client.connect(ensureHome(home.dir));
    const n = ENDED_WINDOW + OLD;
    const specs = Array.from({ length: n }, (_, i) => ({ cwd: home!.dir, command: ['true'], name: `past-${String(i).padStart(4, '0')}` }));
    const { runs } = await c.call('run.enqueue', { specs });
    await c.call('run.kill', { refs: runs.map((r) => r.uuid) });
    c.close();

    const store = createTuiStore({ home: home.dir });
    const ctl = new Controller(store, ensureHome(home.dir), { quiet: true, env: { TERM: 'xterm' }, cwd: home.dir });
    controller = ctl;
    ctl.start();
    const inst = render(
      React.createElement(App, { store, actions: ctl, themes: loadThemes([builtinThemeDir()]), onExit: () => undefined, size: { columns: 120, rows: 40 } }),
    );
    try {
      const frame = (): string => inst.lastFrame() ?? '';
      await until(() => frame().includes(`${OLD} older ended runs not shown — L loads 500 more`), 'the line saying older runs are left out');
      const held = (): PublicRun[] => Object.values(store.getState().runs.byId);
      expect(held().filter((r) => r.status === 'ended')).toHaveLength(ENDED_WINDOW);
      expect(held().find((r) => r.name === 'holder')?.status).toBe('working');
      // The ones let go are the first queued (canceled together, the later queued counts as the newer).
      expect(held().some((r) => r.name === 'past-0000')).toBe(false);

      inst.stdin.write('L');
      await until(() => frame().includes(`loaded ${OLD} older ended runs (none older)`), 'the page to come in');
      expect(held().filter((r) => r.status === 'ended')).toHaveLength(n);
      expect(held().find((r) => r.name === 'past-0000')?.exit_reason).toBe('canceled');
      expect(frame()).not.toContain('older ended runs not shown');
      expect(frame()).toContain(`Runs ${n + 1}/${n + 1}`);

      inst.stdin.write('L');
      await until(() => frame().includes('no older ended runs: every one is listed'), 'nothing more to load');
    } finally {
      inst.unmount();
    }
  });
});

describe('a home with more runs than the snapshot sends', () => {
  it('every active run comes with it, however old; the older ended ones are counted and paged in from below the oldest ended one sent', async () => {
    home = new Home({ concurrency: { max: 1 } });
    // The first run ever queued still works: 5,400 newer ones end before the TUI starts.
    home.run(['-n', 'ancient', '--', 'sh', '-c', 'sleep 60']);
    const c = await Client.connect(ensureHome(home.dir));
    for (let k = 0; k < 5400; k += 900) {
      const specs = Array.from({ length: 900 }, (_, i) => ({ cwd: home!.dir, command: ['true'], name: `later-${String(k + i).padStart(4, '0')}` }));
      const { runs } = await c.call('run.enqueue', { specs });
      await c.call('run.kill', { refs: runs.map((r) => r.uuid) });
    }
    c.close();
    const store = createTuiStore({ home: home.dir });
    const ctl = new Controller(store, ensureHome(home.dir), { quiet: true, env: { TERM: 'xterm' }, cwd: home.dir });
    controller = ctl;
    ctl.start();
    await until(() => store.getState().loaded, 'the snapshot');
    const held = (): PublicRun[] => Object.values(store.getState().runs.byId);
    expect(held().find((r) => r.name === 'ancient')?.status).toBe('working');
    // 4,999 ended ones were sent (the window keeps 1,000); the rest are counted, not lost.
    const older = store.getState().older;
    expect(older.hidden).toBe(5400 - ENDED_WINDOW);
    // The next page starts below the oldest ended run sent, not below the ancient active one.
    ctl.older.load();
    await until(() => held().filter((r) => r.status === 'ended').length > ENDED_WINDOW, 'a page of older ended runs');
    const names = held()
      .filter((r) => r.status === 'ended')
      .map((r) => r.name)
      .sort();
    expect(names[0]).not.toBe('later-0000');
    expect(names).toContain(`later-${String(5400 - ENDED_WINDOW - 1).padStart(4, '0')}`);
  });
});
