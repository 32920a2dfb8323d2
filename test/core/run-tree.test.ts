// The pure side of nested runs: who a new run's parent is, roll-up of a
// descendant's spend, tree budgets, descendants and listing order.

import { describe, expect, it } from 'vitest';
import { newRun } from '../../src/core/run-record.js';
import {
  addToTree,
  ancestors,
  decideParent,
  descendantsOf,
  isDescendant,
  rolledUp,
  selfAndAncestors,
  treeOrder,
  treeTrip,
  usageDelta,
} from '../../src/core/run-tree.js';
import type { Run } from '../../src/core/types.js';

let seq = 0;
function mk(uuid: string, parent: string | null = null, depth = 0, over: Partial<Run> = {}): Run {
  return {
    ...newRun({ uuid, name: uuid, provider: 'p', workload: 'w', queue_seq: ++seq, command: ['x'], cwd: '/', now: 0, parent, depth }),
    status: 'working',
    ...over,
  };
}

describe('run tree', () => {
  it('decides a parent: none outside a run, a child one level down, refused when ended or too deep, none for an unknown run', () => {
    const root = mk('r');
    expect(decideParent(undefined, null, 3)).toEqual({ kind: 'root' });
    expect(decideParent('zz', null, 3)).toEqual({ kind: 'unknown_parent', ref: 'zz' });
    expect(decideParent('r', root, 3)).toEqual({ kind: 'child', parent: 'r', depth: 1 });
    expect(decideParent('r', { ...root, status: 'ended' }, 3).kind).toBe('ended_parent');
    expect(decideParent('r', root, 3, true).kind).toBe('ended_parent');
    const great = mk('g', 'x', 3);
    expect(decideParent('g', great, 3)).toMatchObject({ kind: 'too_deep', depth: 4, maxDepth: 3 });
    expect(decideParent('g', mk('g2', 'x', 2), 3)).toMatchObject({ kind: 'child', depth: 3 });
    expect(decideParent('r', root, 0).kind).toBe('too_deep');
  });

  it("rolls a child's increment into its ancestors and reads their ceilings against the whole tree", () => {
    const parent = mk('p', null, 0, {
      limits: { ...mk('x').limits, max_tokens: 1000, max_cost_usd: 1 },
      tokens: { input: 100, output: 0, cached: 0 },
      cost_usd: 0.1,
    });
    const before = mk('c', 'p', 1);
    const after = { ...before, tokens: { input: 800, output: 150, cached: 5 }, cost_usd: 0.3 };
    const d = usageDelta(before, after)!;
    expect(d).toEqual({ tokens: { input: 800, output: 150, cached: 5 }, cost_usd: 0.3 });
    expect(usageDelta(after, after)).toBeNull();
    const rolled = addToTree(parent, d);
    expect(rolledUp(rolled)).toEqual({ tokens: { input: 900, output: 150, cached: 5 }, cost_usd: 0.4 });
    // 1,050 counted tokens over a 1,000 ceiling: the tree trips though the parent spent 100 itself.
    expect(treeTrip(rolled)).toMatchObject({ name: 'tokens', used: 1050, limit: 1000 });
    expect(treeTrip(parent)).toBeNull();
    // Cost sums keep to a millionth of a dollar (no 0.30000000000000004).
    expect(addToTree(addToTree(mk('q'), { ...d, cost_usd: 0.1 }), { ...d, cost_usd: 0.2 }).tree.cost_usd).toBe(0.3);
  });

  it('walks ancestors nearest first, and survives a missing run and a cycle', () => {
    const runs = new Map<string, Run>([
      ['a', mk('a')],
      ['b', mk('b', 'a', 1)],
      ['c', mk('c', 'b', 2)],
      ['x', mk('x', 'y', 1)],
      ['y', mk('y', 'x', 1)],
      ['o', mk('o', 'gone', 1)],
    ]);
    const lookup = (u: string) => runs.get(u) ?? null;
    expect(ancestors(runs.get('c')!, lookup).map((r) => r.uuid)).toEqual(['b', 'a']);
    expect(isDescendant(runs.get('c')!, 'a', lookup)).toBe(true);
    expect(isDescendant(runs.get('a')!, 'c', lookup)).toBe(false);
    expect(ancestors(runs.get('x')!, lookup).map((r) => r.uuid)).toEqual(['y']);
    expect(ancestors(runs.get('o')!, lookup)).toEqual([]);
    // What wait --all from inside a run leaves out: the run and its ancestors, never its descendants.
    expect([...selfAndAncestors(runs.get('b')!, lookup)]).toEqual(['b', 'a']);
    expect([...selfAndAncestors(runs.get('x')!, lookup)].sort()).toEqual(['x', 'y']);
    expect(selfAndAncestors(null, lookup).size).toBe(0);
  });

  it('finds descendants parents first, and lists a tree with each run under its parent', () => {
    const runs = [mk('a'), mk('b', 'a', 1), mk('z'), mk('c', 'b', 2), mk('d', 'a', 1), mk('e', 'missing', 1)];
    expect(descendantsOf('a', runs).map((r) => r.uuid)).toEqual(['b', 'd', 'c']);
    expect(descendantsOf('z', runs)).toEqual([]);
    const listed = runs.map((r) => ({ uuid: r.uuid, parent: r.parent ?? null, queue_seq: r.queue_seq }));
    expect(treeOrder(listed).map((o) => `${o.level}:${o.run.uuid}`)).toEqual(['0:a', '1:b', '2:c', '1:d', '0:z', '0:e']);
  });
});
