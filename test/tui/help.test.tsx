// `?` as a person reads it: every key beside its whole description, two
// spaces at least between a key and its text and between columns, nothing
// cut while the screen has rows to spare, and a narrow terminal wrapping
// rather than cutting.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { reduceSnapshot } from '../../src/tui/state/reducers.js';
import { helpEntries } from '../../src/tui/view/key-hints.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { run, T0 } from './fixtures.js';
import { fakeActions, lines, press, until } from './helpers.js';

afterEach(() => cleanup());

const themes = loadThemes([builtinThemeDir()]);
const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

async function helpAt(columns: number, rows: number): Promise<string[]> {
  const store = createTuiStore({ home: '/tmp/h', now: T0 + 5000 });
  store.setState((s) => reduceSnapshot(s, { seq: 1, runs: [run({ name: 'one' })] }, T0 + 5000));
  const inst = render(<App store={store} actions={fakeActions([])} themes={themes} onExit={() => undefined} size={{ columns, rows }} />);
  await until(inst, (f) => f.includes('Runs 1/1'));
  await press(inst, '?');
  const f = await until(inst, (x) => x.includes('Help — keys'));
  return lines(f);
}

/** The help's own lines: between its title and the footer's two. */
const body = (ls: string[]): string[] => ls.slice(ls.findIndex((l) => l.includes('Help — keys')) + 1, -2);

/**
 * Each key's description, read back from the screen: the words after the key
 * on its row, then the rows below it in the same column (where a wrapped
 * description goes on), until the next key in that column or a blank.
 */
function described(ls: string[], label: string, hintStart: string): string | null {
  const re = new RegExp(`(^|\\s\\s)(${esc(label)})\\s\\s+(${esc(hintStart)})`);
  for (let i = 0; i < ls.length; i++) {
    const m = re.exec(ls[i]!);
    if (!m) continue;
    const col = m.index + m[1]!.length;
    const textCol = col + m[0].length - m[1]!.length - m[3]!.length;
    const cut = (l: string): string => (l.slice(textCol).match(/^(.*?)(\s{3,}|$)/)?.[1] ?? '').trim();
    const parts = [cut(ls[i]!)];
    for (let j = i + 1; j < ls.length; j++) {
      const l = ls[j]!;
      // The next key in this column (or the end of the list) ends it.
      if (l.slice(col, textCol).trim() !== '' || l.slice(textCol, textCol + 1).trim() === '') break;
      parts.push(cut(l));
    }
    return parts.join(' ');
  }
  return null;
}

describe('help (?)', () => {
  for (const [columns, rows] of [
    [120, 40],
    [80, 24],
    [40, 30],
  ] as const) {
    it(`at ${columns}x${rows}: every key with its whole description, two spaces at least on both sides, nothing cut`, async () => {
      const ls = await helpAt(columns, rows);
      const shown = body(ls);
      // Rows to spare: nothing is cut; too few: the list scrolls (the title says so), still uncut.
      for (const l of shown) expect(l, l).not.toMatch(/\S…/);
      const all = shown.join('\n');
      expect(all).not.toContain('matchenter');
      const onScreen = helpEntries().filter((e) => new RegExp(`(^|\\s\\s)${esc(e.label)}\\s\\s+${esc(e.hint.split(' ')[0]!)}`, 'm').test(all));
      if (columns === 120) expect(onScreen).toHaveLength(helpEntries().length);
      else expect(onScreen.length).toBeGreaterThan(8);
      for (const e of onScreen) expect(described(shown, e.label, e.hint.split(' ')[0]!), `${e.label}: ${e.hint}`).toBe(e.hint);
      for (const l of ls) expect(l.length).toBeLessThanOrEqual(columns);
    });
  }

  it('at 120x40 the notes under the keys are whole too (wrapped, not cut)', async () => {
    const ls = body(await helpAt(120, 40));
    const text = ls.map((l) => l.trim()).join(' ');
    expect(text).toContain('tab focuses the limiter, then the event log: j/k select a holder, waiter or event, enter opens its run, x/w/s act on it.');
    expect(text).toContain('new run: -a PROVIDER -p PROMPT [-n NAME] [-w WORKLOAD] …  or  -- COMMAND ARGS (quotes work as in a shell)');
  });
});
