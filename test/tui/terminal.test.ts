// orcr-tui in a real terminal (a pseudo-terminal read by a terminal emulator,
// test/support/terminal.ts; tmux only for a take-over inside tmux): what a person sees at 120x40, a kill
// from the keyboard that `orcr ps` agrees with, `w` on an interactive agent,
// a resize to 80x24, and quitting/restarting while agents work.
// Every wait polls the screen; nothing sleeps a fixed time.

import './no-ci.js';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { ensureHome } from '../../src/config/home.js';
import { until } from '../support/harness.js';
import { initRepo } from '../support/git.js';
import { Home, MOCK_AGENT, TUI } from './home.js';
import { itWhen } from '../support/skip.js';
import { processesMentioning, Term, TmuxTerm, TMUX_NEED } from './term.js';

const HAS_MOCK = fs.existsSync(MOCK_AGENT);
const MOCK_NEED = { reason: HAS_MOCK ? null : `${MOCK_AGENT} is missing (npm run build makes it)` };
if (!HAS_MOCK) process.stderr.write(`terminal.test.ts: ${MOCK_AGENT} is missing: the idle/interactive parts are skipped\n`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

const REASONS = /^(completed|errored|killed|timeout|budget|loop|canceled|failed|expired|lost)\s/;

/** The status word on a run's row: "● working  …  work-2" → "working" (ended rows: "ended:killed"). */
function rowStatus(screen: string, name: string): string | null {
  const named = new RegExp(`(^|\\s)${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`);
  for (const line of screen.split('\n')) {
    // After the status, WHY (a reason, a blocked kind or what holds a queued run, several words), then the name.
    const m = line.match(/^[› ] [○◐●◇▲■] (\w+)\s+(.*)$/);
    if (!m || !named.test(m[2]!)) continue;
    return m[1] === 'ended' ? `ended:${m[2]!.match(REASONS)?.[1] ?? '?'}` : m[1]!;
  }
  return null;
}

function psStatus(home: Home): Map<string, string> {
  return new Map(home.ps().map((r) => [r.name, r.status === 'ended' ? `ended:${r.exit_reason}` : r.status]));
}

let home: Home | null = null;
let term: Term | null = null;
let tmux: TmuxTerm | null = null;

afterEach(() => {
  term?.kill();
  term = null;
  tmux?.kill();
  tmux = null;
  home?.cleanup();
  home = null;
});

describe('orcr-tui in a real terminal', () => {
  it('shows every status and the limiter; x y kills a working run in place and orcr ps agrees; w shows turn_complete; re-flows at 80x24; quit and restart keep the same rows', async () => {
    home = new Home({ concurrency: { max: 2 } });
    const h = home;
    h.run(['-n', 'done-1', '--', 'sh', '-c', 'exit 0']);
    h.run(['-n', 'work-2', '--', 'sh', '-c', 'sleep 120']);
    if (HAS_MOCK) {
      h.run([
        '-n',
        'chat-3',
        '--protocol',
        'jsonl',
        '--interactive',
        '--',
        process.execPath,
        MOCK_AGENT,
        '--format',
        'jsonl',
        '--scenario',
        'interactive',
        '--delay',
        '400',
      ]);
    } else {
      h.run(['-n', 'chat-3', '--', 'sh', '-c', 'sleep 120']);
    }
    h.run(['-n', 'q-4', '--', 'sh', '-c', 'sleep 120']);
    h.run(['-n', 'q-5', '--', 'sh', '-c', 'sleep 120']);
    const chatSettled = HAS_MOCK ? 'idle' : 'working';
    await until(() => {
      const st = psStatus(h);
      return st.get('done-1') === 'ended:completed' && st.get('work-2') === 'working' && st.get('chat-3') === chatSettled && st.get('q-4') === 'queued';
    }, 'the fleet to settle');

    term = new Term(h, 120, 40);
    const t = term;
    t.start('first');
    let s = await t.waitFor((x) => rowStatus(x, 'q-5') !== null && rowStatus(x, 'chat-3') === chatSettled && /holders/.test(x), 'the first screen');
    expect(s).toMatch(/● supervisor pid \d+/);
    expect(rowStatus(s, 'done-1')).toBe('ended:completed');
    expect(rowStatus(s, 'work-2')).toBe('working');
    expect(rowStatus(s, 'q-4')).toBe('queued');
    expect(rowStatus(s, 'q-5')).toBe('queued');
    for (const word of ['queued', 'working', 'ended', ...(HAS_MOCK ? ['idle'] : [])]) expect(s).toContain(word);
    expect(s).toMatch(/#1 \S+/); // queue position and wait of q-4
    // The limiter: the global cap full, its holders by name, its waiting line.
    const limiter = s.split('\n').find((l) => l.startsWith('global'))!;
    expect(limiter).toMatch(/global\s+█+ 2\/2/);
    expect(limiter).toMatch(/holders (work-2, chat-3|chat-3, work-2)/);
    expect(limiter).toMatch(/waiting 2 \(oldest [^)]+\): q-4, q-5/);
    expect(s.split('\n').length).toBeLessThanOrEqual(40);

    // Select the working run and kill it: x, then y.
    const selected = (x: string, name: string): boolean => x.split('\n').some((l) => l.startsWith('›') && l.includes(` ${name} `));
    if (!selected(s, 'work-2')) {
      t.keys('g');
      for (let i = 0; i < 5 && !selected(t.screen(), 'work-2'); i++) {
        const before = t.screen();
        t.keys('j');
        await t.waitFor((x) => x !== before, 'the selection to move', 5000);
      }
    }
    await t.waitFor((x) => selected(x, 'work-2'), 'work-2 selected');
    t.keys('x');
    await t.waitFor((x) => x.includes('kill work-2? y/n'), 'the confirmation');
    t.keys('y');
    s = await t.waitFor((x) => rowStatus(x, 'work-2') === 'ended:killed', 'work-2 killed on screen');
    expect(psStatus(h).get('work-2')).toBe('ended:killed');
    // Its slot went to the first waiter, on screen too.
    s = await t.waitFor((x) => rowStatus(x, 'q-4') === 'working', 'q-4 promoted');

    if (HAS_MOCK) {
      // s + a line to the idle agent, then w: the banner follows it until the turn ends.
      t.keys('g');
      await t.waitFor((x) => selected(x, 'chat-3'), 'chat-3 selected');
      t.keys('s');
      await t.waitFor((x) => x.includes('send to chat-3> '), 'the send prompt');
      t.type('one more thing');
      t.keys('Enter', 'w');
      s = await t.waitFor((x) => x.includes('waiting on chat-3…') || x.includes('chat-3: turn_complete'), 'the wait banner');
      s = await t.waitFor((x) => x.includes('chat-3: turn_complete'), 'the wait banner to show turn_complete');
      expect(rowStatus(s, 'chat-3')).toBe('idle');
      expect(psStatus(h).get('chat-3')).toBe('idle');
      expect(h.ps().find((r) => r.name === 'chat-3')!.input_seq).toBe(1);
    }

    // Resize to 80x24: everything re-flows and the essentials stay.
    t.resize(80, 24);
    s = await t.waitFor(
      (x) => x.split('\n').some((l) => l.startsWith('─ Runs')) && /─ Limiter ─+/.test(x) && x.split('\n')[2]!.length <= 80,
      'the 80x24 layout',
    );
    expect(s.split('\n').filter((l) => l.length > 80)).toEqual([]);
    expect(rowStatus(s, 'q-5')).toBe('queued');
    t.resize(120, 40);
    await t.waitFor((x) => x.includes('PROVIDER/WORKLOAD'), 'back to 120 columns');

    // Quit: agents keep running; a new TUI shows the same rows in the same states.
    const rowsBefore = ['done-1', 'work-2', 'chat-3', 'q-4', 'q-5'].map((n) => [n, rowStatus(t.screen(), n)]);
    t.keys('q');
    s = await t.waitFor((x) => x.includes('[exit 0]'), 'the TUI to exit');
    expect(s).toMatch(/keep going under the supervisor/);
    const ps = psStatus(h);
    expect(ps.get('q-4')).toBe('working');
    t.start('second');
    s = await t.waitFor((x) => rowStatus(x, 'q-5') !== null && rowStatus(x, 'done-1') !== null, 'the restarted TUI');
    const rowsAfter = ['done-1', 'work-2', 'chat-3', 'q-4', 'q-5'].map((n) => [n, rowStatus(s, n)]);
    expect(rowsAfter).toEqual(rowsBefore);
    expect(rowsAfter).toEqual(['done-1', 'work-2', 'chat-3', 'q-4', 'q-5'].map((n) => [n, psStatus(h).get(n)]));
    // Each run once.
    for (const n of ['done-1', 'work-2', 'chat-3', 'q-4', 'q-5']) expect(s.split('\n').filter((l) => rowStatus(l, n) !== null)).toHaveLength(1);
    t.keys('q');
    await t.waitFor((x) => x.includes('[exit 0]'), 'the second TUI to exit');
  }, 180_000);

  it('says the supervisor is gone, keeps the rows, and picks the stream up again when it is back', async () => {
    home = new Home({ concurrency: { max: 1 } });
    const h = home;
    h.run(['-n', 'long-1', '--', 'sh', '-c', 'sleep 120']);
    h.run(['-n', 'wait-2', '--', 'sh', '-c', 'sleep 120']);
    term = new Term(h, 100, 30);
    const t = term;
    t.start('first');
    await t.waitFor((x) => rowStatus(x, 'long-1') === 'working' && rowStatus(x, 'wait-2') === 'queued', 'the rows');
    expect(h.cli(['server', 'stop']).code).toBe(0);
    let s = await t.waitFor((x) => x.includes('supervisor gone'), 'the gone notice');
    expect(rowStatus(s, 'long-1')).toBe('working');
    t.keys('r'); // start one again from the TUI
    s = await t.waitFor((x) => x.includes('● supervisor pid'), 'reconnected');
    h.run(['-n', 'new-3', '--', 'sh', '-c', 'exit 0']);
    s = await t.waitFor((x) => rowStatus(x, 'new-3') === 'queued', 'an event after reconnecting');
    expect(s.split('\n').filter((l) => rowStatus(l, 'long-1') !== null)).toHaveLength(1);
    t.keys('q');
    await t.waitFor((x) => x.includes('[exit 0]'), 'exit');
  }, 120_000);

  it('a user theme in $ORCR_HOME/themes is found by --theme and redrawn live when an editor saves it (temporary file renamed over it); a broken save keeps it as it was', async () => {
    home = new Home();
    home.run(['-n', 'sleeper', '--', 'sh', '-c', 'sleep 60']);
    const dir = path.join(home.dir, 'themes');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'mine.json');
    const theme = (accent: string): string => JSON.stringify({ name: 'mine', palette: { accent }, tokens: { 'text.accent': 'accent' } });
    // As vim and VS Code save: a temporary file beside it, renamed over it.
    const save = (text: string): void => {
      const tmp = path.join(dir, '.mine.json.swp');
      fs.writeFileSync(tmp, text);
      fs.renameSync(tmp, file);
    };
    save(theme('#ff0000'));
    term = new Term(home, 100, 30);
    const t = term;
    t.start('first', ['--theme', 'mine'], { FORCE_COLOR: '3' });
    await t.waitFor((x) => rowStatus(x, 'sleeper') === 'working', 'the TUI');
    // The header's "orcr" is drawn in the accent colour.
    const accent = (): string | null => {
      const c = t.colourOf(0, 'orcr');
      return c === 'default' ? null : c;
    };
    const red = await until(accent, 'the header in colour');
    // Truecolour, or its nearest of 256 where the TUI chose the palette.
    const RED = /^(#ff0000|p196)$/;
    const BLUE = /^(#0000ff|p21)$/;
    expect(red).toMatch(RED);
    save(theme('#0000ff'));
    const blue = await until(() => (BLUE.test(accent() ?? '') ? accent() : null), 'the edited theme to be drawn');
    expect(blue).not.toBe(red);
    await t.waitFor((x) => x.includes('themes reloaded'), 'the footer to say so');
    // Half an edit saved: refused, and the theme stays blue.
    save('{ "name": "mine", "palette": ');
    await t.waitFor((x) => x.includes('theme mine stays as it was'), 'the refusal');
    expect(accent()).toMatch(BLUE);
    // Saved in place (truncated and written), as VS Code does by default.
    fs.writeFileSync(file, theme('#00ff00'));
    await until(() => /^(#00ff00|p46)$/.test(accent() ?? ''), 'the in-place save to be drawn');
  });

  /** A home with one ended Claude run (of the mock agent) and a stand-in `claude` CLI in bin/ that records what it was given. */
  async function claudeRun(): Promise<{ bin: string; record: string; sid: string; cwd: string }> {
    home = new Home();
    const bin = path.join(home.dir, 'bin');
    const record = path.join(home.dir, 'opened');
    fs.mkdirSync(bin);
    // A stand-in for Claude Code's CLI: says what it was given, waits for a line, and records it.
    fs.writeFileSync(path.join(bin, 'claude'), `#!/bin/sh\necho "STAND-IN CLAUDE $*"\nread line\necho "claude $* @ $(pwd)" >> '${record}'\n`, { mode: 0o755 });
    const r = home.run([
      '-n',
      'done-claude',
      '-a',
      'claude',
      '--protocol',
      'claude',
      '-p',
      'go',
      '--',
      process.execPath,
      MOCK_AGENT,
      '--format',
      'claude',
      '--turns',
      '1',
      '--delay',
      '10',
    ]);
    expect(home.cli(['wait', 'done-claude']).code).toBe(0);
    const sid = home.json<{ session_id: string }>(['show', 'done-claude']).session_id;
    expect(sid).toBeTruthy();
    return { bin, record, sid, cwd: r.cwd };
  }

  itWhen(MOCK_NEED, 'o on a Claude run opens claude --resume on its session in this terminal: the TUI handed out and back', async () => {
    const { bin, record, sid, cwd } = await claudeRun();
    term = new Term(home!, 100, 30);
    const t = term;
    t.start('first', [], { TMUX: '', PATH: `${bin}:${process.env.PATH}` });
    await t.waitFor((x) => rowStatus(x, 'done-claude') === 'ended:completed', 'the TUI');
    t.keys('g', 'o');
    await t.waitFor((x) => x.includes(`STAND-IN CLAUDE --resume ${sid}`) && !x.includes('Runs 1/1'), 'the CLI in the terminal, the TUI out of it');
    t.keys('Enter');
    await t.waitFor((x) => x.includes('Runs 1/1') && x.includes(`back from claude --resume ${sid} (exit 0)`), 'the TUI back, drawn whole');
    expect(fs.readFileSync(record, 'utf8').trim()).toBe(`claude --resume ${sid} @ ${cwd}`);
  });

  itWhen(TMUX_NEED.reason ? TMUX_NEED : MOCK_NEED, 'o on a Claude run inside tmux opens claude --resume in a new tmux window, the TUI staying', async () => {
    const { bin } = await claudeRun();
    tmux = new TmuxTerm(home!, 100, 30);
    const t = tmux;
    // Inside tmux (TMUX set, as tmux sets it): a window of its own, the TUI stays.
    t.start('first', [], { PATH: `${bin}:${process.env.PATH}` });
    await t.waitFor((x) => rowStatus(x, 'done-claude') === 'ended:completed', 'the second TUI');
    t.keys('g', 'o');
    await t.waitFor((x) => x.includes('done-claude taken over: claude --resume') && x.includes('in a new tmux window'), 'the notice');
    await until(
      () => spawnSync('tmux', ['-L', t.socket, 'list-windows', '-a', '-F', '#{window_name}'], { encoding: 'utf8' }).stdout.includes('orcr:done-claude'),
      'the new window',
    );
  });

  it('d on a worktree run shows its diff full-screen in a real terminal, file by file; esc goes back', async () => {
    home = new Home();
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-tmux-repo-')));
    try {
      initRepo(repo, { 'f.txt': 'alpha\nbeta\ngamma\n' });
      home.run(['--worktree', '-n', 'edit', '--cwd', repo, '--', 'sh', '-c', "printf 'alpha\\nBETA\\ngamma\\n' > f.txt"]);
      await until(() => home!.ps().find((x) => x.name === 'edit')?.worktree?.added === 1, 'the run to end with its counts');
      term = new Term(home, 120, 40);
      const t = term;
      t.start('first');
      await t.waitFor((x) => rowStatus(x, 'edit') === 'ended:completed' && /\+1 −1/.test(x), 'the run with its counts');
      t.keys('g', 'd');
      const f = await t.waitFor((x) => x.includes('━━ f.txt') && x.includes('+BETA'), 'the diff');
      expect(f).toContain('1 file changed, +1 −1');
      expect(f).toContain('-beta');
      expect(f).not.toContain('Runs 1/1');
      t.keys('Escape');
      await t.waitFor((x) => x.includes('Runs 1/1') && !x.includes('━━ f.txt'), 'back to the runs');
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });

  it('frames drawn line by line (only the lines that changed) through a busy stream leave the screen a fresh TUI draws', async () => {
    home = new Home({ concurrency: { max: 1 } });
    home.run(['--name', 'holder', '--', 'sleep', '600']);
    const client = await Client.connect(ensureHome(home.dir));
    try {
      await client.call('run.enqueue', { specs: Array.from({ length: 24 }, (_, i) => ({ cwd: home!.dir, command: ['true'], name: `queued-${i}` })) });
      term = new Term(home, 120, 40);
      const t = term;
      t.start('first', [], { ORCR_TUI_INCREMENTAL: '1' });
      await t.waitFor((x) => x.includes('queued-23') && x.includes('● supervisor'), 'the fleet');
      // Markers come and go at the end of the queue: rows below them move, counts and the event log change.
      const marker = (n: number): string => `zq${String(n).padStart(4, '0')}`;
      for (let n = 1; n <= 150; n++) {
        await client.call('run.enqueue', { specs: [{ cwd: home.dir, command: ['true'], name: marker(n) }] });
        if (n % 3 !== 0) await client.call('run.kill', { refs: [marker(n)] });
      }
      await t.waitFor((x) => x.includes(marker(150)), 'the last marker on screen');
      // Durations and clocks tick; everything else must match line for line.
      const settled = (x: string): string[] => {
        const lines = x
          .replace(/ +\d+(\.\d+)?(ms|s|m|h|d)\b/g, ' #')
          .replace(/\d\d:\d\d:\d\d/g, '#')
          .split('\n');
        return lines.slice(
          0,
          lines.findIndex((l) => l.startsWith('─ Events')),
        );
      };
      let previous = '';
      const stable = await t.waitFor((x) => {
        const same = x === previous;
        previous = x;
        return same && x.includes(marker(150)) && x.includes('1 active · 74 queued');
      }, 'the screen to settle');
      // The same state drawn whole, as Ink draws by default: what the screen must show.
      t.start('fresh', [], { ORCR_TUI_INCREMENTAL: '0' });
      const fresh = await t.waitFor((x) => x.includes(marker(150)) && x.includes('1 active · 74 queued'), 'a fresh TUI with its stats');
      expect(settled(stable).length).toBeGreaterThan(20);
      expect(settled(stable)).toEqual(settled(fresh));
    } finally {
      client.close();
    }
  }, 60_000);

  it('SIGTERM restores the terminal: main screen back, cursor shown, raw mode off', async () => {
    home = new Home();
    home.run(['-n', 'sleeper', '--', 'sh', '-c', 'sleep 60']);
    term = new Term(home, 100, 30);
    const t = term;
    t.start('first');
    await t.waitFor((x) => rowStatus(x, 'sleeper') === 'working', 'the TUI');
    expect(t.altScreen()).toBe(true);
    expect(t.cursorShown()).toBe(false);
    process.kill(t.tuiPid(), 'SIGTERM');
    const s = await t.waitFor((x) => x.includes('[exit 143]'), 'the exit');
    expect(t.altScreen()).toBe(false);
    expect(t.cursorShown()).toBe(true);
    expect(s).not.toContain('Runs 1/1'); // the TUI's frame stayed on the alternate screen
    // Raw mode is off: the terminal echoes what is typed again.
    t.type('echoed');
    await t.waitFor((x) => x.includes('echoed'), 'the terminal to echo input');
  });

  it('the demo: quitting (q, or SIGTERM) stops its agents and its supervisor and removes its throw-away home', async () => {
    home = new Home();
    // The demo makes its home under the TUI's temp dir: one of ours, to find it and check it is gone.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-test-'));
    try {
      for (const [how, exit] of [
        ['q', 0],
        ['SIGTERM', 143],
      ] as const) {
        term?.kill();
        term = new Term(home, 120, 40);
        const t = term;
        t.start('first', ['--demo'], { TMPDIR: tmp });
        await t.waitFor((x) => x.includes('● supervisor pid') && /● working/.test(x), 'the demo fleet at work', 60_000);
        const [made] = fs.readdirSync(tmp).filter((n) => n.startsWith('orcr-demo-'));
        const dir = path.join(tmp, made!);
        // Its supervisor and agents run (each process orcr starts has ORCR_HOME in its environment).
        const before = processesMentioning(dir);
        expect(before.length).toBeGreaterThan(2);
        // Someone's shell pointed at the demo home is not the demo's to stop.
        const bystander = spawn('sleep', ['60'], { env: { ...process.env, ORCR_HOME: dir }, stdio: 'ignore' });
        try {
          if (how === 'q') t.keys('q');
          else process.kill(t.tuiPid(), 'SIGTERM');
          await t.waitFor((x) => x.includes(`[exit ${exit}]`), `the TUI to exit after ${how}`);
          expect(t.joined()).toContain(`orcr-tui: the demo is stopped. `);
          expect(t.joined()).toContain(`${dir} is removed.`);
          expect(fs.existsSync(dir)).toBe(false);
          expect(processesMentioning(dir).filter((p) => p !== bystander.pid)).toEqual([]);
          for (const pid of before) expect(alive(pid), `process ${pid} of the demo`).toBe(false);
          expect(alive(bystander.pid!)).toBe(true);
        } finally {
          bystander.kill('SIGKILL');
        }
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  it('the demo: a terminal that closes under it (SIGHUP, its writes failing) still stops its agents and its supervisor and removes its home', async () => {
    home = new Home();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-test-'));
    try {
      term = new Term(home, 120, 40);
      const t = term;
      t.start('first', ['--demo'], { TMPDIR: tmp });
      // Early, while the fleet starts and frames follow each other closely.
      await t.waitFor((x) => x.includes('Runs '), 'the first frame');
      const [made] = fs.readdirSync(tmp).filter((n) => n.startsWith('orcr-demo-'));
      const dir = path.join(tmp, made!);
      const before = processesMentioning(dir);
      expect(before.length).toBeGreaterThan(1);
      // The terminal goes away: the TUI's next frame fails to write, then SIGHUP comes.
      t.close();
      await until(() => !fs.existsSync(dir), 'the demo home to be removed', 30_000);
      await until(() => processesMentioning(dir).length === 0, 'every process of the demo to be gone', 30_000);
      for (const pid of before) expect(alive(pid), `process ${pid} of the demo`).toBe(false);
    } finally {
      // Whatever the TUI left behind does not outlive the test.
      for (const pid of processesMentioning(tmp)) process.kill(pid, 'SIGKILL');
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  it('refuses an unknown flag with usage and exit code 2', async () => {
    home = new Home();
    const r = spawnSync(process.execPath, [TUI, '--bogus'], { env: home.env, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Unknown option '--bogus'");
    expect(r.stderr).toContain('usage: orcr-tui');
    const help = spawnSync(process.execPath, [TUI, '--help'], { env: home.env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--theme NAME');
  });
});
