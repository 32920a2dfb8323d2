// The filter prompt (`/`) refuses what it cannot read: the bad term is named
// on the filter line, and the list keeps the filter it had until the whole
// filter reads (enter does not close the prompt over a bad term).

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { reduceSnapshot } from '../../src/tui/state/reducers.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { run, T0 } from './fixtures.js';
import { fakeActions, KEY, lines, press, until } from './helpers.js';

afterEach(() => cleanup());

const themes = loadThemes([builtinThemeDir()]);

function setup(): ReturnType<typeof render> {
  const runs = [
    run({ name: 'pricey', status: 'working', cost_usd: 0.8, provider: 'claude' }),
    run({ name: 'cheap', status: 'working', cost_usd: 0.1, provider: 'codex' }),
    run({ name: 'later', status: 'queued', provider: 'gemini' }),
  ];
  const store = createTuiStore({ home: '/tmp/h', now: T0 + 5000 });
  store.setState((s) => reduceSnapshot(s, { seq: 1, runs }, T0 + 5000));
  return render(<App store={store} actions={fakeActions([])} themes={themes} onExit={() => undefined} size={{ columns: 120, rows: 30 }} />);
}

const footer = (f: string): string => lines(f).at(-2)!;
const title = (f: string): string => lines(f).find((l) => l.startsWith('─ Runs'))!;

describe('the filter prompt refuses a term it cannot read', () => {
  it('status:bogus and cost>abc are named on the filter line; the list is left as it was; enter keeps the prompt; a good filter then applies', async () => {
    const inst = setup();
    await until(inst, (f) => f.includes('Runs 3/3'));
    await press(inst, '/');
    await until(inst, (f) => f.includes('filter> '));
    await press(inst, 'status:bogus');
    let f = await until(inst, (x) => footer(x).includes('status:bogus'));
    expect(footer(f)).toContain('✗ status:bogus: no status bogus (queued, starting, working, idle, blocked, ended)');
    expect(title(f)).toContain('Runs 3/3');
    expect(title(f)).not.toContain('filter');
    await press(inst, KEY.enter);
    f = await until(inst, (x) => footer(x).includes('not applied'));
    expect(footer(f)).toContain('filter> status:bogus');
    expect(title(f)).toContain('Runs 3/3');

    await press(inst, '\x15', 'cost>abc');
    f = await until(inst, (x) => footer(x).includes('✗ cost>abc: cost takes a number'));
    expect(title(f)).toContain('Runs 3/3');
    await press(inst, KEY.enter);
    f = await until(inst, (x) => footer(x).includes('not applied'));
    expect(footer(f)).toContain('filter> cost>abc');

    await press(inst, '\x15', 'cost>0.5');
    f = await until(inst, (x) => title(x).includes('Runs 1/3'));
    expect(f).toContain('pricey');
    expect(f).not.toContain('cheap');
    await press(inst, KEY.enter);
    f = await until(inst, (x) => !x.includes('filter> '));
    expect(title(f)).toContain('filter "cost>0.5"');
  });
});
