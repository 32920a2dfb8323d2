// A small terminal keeps what a person needs — how to get help and how to
// get out, the supervisor's state, why a run needs you — and drops the
// optional parts first; what must still be cut ends with an ellipsis.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import { PaneTitle } from '../../components/context.js';
import { createTuiStore, type TuiStore } from '../../src/tui/state/store.js';
import { reduceSnapshot } from '../../src/tui/state/reducers.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { textWidth } from '../../src/tui/view/format.js';
import { footerHints } from '../../src/tui/view/key-hints.js';
import { run, statsOf, T0 } from './fixtures.js';
import { fakeActions, lines, press, renderPane, until } from './helpers.js';

afterEach(() => cleanup());

const themes = loadThemes([builtinThemeDir()]);
const NOW = T0 + 120_000;
const HOME = '/tmp/orcr-a-rather-long-home-folder-name-for-a-small-terminal-xyz';

function store(runs: ReturnType<typeof run>[], withStats = true): TuiStore {
  const st = createTuiStore({ home: HOME, now: NOW });
  st.setState((s) => reduceSnapshot(s, { seq: 1, runs }, NOW));
  st.setState({ conn: { state: 'up', pid: 4321, startedAt: T0, error: null, since: T0, starting: false } });
  if (withStats) {
    st.setState({
      stats: statsOf({
        caps: [],
        holds: { claude: NOW + 90_000 },
        fleet: { exceeded: false, window: 'all', meters: { cost_usd: { used: 4.5, limit: 10, fraction: 0.45, warn: false } } },
      }),
    });
  }
  return st;
}

function app(st: TuiStore, columns: number, rows: number): ReturnType<typeof render> {
  return render(<App store={st} actions={fakeActions([])} themes={themes} onExit={() => undefined} size={{ columns, rows }} />);
}

const fleet = (): ReturnType<typeof run>[] => [
  run({ name: 'build-api', status: 'working', turns: 3 }),
  run({ name: 'crashed', status: 'ended', exit_reason: 'errored', exit_code: 1, status_at: new Date(NOW - 30_000).toISOString() }),
  run({ name: 'done', status: 'ended', exit_reason: 'completed', exit_code: 0 }),
];

describe('at 80x24', () => {
  it('the footer keeps "? help" and "q quit" (the optional hints go first), and nothing in it is cut', async () => {
    const inst = app(store(fleet()), 80, 24);
    const f = await until(inst, (x) => x.includes('Runs 3/3'));
    const keys = lines(f).at(-1)!;
    expect(keys).toContain('? help');
    expect(keys).toContain('q quit');
    expect(keys).toContain('j/k move');
    expect(keys).not.toContain('…');
    expect(textWidth(keys)).toBeLessThanOrEqual(80);
    // Details and the other views too.
    await press(inst, '\r');
    const d = await until(inst, (x) => x.includes('Details: '));
    expect(lines(d).at(-1)).toContain('? help');
    expect(lines(d).at(-1)).toContain('q quit');
    expect(lines(d).at(-1)).toContain('esc back');
  });

  it('the header drops optional parts whole instead of cutting a word: the supervisor is always named; meters make way for holds', async () => {
    const inst = app(store(fleet()), 80, 24);
    const f = await until(inst, (x) => x.includes('Runs 3/3'));
    const [l1, l2] = lines(f);
    expect(l1).toMatch(/● supervisor pid 4321( · up 2m)?$/);
    expect(l1).toContain('orcr …');
    expect(textWidth(l1!)).toBeLessThanOrEqual(80);
    expect(l2).toContain('hold claude 1m30s');
    expect(l2).not.toContain('…');
    expect(textWidth(l2!)).toBeLessThanOrEqual(80);
    // Wide enough, everything is there.
    cleanup();
    const wide = app(store(fleet()), 200, 40);
    const w = await until(wide, (x) => x.includes('Runs 3/3'));
    expect(lines(w)[0]).toContain(`orcr ${HOME}  ● supervisor pid 4321 · up 2m`);
    expect(lines(w)[1]).toContain('fleet cost');
    expect(lines(w)[1]).toContain('hold claude 1m30s');
  });

  it('WHY says in full why an errored run needs you, with no run queued', async () => {
    const inst = app(store(fleet(), false), 80, 24);
    const f = await until(inst, (x) => x.includes('Runs 3/3'));
    const row = lines(f).find((l) => l.includes('crashed'))!;
    expect(row).toMatch(/■ ended\s+errored \(exit 1\)\s+crashed/);
  });

  it('on a narrower table WHY drops the detail before it cuts a word', async () => {
    const inst = app(store(fleet(), false), 44, 24);
    const f = await until(inst, (x) => x.includes('Runs 3/3'));
    const row = lines(f).find((l) => l.includes('crashed'))!;
    expect(row).toMatch(/■ ended\s+errored\s+crashed/);
    expect(row).not.toContain('…');
  });
});

describe('footer hints', () => {
  it('in every context the hints that fit keep help and quit', () => {
    for (const ctx of ['list', 'details', 'pager', 'diff', 'help', 'spend', 'loops'] as const) {
      const labels = footerHints(ctx).map((h) => h.label);
      expect(labels, ctx).toContain('?');
      expect(labels, ctx).toContain('q');
    }
  });
});

describe('pane titles', () => {
  it('a title cut to the width ends with …, and the right-hand text makes way first', () => {
    const st = store([]);
    const f = renderPane(st, <PaneTitle title="Details: a-run-with-a-very-long-name-that-cannot-fit" width={30} right="esc back" />).lastFrame()!;
    expect(f).toMatch(/^─ Details: a-run-with-a-ver… ─$/);
    expect(textWidth(f)).toBeLessThanOrEqual(30);
    cleanup();
    const g = renderPane(st, <PaneTitle title="Runs 31/31" width={40} right="5 need you · all · 17-23 of 31 · by cost" />).lastFrame()!;
    expect(g).toMatch(/^─ Runs 31\/31 ─+ 5 need you · all … ─$/);
    expect(textWidth(g)).toBe(40);
  });
});
