// Agents that spawn agents, in the runs list: children under their parent,
// indented, foldable with z; the parent's cost is its tree's.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import { RunsTable } from '../../components/RunsTable.js';
import { reduceFold, reduceSnapshot } from '../../src/tui/state/reducers.js';
import { computeView } from '../../src/tui/state/runs-view.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { lines, renderPane } from './helpers.js';
import { run, T0 } from './fixtures.js';

const root = run({ name: 'lead', status: 'working', queue_seq: 1, cost_usd: 0.2, rollup: { tokens: { input: 0, output: 0, cached: 0 }, cost_usd: 1.5 } });
const other = run({ name: 'alone', status: 'working', queue_seq: 2 });
const kidA = run({ name: 'kid-a', status: 'working', queue_seq: 3, parent: root.uuid, depth: 1 });
const kidB = run({ name: 'kid-b', status: 'queued', queue_seq: 4, parent: root.uuid, depth: 1 });
const grand = run({ name: 'grand', status: 'working', queue_seq: 5, parent: kidA.uuid, depth: 2 });
const all = [root, other, kidA, kidB, grand].map((r) =>
  r.uuid === root.uuid ? { ...r, children: [kidA.uuid, kidB.uuid] } : r.uuid === kidA.uuid ? { ...r, children: [grand.uuid] } : r,
);
const byId = Object.fromEntries(all.map((r) => [r.uuid, r]));
const names = (ids: readonly string[]): string[] => ids.map((id) => byId[id]!.name);

describe('the run tree', () => {
  it('lists children right under their parent, indented, in the order of the rest; folded, a parent hides its subtree', () => {
    const v = computeView(byId, { filter: '', showAll: true, now: T0 });
    expect(names(v.ids)).toEqual(['lead', 'kid-a', 'grand', 'kid-b', 'alone']);
    expect(v.depth).toEqual({ [kidA.uuid]: 1, [grand.uuid]: 2, [kidB.uuid]: 1 });
    expect(v.folded).toEqual({ [root.uuid]: 0, [kidA.uuid]: 0 });
    const f = computeView(byId, { filter: '', showAll: true, now: T0, collapsed: { [root.uuid]: true } });
    expect(names(f.ids)).toEqual(['lead', 'alone']);
    expect(f.folded![root.uuid]).toBe(3);
    // A child whose parent is filtered out stands on its own.
    const only = computeView(byId, { filter: 'name:kid-*', showAll: true, now: T0 });
    expect(names(only.ids)).toEqual(['kid-a', 'kid-b']);
    expect(only.depth).toBeUndefined();
  });

  it('draws the tree: ▾ and indentation, ▸ name +N folded, the parent’s cost as its tree’s (Σ)', async () => {
    const store = createTuiStore({ home: '/h', now: T0 });
    store.setState((s) => reduceSnapshot(s, { seq: 1, runs: all }, T0));
    const inst = renderPane(store, <RunsTable width={160} body={8} />);
    let ls = lines(inst.lastFrame()!);
    const row = (n: string): string => ls.find((l) => l.includes(n))!;
    expect(row('lead')).toMatch(/▾ lead\s.*Σ\$1\.50/);
    expect(row('kid-a')).toMatch(/  ▾ kid-a\s/);
    expect(row('grand')).toMatch(/    grand\s/);
    expect(row('kid-b')).toMatch(/  kid-b\s/);
    store.setState((s) => reduceFold(s, root.uuid));
    await new Promise((r) => setImmediate(r));
    ls = lines(inst.lastFrame()!);
    expect(row('lead')).toMatch(/▸ lead \+3\s/);
    expect(ls.some((l) => l.includes('kid-a'))).toBe(false);
  });
});
