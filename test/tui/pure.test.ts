// The TUI's small pure pieces: windowing, columns, layout, keys, shell
// splitting, themes, /proc parsing, the ring buffer, output tails, notices.

import './no-ci.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import { clampList, followSelection, listReducer, scrollFromEnd } from '../../src/tui/state/list-state.js';
import { layoutColumns, rowSpans } from '../../src/tui/view/columns.js';
import { computeLayout } from '../../src/tui/view/layout.js';
import { printable, type KeyContext } from '../../src/tui/input/keys.js';
import { BINDINGS } from '../../src/tui/input/bindings.js';
import type { Binding } from '../../src/tui/input/binding.js';
import { bindingFor } from '../../src/tui/input/router.js';
import { shellSplit, SplitError } from '../../src/tui/input/shell-split.js';
import { builtinThemeDir, initialThemeName, loadThemes, nextThemeName, parseTheme, tokenStyle } from '../../src/tui/view/theme.js';
import { TOKENS } from '../../src/tui/model/tokens.js';
import { cpuPercent, parseStat, sampleGroup } from '../../src/tui/connection/proc-stats.js';
import { Ring } from '../../src/tui/state/ring.js';
import { TranscriptDoc } from '../../src/tui/state/transcript-doc.js';
import { detailsOutput } from '../../src/tui/view/details-output.js';
import { notificationBytes, summarize } from '../../src/tui/connection/notify.js';
import { parseTuiArgs } from '../../src/tui/args.js';
import { fit, fullestMeter, textWidth, truncate } from '../../src/tui/view/format.js';
import { readPrefs, writePrefs } from '../../src/tui/state/prefs.js';
import { run, T0 } from './fixtures.js';

const key = (over: Partial<Key> = {}): Key => ({
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
  ...over,
});

describe('windowed list (selection + scroll offset)', () => {
  it('moves the offset only when the cursor leaves the window', () => {
    let s = { cursor: 0, offset: 0 };
    for (let i = 0; i < 4; i++) s = listReducer(s, { type: 'down' }, 100, 5);
    expect(s).toEqual({ cursor: 4, offset: 0 });
    s = listReducer(s, { type: 'down' }, 100, 5);
    expect(s).toEqual({ cursor: 5, offset: 1 });
    s = listReducer(s, { type: 'up', n: 3 }, 100, 5);
    expect(s).toEqual({ cursor: 2, offset: 1 });
    s = listReducer(s, { type: 'up', n: 3 }, 100, 5);
    expect(s).toEqual({ cursor: 0, offset: 0 });
  });

  it('first, last, pages and clamping at the ends', () => {
    expect(listReducer({ cursor: 0, offset: 0 }, { type: 'last' }, 100, 10)).toEqual({ cursor: 99, offset: 90 });
    expect(listReducer({ cursor: 99, offset: 90 }, { type: 'first' }, 100, 10)).toEqual({ cursor: 0, offset: 0 });
    expect(listReducer({ cursor: 0, offset: 0 }, { type: 'pageDown' }, 100, 10)).toEqual({ cursor: 10, offset: 1 });
    expect(listReducer({ cursor: 3, offset: 0 }, { type: 'up', n: 10 }, 100, 10)).toEqual({ cursor: 0, offset: 0 });
    expect(listReducer({ cursor: 0, offset: 0 }, { type: 'down' }, 0, 10)).toEqual({ cursor: 0, offset: 0 });
  });

  it('shrinking the list or the window keeps the cursor visible', () => {
    expect(clampList({ cursor: 50, offset: 45 }, 20, 10)).toEqual({ cursor: 19, offset: 10 });
    expect(clampList({ cursor: 9, offset: 0 }, 100, 5)).toEqual({ cursor: 9, offset: 5 });
  });

  it('follows the selected id when rows move, else keeps the position', () => {
    expect(followSelection({ cursor: 0, offset: 0 }, 'c', ['a', 'b', 'c'], 2)).toEqual({ list: { cursor: 2, offset: 1 }, selected: 'c' });
    expect(followSelection({ cursor: 1, offset: 0 }, 'gone', ['a', 'b', 'c'], 2)).toEqual({ list: { cursor: 1, offset: 0 }, selected: 'b' });
    expect(followSelection({ cursor: 1, offset: 0 }, 'x', [], 2)).toEqual({ list: { cursor: 0, offset: 0 }, selected: null });
  });

  it('log panes scroll from the end and stop at the top', () => {
    expect(scrollFromEnd(0, 3, 100, 10)).toBe(3);
    expect(scrollFromEnd(3, -10, 100, 10)).toBe(0);
    expect(scrollFromEnd(0, 500, 100, 10)).toBe(90);
    expect(scrollFromEnd(0, 5, 4, 10)).toBe(0);
  });
});

describe('columns', () => {
  it('fits the width exactly and keeps status and name at 80 columns', () => {
    for (const width of [60, 80, 100, 120, 160, 200]) {
      const cols = layoutColumns(width);
      const used = 2 + cols.reduce((n, c) => n + c.width, 0) + cols.length - 1;
      expect(used).toBeLessThanOrEqual(width);
      expect(cols.map((c) => c.key)).toContain('status');
      expect(cols.map((c) => c.key)).toContain('name');
    }
  });

  it('drops low-value columns first as the terminal narrows', () => {
    const wide = layoutColumns(160, true).map((c) => c.key);
    expect(wide).toEqual(['status', 'reason', 'name', 'id', 'target', 'queue', 'turn', 'elapsed', 'tokens', 'cost', 'burn', 'budget', 'loop']);
    // With nothing queued, QUEUE would be an empty column.
    expect(layoutColumns(160).map((c) => c.key)).toEqual(wide.filter((k) => k !== 'queue'));
    // The burn column goes before the cost, after the id.
    expect(layoutColumns(120).map((c) => c.key)).toEqual(['status', 'reason', 'name', 'target', 'turn', 'elapsed', 'tokens', 'cost', 'burn', 'budget', 'loop']);
    expect(layoutColumns(110).map((c) => c.key)).toEqual(['status', 'reason', 'name', 'target', 'turn', 'elapsed', 'tokens', 'cost', 'budget', 'loop']);
    const narrow = layoutColumns(80, true).map((c) => c.key);
    expect(narrow).not.toContain('id');
    expect(narrow).not.toContain('burn');
    expect(narrow).not.toContain('cost');
    expect(narrow).toContain('elapsed');
    expect(narrow).toContain('queue');
  });

  it('a row is spans whose text adds up to the columns', () => {
    const cols = layoutColumns(120, true);
    const r = run({ status: 'queued', name: 'a-very-long-name-that-will-not-fit-in-the-column', created_at: new Date(T0).toISOString() });
    const text = rowSpans(r, cols, T0 + 65_000, 3, true)
      .map((s) => s.text)
      .join('');
    expect(text.startsWith('› ○ queued')).toBe(true);
    expect(text).toContain('#3 1m05s');
    expect(text).toContain('…');
    expect(Array.from(text).length).toBe(2 + cols.reduce((n, c) => n + c.width, 0) + cols.length - 1);
  });

  it('the budget cell is the fullest ceiling, time recomputed against now', () => {
    const r = run({
      status: 'working',
      started_at: new Date(T0).toISOString(),
      budget: {
        turns: { used: 1, limit: 4, fraction: 0.25, warn: false },
        tokens: { used: 0, limit: null, fraction: null, warn: false },
        cost_usd: { used: 0, limit: null, fraction: null, warn: false },
        time_ms: { used: 0, limit: 100_000, fraction: 0, warn: false },
      },
    });
    expect(fullestMeter(r, T0 + 90_000)).toEqual({ name: 'time_ms', fraction: 0.9 });
    const text = rowSpans(r, layoutColumns(160), T0 + 90_000, undefined, false)
      .map((s) => s.text)
      .join('');
    expect(text).toContain('90%');
  });

  it('truncates and pads by terminal columns: wide characters count two', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(fit('ab', 4, 'right')).toBe('  ab');
    expect(fit('⟳', 2)).toBe('⟳ ');
    expect(fit('世界-1', 8)).toBe('世界-1  ');
    expect(fit('🚀-agent', 10)).toBe('🚀-agent  ');
    expect(truncate('世界世界', 5)).toBe('世界…');
    expect(fit('世界世界', 4)).toBe('世… ');
    expect(textWidth('世界-1')).toBe(6);
  });
});

describe('layout', () => {
  it('fills rows - 1 and gives the runs table what is left', () => {
    for (const [columns, rows] of [
      [80, 24],
      [120, 40],
      [200, 60],
    ] as const) {
      const l = computeLayout({ columns, rows, showEvents: true, caps: 6, waits: false });
      expect(l.height).toBe(rows - 1);
      expect(l.header + l.main + l.footer).toBe(rows - 1);
      const stacked = l.side ? l.runs.height : l.runs.height + l.limiter.height;
      expect(stacked + l.events.height).toBe(l.main);
      expect(l.runs.body).toBeGreaterThanOrEqual(5);
    }
  });

  it('puts the limiter beside the runs on wide terminals only', () => {
    expect(computeLayout({ columns: 200, rows: 50, showEvents: true, caps: 3, waits: false }).side).toBe(true);
    expect(computeLayout({ columns: 120, rows: 40, showEvents: true, caps: 3, waits: false }).side).toBe(false);
  });

  it('hiding the event log gives its rows to the runs', () => {
    const on = computeLayout({ columns: 100, rows: 30, showEvents: true, caps: 2, waits: false });
    const off = computeLayout({ columns: 100, rows: 30, showEvents: false, caps: 2, waits: false });
    expect(off.runs.body).toBe(on.runs.body + on.events.height);
  });
});

describe('keys', () => {
  const id = (contexts: KeyContext[], input: string, k: Key): string | null => bindingFor(contexts, input, k)?.id ?? null;

  it('maps keys to bindings per context', () => {
    expect(id(['list'], 'j', key())).toBe('down');
    expect(id(['list'], '', key({ downArrow: true }))).toBe('down');
    expect(id(['pager'], 'j', key())).toBe('pager-down');
    expect(id(['list'], 'x', key())).toBe('kill');
    expect(id(['tagged', 'list'], 'x', key())).toBe('tagged-kill');
    expect(id(['tagged', 'list'], 'j', key())).toBe('down');
    expect(id(['list'], 'X', key({ shift: true }))).toBe('kill-now');
    expect(id(['list'], 'c', key({ ctrl: true }))).toBe('quit');
    expect(id(['list'], '', key({ return: true }))).toBe('details');
    expect(id(['confirm'], 'y', key())).toBe('confirm');
    expect(id(['confirm'], 'x', key())).toBe(null);
    expect(id(['prompt'], 'q', key())).toBe(null); // typed, not quit
    expect(id(['prompt'], '', key({ escape: true }))).toBe('prompt-back');
    expect(id(['details'], 'n', key())).toBe(null);
  });

  it("every documented key is bound (the README's table), and the dangerous ones ask", () => {
    const inList = (input: string, k = key()): Binding | null => bindingFor(['list'], input, k);
    for (const input of ['j', 'k', 'g', 'G', 'x', 'X', 'w', 's', 'n', '/', 'e', 't', '?', 'q', 'R', 'P']) expect(inList(input), input).not.toBeNull();
    for (const k of [{ return: true }, { escape: true }, { tab: true }, { upArrow: true }, { downArrow: true }]) expect(inList('', key(k))).not.toBeNull();
    expect(BINDINGS.filter((b) => b.dangerous).map((b) => b.id)).toEqual(['kill', 'tagged-kill', 'force-kill', 'cancel-held']);
  });

  it('the map is sound: ids unique, a description for each, and no two bindings of a context on one key', () => {
    expect(new Set(BINDINGS.map((b) => b.id)).size).toBe(BINDINGS.length);
    for (const b of BINDINGS) expect(b.description.trim(), b.id).not.toBe('');
    const seen = new Map<string, string>();
    for (const b of BINDINGS) {
      for (const c of b.contexts) {
        for (const k of b.keys) {
          const at = `${c} ${k.ctrl ? 'ctrl+' : ''}${k.input ?? k.key}`;
          expect(seen.get(at), `${at}: ${b.id}`).toBeUndefined();
          seen.set(at, b.id);
        }
      }
    }
  });

  it('keeps printable text of a paste, drops control bytes', () => {
    expect(printable('hello world', key())).toBe('hello world');
    expect(printable('a\x1b[Ab\x07', key())).toBe('ab ');
    expect(printable('one\ntwo', key())).toBe('one two');
    expect(printable('\x1b]52;c;aGk=\x07x\u009b2Jy', key())).toBe('xy');
    expect(printable('x', key({ ctrl: true }))).toBe('');
  });
});

describe('shellSplit', () => {
  it('splits like a shell, quotes and escapes included', () => {
    expect(shellSplit(`-n build -- sh -c 'echo "hi there"; sleep 1'`)).toEqual(['-n', 'build', '--', 'sh', '-c', 'echo "hi there"; sleep 1']);
    expect(shellSplit(`-p "fix the \\"bug\\"" a\\ b ''`)).toEqual(['-p', 'fix the "bug"', 'a b', '']);
    expect(shellSplit('  ')).toEqual([]);
    expect(shellSplit(`x"y z"w`)).toEqual(['xy zw']);
  });

  it('refuses unterminated quotes', () => {
    expect(() => shellSplit(`echo 'oops`)).toThrow(SplitError);
    expect(() => shellSplit(`echo "oops`)).toThrow(SplitError);
  });
});

describe('themes', () => {
  it('ships dark, light, high-contrast, ansi and no-color with every token valid', () => {
    const set = loadThemes([builtinThemeDir()]);
    expect(set.problems).toEqual([]);
    expect(set.order.slice(0, 5)).toEqual(['dark', 'light', 'high-contrast', 'ansi', 'no-color']);
    for (const name of ['dark', 'light', 'high-contrast']) {
      for (const t of TOKENS) expect(set.themes.get(name)!.colors[t], `${name} ${t}`).toBeDefined();
    }
    expect(set.themes.get('no-color')!.colors).toEqual({});
  });

  it('resolves palette names, reports bad tokens and colours', () => {
    const { theme, problems } = parseTheme(
      { name: 'x', palette: { a: '#112233' }, tokens: { 'text.primary': 'a', focus: 'red', border: 'nope', 'made.up': 'a' } },
      'file',
    );
    expect(theme.colors).toEqual({ 'text.primary': '#112233', focus: 'red' });
    expect(problems).toHaveLength(2);
  });

  it('without colours, secondary text is dim and focus bold', () => {
    const nc = { name: 'no-color', description: '', colors: {} };
    expect(tokenStyle(nc, 'text.muted')).toEqual({ dimColor: true });
    expect(tokenStyle(nc, 'focus')).toEqual({ bold: true });
    expect(tokenStyle(nc, 'text.primary')).toEqual({});
  });

  it('picks the start theme: flag, NO_COLOR, remembered, COLORFGBG, dark', () => {
    const available = loadThemes([builtinThemeDir()]);
    expect(initialThemeName({ flag: 'light', env: { NO_COLOR: '1' }, available })).toBe('light');
    expect(initialThemeName({ remembered: 'light', env: { NO_COLOR: '1' }, available })).toBe('no-color');
    expect(initialThemeName({ remembered: 'high-contrast', env: {}, available })).toBe('high-contrast');
    expect(initialThemeName({ env: { COLORFGBG: '0;15' }, available })).toBe('light');
    expect(initialThemeName({ env: {}, available })).toBe('dark');
    expect(nextThemeName(available, 'no-color')).toBe(available.order[(available.order.indexOf('no-color') + 1) % available.order.length]);
  });

  it('loads a user theme from a folder and remembers the choice in tui.json', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-theme-'));
    fs.mkdirSync(path.join(dir, 'themes'));
    fs.writeFileSync(path.join(dir, 'themes', 'mine.json'), JSON.stringify({ name: 'mine', tokens: { focus: 'magenta' } }));
    const set = loadThemes([builtinThemeDir(), path.join(dir, 'themes')]);
    expect(set.themes.get('mine')!.colors.focus).toBe('magenta');
    expect(set.order.at(-1)).toBe('mine');
    expect(writePrefs(dir, { theme: 'mine' })).toBe(null);
    expect(readPrefs(dir)).toEqual({ theme: 'mine' });
    expect(fs.statSync(path.join(dir, 'tui.json')).mode & 0o777).toBe(0o600);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('proc stats', () => {
  const line = (pid: number, comm: string, pgrp: number, utime: number, stime: number, rss: number): string =>
    `${pid} (${comm}) S 1 ${pgrp} ${pgrp} 0 -1 4194560 100 0 0 0 ${utime} ${stime} 0 0 20 0 1 0 12345 1000000 ${rss} 18446744073709551615`;

  it('parses /proc/PID/stat, even with spaces and parens in the name', () => {
    expect(parseStat(line(42, 'my (weird) name', 40, 150, 50, 300))).toEqual({ pid: 42, pgrp: 40, ticks: 200, rssPages: 300, start: '12345' });
    expect(parseStat('garbage')).toBe(null);
  });

  it('sums a process group from a /proc-like folder and computes CPU between samples', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-proc-'));
    const put = (pid: number, text: string): void => {
      fs.mkdirSync(path.join(dir, String(pid)), { recursive: true });
      fs.writeFileSync(path.join(dir, String(pid), 'stat'), text);
    };
    put(100, line(100, 'sh', 100, 10, 5, 100));
    put(101, line(101, 'node', 100, 100, 20, 1000));
    put(200, line(200, 'other', 200, 999, 999, 999));
    fs.mkdirSync(path.join(dir, 'self'));
    const a = sampleGroup(100, 1000, dir)!;
    expect(a.pids).toEqual([100, 101]);
    expect(a.ticks).toBe(135);
    put(101, line(101, 'node', 100, 150, 20, 1000));
    const b = sampleGroup(100, 2000, dir)!;
    expect(cpuPercent(a, b, 100)).toBeCloseTo(50);
    expect(cpuPercent(null, b, 100)).toBe(null);
    expect(sampleGroup(999, 0, dir)).toBe(null);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads this very process group from the real /proc', () => {
    const s = sampleGroup(Number(fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[2]), Date.now());
    expect(s).not.toBe(null);
    expect(s!.rssBytes).toBeGreaterThan(0);
  });
});

describe('ring buffer', () => {
  it('keeps the newest items and slices windows from the end', () => {
    const r = new Ring<number>(5);
    for (let i = 1; i <= 8; i++) r.push(i);
    expect(r.size).toBe(5);
    expect(r.slice(0, 5)).toEqual([4, 5, 6, 7, 8]);
    expect(r.window(2, 0)).toEqual([7, 8]);
    expect(r.window(2, 2)).toEqual([5, 6]);
    expect(r.window(10, 4)).toEqual([4]);
    expect(r.version).toBe(8);
  });
});

describe('details output', () => {
  it('the transcript and the raw lines of what an agent wrote, made terminal-safe, the newest rows last', () => {
    const nasty = '\x1b]52;c;b3JjciBjbGlwYm9hcmQ=\x07clip \x1b]0;title\x07title \x1b[2J\x1b[Hclear \u009b31mc1\r';
    const doc = new TranscriptDoc('u', 'plain');
    doc.push([...Array.from({ length: 5000 }, (_, i) => `line ${i}`), nasty, '\x1b[31mred\x1b[0m\tend']);
    for (const raw of [false, true]) {
      const out = detailsOutput(doc, raw, 80, 200, 0);
      expect(out.shown).toHaveLength(200);
      expect(out.total).toBe(5002);
      expect(out.shown.at(-1)!.text).toBe('red  end');
      expect(out.shown.at(-2)!.text).toBe('clip title clear c1');
      expect(out.shown.at(-3)!.text).toBe('line 4999');
      for (const r of out.shown) expect(r.text).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
      // Scrolled up ten rows: the ten newest are below the screen.
      expect(detailsOutput(doc, raw, 80, 200, 10).shown.at(-1)!.text).toBe('line 4991');
    }
    expect(detailsOutput(doc, false, 80, 5, 0).title).toBe('Transcript (r: raw lines)');
    expect(detailsOutput(doc, true, 80, 5, 0).title).toBe('Raw output, 5,002 lines (r: transcript)');
    expect(detailsOutput(new TranscriptDoc('u', 'plain'), false, 80, 5, 0).title).toBe('Transcript (nothing yet)');
    expect(detailsOutput(null, false, 80, 5, 0).right).toBe('reading…');
  });
});

describe('notices', () => {
  it('summarizes what became blocked or ended', () => {
    expect(summarize([{ kind: 'blocked', uuid: 'u', name: 'a', detail: 'limit' }])).toBe('a blocked (limit)');
    expect(
      summarize([
        { kind: 'ended', uuid: 'u', name: 'a', detail: 'killed' },
        { kind: 'ended', uuid: 'v', name: 'b', detail: 'completed' },
      ]),
    ).toBe('2 runs ended: a killed, b completed');
  });

  it('rings the bell, or sends OSC 9 where the terminal shows it', () => {
    expect(notificationBytes('x', { TERM: 'xterm-256color' })).toBe('\x07');
    // ESC b is a sequence of its own: it goes whole, as a terminal would read it.
    expect(notificationBytes('a\x1bb', { TERM_PROGRAM: 'iTerm.app' })).toBe('\x1b]9;orcr: a\x07');
    expect(notificationBytes('x\u009c\x07y', { TERM_PROGRAM: 'iTerm.app' })).toBe('\x1b]9;orcr: x  y\x07');
  });
});

describe('orcr-tui flags', () => {
  it('parses the flags and refuses unknown ones', () => {
    expect(parseTuiArgs(['--theme', 'light', '--quiet'])).toEqual({ theme: 'light', demo: false, cluster: false, quiet: true, help: false });
    expect(parseTuiArgs(['--cluster'])).toMatchObject({ cluster: true });
    expect(parseTuiArgs(['--demo'])).toMatchObject({ demo: true });
    expect(() => parseTuiArgs(['--bogus'])).toThrow(/bogus/);
    expect(() => parseTuiArgs(['extra'])).toThrow();
  });
});

describe('key bursts', () => {
  it('splits keys that arrived in one chunk', async () => {
    const { splitBurst } = await import('../../src/tui/input/router.js');
    const k = key();
    expect(splitBurst('j', k, false)).toBe(null);
    expect(splitBurst('pasted text', k, true)).toBe(null);
    expect(splitBurst('jjk', k, false)!.map(([i]) => i)).toEqual(['j', 'j', 'k']);
    const parts = splitBurst('one more\rw', k, true)!;
    expect(parts.map(([i, kk]) => [i, kk.return])).toEqual([
      ['one more', false],
      ['', true],
      ['w', false],
    ]);
    expect(splitBurst('\x1b[A', k, false)).toBe(null);
  });
});

describe("the spend view's usage windows", () => {
  it("the supervisor's quotas, made safe, as lines after the fleet meters; a window near its end stands out", async () => {
    const { normalizeSpend } = await import('../../src/tui/state/spend.js');
    const { spendLines } = await import('../../src/tui/view/spend.js');
    const s = normalizeSpend({
      window: 'all',
      at: T0,
      by_provider: [],
      by_workload: [],
      per_minute: [],
      fleet: { exceeded: false, meters: {} },
      quotas: [
        { provider: 'claude', account: '/srv/.claude-work', window: 'five_hour', status: 'allowed_warning', utilization: 0.91, resets_at: null, at: 'x' },
        { provider: 'claude\u001b[31m', account: null, window: 'seven_day', status: 'allowed', utilization: 0.2, resets_at: null, at: 'x' },
      ],
    });
    expect(s.quotas).toHaveLength(2);
    const quota = spendLines(s, 100).filter((l) => l[0]?.text === 'quota ');
    expect(quota.map((l) => l.map((x) => x.text).join(''))).toEqual(['quota claude (.claude-work) 5h 91%', 'quota claude 7d 20%']);
    expect(quota.map((l) => l[1]!.token)).toEqual(['event.hold', 'text.primary']);
  });
});
