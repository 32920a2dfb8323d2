// orcr-tui in a real terminal (a pseudo-terminal read by a terminal emulator) at its edges: a user's theme named by
// its file, small terminals, TERM=dumb, and what it says when it quits.

import './no-ci.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinThemeDir } from '../../src/tui/view/theme.js';
import { until } from '../support/harness.js';
import { Home } from './home.js';
import { processesMentioning, Term } from './term.js';

let home: Home | null = null;
let term: Term | null = null;

afterEach(() => {
  term?.kill();
  term = null;
  home?.cleanup();
  home = null;
});

const DARK = fs.readFileSync(path.join(builtinThemeDir()!, 'dark.json'), 'utf8');

function userTheme(h: Home, file: string, text: string): string {
  const dir = path.join(h.dir, 'themes');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
  return path.join(dir, file);
}

describe('orcr-tui at its edges', () => {
  it('--theme mine opens a copy of dark.json saved as themes/mine.json (its "name": "dark" notwithstanding)', async () => {
    home = new Home();
    home.run(['-n', 'sleeper', '--', 'sh', '-c', 'sleep 60']);
    userTheme(home, 'mine.json', DARK);
    term = new Term(home, 120, 40);
    term.start('first', ['--theme', 'mine']);
    const s = await term.waitFor((x) => x.includes('sleeper') || x.includes('[exit'), 'the TUI, or its exit');
    expect(s).not.toContain('no theme named');
    expect(s).toContain('theme: mine');
  });

  it('a user file named like a built-in theme replaces it, and the TUI says so at start and in its theme list', async () => {
    home = new Home();
    home.run(['-n', 'sleeper', '--', 'sh', '-c', 'sleep 60']);
    const file = userTheme(home, 'dark.json', DARK);
    term = new Term(home, 200, 40);
    term.start('first', ['--theme', 'dark']);
    await term.waitFor((x) => x.includes(`theme dark: ${file} is used instead of the built-in dark`), 'the notice at start');
    term.keys('?');
    await term.waitFor((x) => x.includes('dark is yours (replaces the built-in)'), 'the theme list to say so');
  });

  it('q says, in sentences, what keeps going: one run, then none', async () => {
    home = new Home();
    const h = home;
    h.run(['-n', 'sleeper', '--', 'sh', '-c', 'sleep 60']);
    await until(() => h.ps().find((r) => r.name === 'sleeper')?.status === 'working', 'the run to work');
    term = new Term(h, 120, 30);
    const t = term;
    t.start('first');
    await t.waitFor((x) => /● working/.test(x) && x.includes('sleeper'), 'the TUI');
    t.keys('q');
    await t.waitFor((x) => x.includes('[exit 0]'), 'the exit');
    const pid = h.json<{ pid: number }>(['server', 'status']).pid;
    expect(t.joined()).toContain(
      `orcr-tui: bye. 1 working run has not ended: it keeps going under the supervisor (pid ${pid}) of ${h.dir}. \`orcr ps\` lists it.`,
    );
    h.cli(['kill', 'sleeper']);
    await until(() => h.ps().every((r) => r.status === 'ended'), 'the run to end');
    t.start('second');
    await t.waitFor((x) => x.includes('sleeper') && /■ ended/.test(x), 'the TUI again');
    t.keys('q');
    await t.waitFor((x) => x.includes('[exit 0]'), 'the exit');
    expect(t.joined()).toContain(`orcr-tui: bye. No run is active; the supervisor (pid ${pid}) of ${h.dir} keeps running.`);
  });

  it('80x24 keeps "? help" and "q quit"; below 40 columns it says the terminal is too small (only q works), and comes back when it grows', async () => {
    home = new Home();
    home.run(['-n', 'sleeper', '--', 'sh', '-c', 'sleep 60']);
    term = new Term(home, 80, 24);
    const t = term;
    t.start('first');
    let s = await t.waitFor((x) => x.includes('sleeper') && /● working/.test(x), 'the TUI at 80x24');
    const keys = s.split('\n').at(-1)!;
    expect(keys).toContain('? help');
    expect(keys).toContain('q quit');
    t.resize(30, 15);
    s = await t.waitFor((x) => x.includes('too small'), 'the notice');
    expect(s.replace(/\s+/g, ' ')).toContain(
      'orcr-tui: this terminal is 30x15, too small to show the runs: it needs at least 40x10. Make it larger, or press q to quit.',
    );
    for (const l of s.split('\n')) expect(l.length).toBeLessThanOrEqual(30);
    // Keys that would act on a run do nothing while nothing is shown, and it says so
    // (which is also what shows the key was read before the terminal grows).
    t.keys('x');
    s = await t.waitFor((x) => x.replace(/\s+/g, ' ').includes('Other keys do nothing until it is larger.'), 'the ignored key said');
    for (const l of s.split('\n')) expect(l.length).toBeLessThanOrEqual(30);
    t.resize(80, 24);
    s = await t.waitFor((x) => x.includes('sleeper') && !x.includes('too small'), 'the runs again');
    expect(s).not.toContain('kill sleeper?');
    t.resize(30, 15);
    await t.waitFor((x) => x.includes('too small'), 'the notice again');
    t.keys('q');
    await t.waitFor((x) => x.includes('[exit 0]'), 'q to quit');
  });

  it('TERM=dumb: a clear refusal, exit 2, the screen never switched', async () => {
    home = new Home();
    term = new Term(home, 100, 20);
    const t = term;
    t.start('first', [], { TERM: 'dumb' });
    const s = await t.waitFor((x) => x.includes('[exit'), 'the exit');
    expect(s).toContain('[exit 2]');
    expect(t.joined()).toContain('orcr-tui: TERM=dumb: this terminal cannot move its cursor, which a full-screen view needs. `orcr ps` lists the runs');
    expect(t.altScreen()).toBe(false);
  });

  it('--demo leaves nothing behind when it cannot open (--theme nope) or is interrupted while its fleet is made (ctrl-c)', async () => {
    home = new Home();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-test-'));
    try {
      term = new Term(home, 120, 20);
      const t = term;
      t.start('first', ['--demo', '--theme', 'nope'], { TMPDIR: tmp });
      const s = await t.waitFor((x) => x.includes('[exit'), 'the refusal');
      expect(s).toContain('[exit 2]');
      expect(s).toContain('no theme named "nope"');
      expect(fs.readdirSync(tmp)).toEqual([]);

      t.start('second', ['--demo'], { TMPDIR: tmp });
      await t.waitFor((x) => x.includes('creating a demo home'), 'the demo being made');
      t.keys('C-c');
      await t.waitFor((x) => /\[exit (130|0)\]/.test(x), 'the TUI to exit', 60_000);
      await until(() => fs.readdirSync(tmp).length === 0, 'the demo home to be removed', 30_000);
      // The demo's processes name its home (TMPDIR/orcr-demo-…); the pane's shell names only TMPDIR.
      const demoHomes = path.join(tmp, 'orcr-demo-');
      await until(() => processesMentioning(demoHomes).length === 0, 'every process of the demo to be gone', 30_000);
    } finally {
      for (const pid of processesMentioning(path.join(tmp, 'orcr-demo-'))) process.kill(pid, 'SIGKILL');
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});
