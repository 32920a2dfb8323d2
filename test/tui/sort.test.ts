// The runs list's order: by status (the supervisor's own, queued runs in
// admission order) or by a column, either way round, remembered in tui.json.

import './no-ci.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPrefs, writePrefs } from '../../src/tui/state/prefs.js';
import { nextSortKey, reduceSnapshot, reduceSort } from '../../src/tui/state/reducers.js';
import { computeView } from '../../src/tui/state/runs-view.js';
import { SORT_KEYS, type SortKey, type SortSpec } from '../../src/tui/state/sort.js';
import { initialState } from '../../src/tui/state/store.js';
import { sortWords } from '../../src/tui/view/format.js';
import { run, T0 } from './fixtures.js';

const iso = (t: number): string => new Date(t).toISOString();
const fleet = [
  run({ name: 'bravo', status: 'working', cost_usd: 0.2, tokens: { input: 100, output: 50, cached: 0 }, started_at: iso(T0 - 60_000) }),
  run({ name: 'alpha', status: 'queued', queue_position: 2, cost_usd: 0, started_at: null }),
  run({
    name: 'delta',
    status: 'ended',
    exit_reason: 'completed',
    cost_usd: 1.5,
    tokens: { input: 10, output: 5, cached: 0 },
    started_at: iso(T0 - 600_000),
    ended_at: iso(T0 - 590_000),
  }),
  run({ name: 'charlie', status: 'queued', queue_position: 1, cost_usd: 0, started_at: null }),
  run({ name: 'echo', status: 'idle', cost_usd: 0.9, tokens: { input: 5000, output: 10, cached: 0 }, started_at: iso(T0 - 5_000) }),
];
const byId = Object.fromEntries(fleet.map((r) => [r.uuid, r]));
const order = (sort: SortSpec): string[] => computeView(byId, { filter: '', showAll: true, sort, now: T0 }).ids.map((id) => byId[id]!.name);

describe('sorting the runs', () => {
  it('by status is the default: statuses in their order, the queue in admission order', () => {
    expect(order({ key: 'status', reverse: false })).toEqual(['echo', 'bravo', 'charlie', 'alpha', 'delta']);
    expect(order({ key: 'status', reverse: true })).toEqual(['delta', 'alpha', 'charlie', 'bravo', 'echo']);
  });

  it('by a column: largest first (names A→Z), reversed on request; queue positions stay the admission order', () => {
    expect(order({ key: 'cost', reverse: false })).toEqual(['delta', 'echo', 'bravo', 'alpha', 'charlie']);
    expect(order({ key: 'cost', reverse: true })).toEqual(['charlie', 'alpha', 'bravo', 'echo', 'delta']);
    expect(order({ key: 'tokens', reverse: false }).slice(0, 3)).toEqual(['echo', 'bravo', 'delta']);
    expect(order({ key: 'name', reverse: false })).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(order({ key: 'name', reverse: true })).toEqual(['echo', 'delta', 'charlie', 'bravo', 'alpha']);
    // A live run's elapsed time runs to now; an ended one's stops at its end; not started counts least.
    expect(order({ key: 'elapsed', reverse: false })).toEqual(['bravo', 'delta', 'echo', 'alpha', 'charlie']);
    const view = computeView(byId, { filter: '', showAll: true, sort: { key: 'name', reverse: false }, now: T0 });
    const pos = (n: string): number | undefined => view.positions[fleet.find((r) => r.name === n)!.uuid];
    expect([pos('charlie'), pos('alpha')]).toEqual([1, 2]);
  });

  it('S cycles the columns and back to status; the words say which way', () => {
    const seen: SortKey[] = [SORT_KEYS[0]];
    for (let i = 0; i < SORT_KEYS.length; i++) seen.push(nextSortKey(seen.at(-1)!));
    expect(seen).toEqual(['status', 'elapsed', 'cost', 'tokens', 'name', 'status']);
    expect(sortWords({ key: 'cost', reverse: false })).toBe('cost, largest first');
    expect(sortWords({ key: 'name', reverse: true })).toBe('name, Z→A');
    const s = { ...initialState({ now: T0 }), ...reduceSnapshot(initialState({ now: T0 }), { seq: 1, runs: fleet }, T0) };
    const patch = reduceSort(s, { key: 'name', reverse: false });
    expect(patch.sort).toEqual({ key: 'name', reverse: false });
    expect(patch.view!.ids.map((id) => byId[id]!.name)[0]).toBe('alpha');
  });

  it('groups by provider or workload, the order inside each group kept; b cycles provider, workload, none', () => {
    const g = (group: 'provider' | 'workload', key: SortSpec['key'] = 'name'): string[] =>
      computeView(
        Object.fromEntries(
          [...fleet.map((r, i) => ({ ...r, provider: i % 2 ? 'zeta' : 'alpha', workload: r.name < 'c' ? 'w1' : 'w2' }))].map((r) => [r.uuid, r]),
        ),
        { filter: '', showAll: true, sort: { key, reverse: false, group }, now: T0 },
      ).ids.map((id) => byId[id]!.name);
    // alpha: bravo, delta, echo (even places); zeta: alpha, charlie — each by name.
    expect(g('provider')).toEqual(['bravo', 'delta', 'echo', 'alpha', 'charlie']);
    expect(g('workload')).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(sortWords({ key: 'cost', reverse: false, group: 'provider' })).toBe('cost, largest first, grouped by provider');
  });

  it('is remembered in tui.json beside the theme, and a broken entry is ignored', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-prefs-'));
    try {
      expect(writePrefs(dir, { theme: 'light' })).toBeNull();
      expect(writePrefs(dir, { sort: { key: 'cost', reverse: true } })).toBeNull();
      expect(readPrefs(dir)).toEqual({ theme: 'light', sort: { key: 'cost', reverse: true } });
      fs.writeFileSync(path.join(dir, 'tui.json'), JSON.stringify({ theme: 'light', sort: { key: 'colour', reverse: 1 } }));
      expect(readPrefs(dir)).toEqual({ theme: 'light' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
