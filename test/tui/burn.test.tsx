// Burn rates: what each run spent minute by minute as its totals grew, its
// rate over the last five minutes, the fleet's, and their sparklines.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import { Header } from '../../components/Header.js';
import { RunsTable } from '../../components/RunsTable.js';
import { noteTotals } from '../../src/tui/state/burn.js';
import { reduceSnapshot, reduceStream } from '../../src/tui/state/reducers.js';
import { createTuiStore, initialState } from '../../src/tui/state/store.js';
import { fleetRate, rateOf, sparkline } from '../../src/tui/view/burn.js';
import { lines, renderPane } from './helpers.js';
import { ev, run, T0 } from './fixtures.js';

const MIN = 60_000;
const at = (m: number): number => T0 + m * MIN;

describe('burn', () => {
  it('counts what grew since last seen in its minute; the first sight is only a starting point', () => {
    let b = noteTotals(undefined, 50_000, 2, at(0));
    expect(rateOf(b, at(0)).tokensPerMin).toBe(0);
    b = noteTotals(b, 51_000, 2.1, at(1));
    b = noteTotals(b, 53_000, 2.3, at(2));
    const r = rateOf(b, at(2));
    // 3,000 tokens and $0.30 over the last five minutes.
    expect(r.tokensPerMin).toBe(600);
    expect(r.costPerHour).toBeCloseTo(3.6, 10);
    expect(r.spark.slice(-3)).toEqual([0, 1000, 2000]);
    // Nothing new is no change; the minutes age out as time goes on.
    expect(noteTotals(b, 53_000, 2.3, at(3))).toBe(b);
    expect(rateOf(b, at(7)).tokensPerMin).toBe(0);
    expect(rateOf(b, at(20)).spark.every((v) => v === 0)).toBe(true);
  });

  it('the fleet is every run summed; a sparkline scales to its largest minute', () => {
    const a = noteTotals(noteTotals(undefined, 0, 0, at(0)), 1000, 0.1, at(1));
    const b = noteTotals(noteTotals(undefined, 0, 0, at(0)), 4000, 0, at(1));
    const f = fleetRate({ a, b }, at(1));
    expect(f.tokensPerMin).toBe(1000);
    expect(sparkline([0, 1, 2, 4, 8])).toBe(' ▂▃▅█');
    expect(sparkline([0, 0])).toBe('  ');
  });

  it('a stream of usage moves the burn; the header and the BURN column show it', async () => {
    const r0 = run({ name: 'spender', status: 'working', tokens: { input: 1000, output: 0, cached: 0 }, cost_usd: 0.1 });
    const store = createTuiStore({ home: '/h', now: at(2) });
    store.setState((s) => reduceSnapshot(s, { seq: 1, runs: [r0] }, at(0)));
    const grown = { ...r0, tokens: { input: 13_000, output: 2_000, cached: 0 }, cost_usd: 0.7 };
    const msg = { type: 'event' as const, event: { ...ev(2, 'usage', r0.uuid, {}), ts: at(1) }, run: grown };
    store.setState((s) => reduceStream(s, [msg]).patch);
    const b = store.getState().burn[r0.uuid]!;
    expect(rateOf(b, at(2)).tokensPerMin).toBe(2800);
    store.setState({ conn: { state: 'up', pid: 1, startedAt: T0, error: null, since: T0, starting: false } });
    const header = renderPane(store, <Header width={160} />);
    expect(lines(header.lastFrame()!)[1]).toMatch(/burn\s+\S+ 2\.8k tok\/min · \$7\.20\/h/);
    const table = renderPane(store, <RunsTable width={170} body={4} />);
    const row = lines(table.lastFrame()!).find((l) => l.includes('spender'))!;
    expect(row).toMatch(/\$0\.70 +█ +\$7\.20\/h/);
    expect(initialState().burn).toEqual({});
  });
});
