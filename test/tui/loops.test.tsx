// `@` with a real supervisor: the loops view lists each loop's schedule, state,
// next fire, last result and runs; p pauses and resumes the selected loop, f
// fires it now; esc goes back.

import './no-ci.js';
import React from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/tui/app.js';
import { ensureHome } from '../../src/config/home.js';
import { Controller } from '../../src/tui/connection/controller.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { KEY, tick } from './helpers.js';
import { Home, waitFor } from './home.js';

let home: Home | null = null;
let controller: Controller | null = null;
let unmount: (() => void) | null = null;

afterEach(() => {
  unmount?.();
  controller?.stop();
  home?.cleanup();
  unmount = null;
  controller = null;
  home = null;
});

describe('the loops view', () => {
  it('@ lists the loops; j selects, p pauses and resumes, f fires now and the last result follows; esc goes back', async () => {
    home = new Home();
    expect(home.cli(['loop', 'create', 'nightly', '0 3 * * *', '--tz', 'UTC', '--', 'true']).code).toBe(0);
    expect(home.cli(['loop', 'create', 'soon', '--once-at', '2h', '--', 'true']).code).toBe(0);
    const store = createTuiStore({ home: home.dir });
    const ctl = new Controller(store, ensureHome(home.dir), { env: { TERM: 'xterm' }, cwd: home.dir, statsIntervalMs: 200 });
    controller = ctl;
    ctl.start();
    const inst = render(React.createElement(App, { store, actions: ctl, themes: loadThemes([builtinThemeDir()]), onExit: () => undefined, size: { columns: 120, rows: 30 } }));
    unmount = () => inst.unmount();
    const frame = (): string => inst.lastFrame() ?? '';
    const until = (pred: (f: string) => boolean, what: string): Promise<string> => waitFor(() => (pred(frame()) ? frame() : null), () => `${what}; last frame:\n${frame()}`, 15_000);
    const line = (f: string, name: string): string => f.split('\n').find((l) => l.includes(name)) ?? '';
    await until((f) => f.includes('Runs'), 'the runs');
    inst.stdin.write('@');
    await tick();
    let f = await until((x) => x.includes('Loops · 2') && x.includes('nightly') && x.includes('soon'), 'the loops view');
    expect(f).toMatch(/LOOP\s+SCHEDULE\s+STATE\s+NEXT\s+LAST\s+RUNS/);
    expect(line(f, 'nightly')).toMatch(/0 3 \* \* \*.*UTC.*\bon\b\s+in \S+\s+never ran\s+0\/1 queue/);
    expect(line(f, 'soon')).toMatch(/\bon\b\s+in (1h5\dm|2h(00m)?)/);

    // The second loop, paused and resumed.
    inst.stdin.write('j');
    await tick();
    inst.stdin.write('p');
    f = await until((x) => /soon.*paused/.test(line(x, 'soon')), 'soon to be paused');
    expect(f).toMatch(/soon paused: it fires no more/);
    expect(home.json<{ name: string; paused: boolean }[]>(['loop', 'ls']).find((l) => l.name === 'soon')?.paused).toBe(true);
    inst.stdin.write('p');
    await until((x) => /soon.*\bon\b/.test(line(x, 'soon')), 'soon to be resumed');

    // Fire the first by hand: its run completes and the last result says so.
    inst.stdin.write('k');
    await tick();
    inst.stdin.write('f');
    await until((x) => /nightly.*\bok\b.*ago/.test(line(x, 'nightly')), 'the fired run to be the last result');

    inst.stdin.write(KEY.esc);
    await until((x) => !x.includes('Loops ·') && x.includes('Runs'), 'back to the runs');
  });
});
