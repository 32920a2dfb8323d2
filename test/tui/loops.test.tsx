// `@` with a real supervisor: the loops view lists each loop's schedule, state,
// next fire, last result and runs; p pauses and resumes the selected loop, f
// fires it now; esc goes back.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY } from './helpers.js';
import { Home } from './home.js';
import { liveApp, type LiveApp } from './live-app.js';

let home: Home | null = null;
let app: LiveApp | null = null;

afterEach(() => {
  app?.close();
  app = null;
  home?.cleanup();
  home = null;
});

describe('the loops view', () => {
  it('@ lists the loops; j selects, p pauses and resumes, f fires now and the last result follows; esc goes back', async () => {
    home = new Home();
    expect(home.cli(['loop', 'create', 'nightly', '0 3 * * *', '--tz', 'UTC', '--', 'true']).code).toBe(0);
    expect(home.cli(['loop', 'create', 'soon', '--once-at', '2h', '--', 'true']).code).toBe(0);
    app = liveApp(home, { columns: 120, rows: 30 });
    const { until, press } = app;
    const line = (f: string, name: string): string => f.split('\n').find((l) => l.includes(name)) ?? '';
    await until((f) => f.includes('Runs'), 'the runs');
    await press('@');
    let f = await until((x) => x.includes('Loops · 2') && x.includes('nightly') && x.includes('soon'), 'the loops view');
    expect(f).toMatch(/LOOP\s+SCHEDULE\s+STATE\s+NEXT\s+LAST\s+RUNS/);
    expect(line(f, 'nightly')).toMatch(/0 3 \* \* \*.*UTC.*\bon\b\s+in \S+\s+never ran\s+0\/1 queue/);
    expect(line(f, 'soon')).toMatch(/\bon\b\s+in (1h5\dm|2h(00m)?)/);

    // The second loop, paused and resumed.
    await press('j');
    await press('p');
    f = await until((x) => /soon.*paused/.test(line(x, 'soon')), 'soon to be paused');
    expect(f).toMatch(/soon paused: it fires no more/);
    expect(home.json<{ name: string; paused: boolean }[]>(['loop', 'ls']).find((l) => l.name === 'soon')?.paused).toBe(true);
    await press('p');
    await until((x) => /soon.*\bon\b/.test(line(x, 'soon')), 'soon to be resumed');

    // Fire the first by hand: its run completes and the last result says so.
    await press('k');
    await press('f');
    await until((x) => /nightly.*\bok\b.*ago/.test(line(x, 'nightly')), 'the fired run to be the last result');

    await press(KEY.esc);
    await until((x) => !x.includes('Loops ·') && x.includes('Runs'), 'back to the runs');
  });
});
