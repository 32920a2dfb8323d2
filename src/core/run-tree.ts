// Runs that make runs: who is whose parent, how deep a run sits, and what a
// tree has spent. Pure: callers pass the runs (and a way to look one up) in.
//
// Decisions:
// - Depth counts ancestors: a run made from outside orcr is at depth 0, its
//   child at 1. A new run deeper than `max_depth` is refused, not queued.
// - A run's `tree` is what its descendants spent (its own usage stays in
//   `tokens` / `cost_usd`); rolled-up usage is the two added. Every ancestor
//   gets a descendant's increment on the same turn, ended ancestors included,
//   so a finished parent still tells the whole cost of what it started.
// - Only tokens and cost roll up: turns and time are each run's own.
// - A tree budget is a run's own `max_tokens` / `max_cost_usd` read against
//   its rolled-up usage, with the same meters (and tolerance) as a run's own.

import { firstTrip, meter, type Meter } from './budget.js';
import type { Run, TokenCounts } from './types.js';

export interface TreeUsage {
  tokens: TokenCounts;
  cost_usd: number;
}

/** The parent a new run gets, or why it gets none or is refused. */
export type ParentDecision =
  | { kind: 'root' }
  | { kind: 'child'; parent: string; depth: number }
  | { kind: 'unknown_parent'; ref: string }
  | { kind: 'ended_parent'; parent: Run }
  | { kind: 'too_deep'; parent: Run; depth: number; maxDepth: number };

/**
 * `ref` is the maker's ORCR_RUN (absent outside a run, or with --detach);
 * `found` is that run in this home, or null. An unknown run (another home's,
 * or one removed by retention) makes a root; an ended one (or one `ending`:
 * being killed or stopped) is refused, since nothing it started could be
 * accounted to it or ended with it.
 */
export function decideParent(ref: string | undefined, found: Run | null, maxDepth: number, ending = false): ParentDecision {
  if (ref === undefined || ref === '') return { kind: 'root' };
  if (found === null) return { kind: 'unknown_parent', ref };
  if (found.status === 'ended' || ending) return { kind: 'ended_parent', parent: found };
  const depth = depthOf(found) + 1;
  if (depth > maxDepth) return { kind: 'too_deep', parent: found, depth, maxDepth };
  return { kind: 'child', parent: found.uuid, depth };
}

function depthOf(run: Run): number {
  return run.depth;
}

function parentOf(run: Run): string | null {
  return run.parent;
}

/** The run's own usage plus its descendants'. */
export function rolledUp(run: Run): TreeUsage {
  const t = run.tree;
  return {
    tokens: { input: run.tokens.input + t.tokens.input, output: run.tokens.output + t.tokens.output, cached: run.tokens.cached + t.tokens.cached },
    cost_usd: roundUsd(run.cost_usd + t.cost_usd),
  };
}

/** What moved between two versions of one run's own usage. */
export function usageDelta(before: Run, after: Run): TreeUsage | null {
  const d = {
    tokens: {
      input: after.tokens.input - before.tokens.input,
      output: after.tokens.output - before.tokens.output,
      cached: after.tokens.cached - before.tokens.cached,
    },
    cost_usd: after.cost_usd - before.cost_usd,
  };
  return d.tokens.input === 0 && d.tokens.output === 0 && d.tokens.cached === 0 && d.cost_usd === 0 ? null : d;
}

/** An ancestor with a descendant's increment added to its tree. */
export function addToTree(ancestor: Run, d: TreeUsage): Run {
  const t = ancestor.tree;
  return {
    ...ancestor,
    tree: {
      tokens: { input: t.tokens.input + d.tokens.input, output: t.tokens.output + d.tokens.output, cached: t.tokens.cached + d.tokens.cached },
      cost_usd: roundUsd(t.cost_usd + d.cost_usd),
    },
  };
}

/** The run's ancestors, nearest first; stops at a run not found and at a cycle (which a journal edited by hand could hold). */
export function ancestors(run: Run, lookup: (uuid: string) => Run | null): Run[] {
  const out: Run[] = [];
  const seen = new Set([run.uuid]);
  let next = parentOf(run);
  while (next !== null && !seen.has(next)) {
    seen.add(next);
    const r = lookup(next);
    if (r === null) break;
    out.push(r);
    next = parentOf(r);
  }
  return out;
}

/**
 * A run and its ancestors: what `wait --all` from inside that run leaves
 * out, since none of them can settle while the caller waits (they could only
 * time out). Its descendants stay in.
 */
export function selfAndAncestors(run: Run | null, lookup: (uuid: string) => Run | null): Set<string> {
  return run === null ? new Set() : new Set([run.uuid, ...ancestors(run, lookup).map((a) => a.uuid)]);
}

/** Is `run` below `ancestor` (at any depth)? */
export function isDescendant(run: Run, ancestor: string, lookup: (uuid: string) => Run | null): boolean {
  return ancestors(run, lookup).some((a) => a.uuid === ancestor);
}

/** Every run of `runs` below `root`, parents before their children. */
export function descendantsOf(root: string, runs: Iterable<Run>): Run[] {
  const byParent = new Map<string, Run[]>();
  for (const r of runs) {
    const p = parentOf(r);
    if (p === null) continue;
    let list = byParent.get(p);
    if (!list) byParent.set(p, (list = []));
    list.push(r);
  }
  const out: Run[] = [];
  const seen = new Set([root]);
  const stack = [root];
  while (stack.length > 0) {
    for (const c of byParent.get(stack.shift()!) ?? []) {
      if (seen.has(c.uuid)) continue;
      seen.add(c.uuid);
      out.push(c);
      stack.push(c.uuid);
    }
  }
  return out;
}

/** The run's tree meters (tokens, cost) against its own ceilings; only meaningful once it has descendants. */
function treeMeters(run: Run): Meter[] {
  const u = rolledUp(run);
  return [meter('tokens', u.tokens.input + u.tokens.output, run.limits.max_tokens), meter('cost_usd', u.cost_usd, run.limits.max_cost_usd)];
}

/** The first tree meter over its ceiling, or null. */
export function treeTrip(run: Run): Meter | null {
  return firstTrip(treeMeters(run));
}

/** Runs in tree order for a listing: each parent followed by its children (queue order among siblings), with its level; a run whose parent is not listed is a root. */
export function treeOrder<T extends { uuid: string; parent: string | null; queue_seq: number }>(runs: readonly T[]): { run: T; level: number }[] {
  const listed = new Set(runs.map((r) => r.uuid));
  const byParent = new Map<string | null, T[]>();
  for (const r of runs) {
    const p = r.parent !== null && listed.has(r.parent) ? r.parent : null;
    let list = byParent.get(p);
    if (!list) byParent.set(p, (list = []));
    list.push(r);
  }
  for (const list of byParent.values()) list.sort((a, b) => a.queue_seq - b.queue_seq);
  const out: { run: T; level: number }[] = [];
  const seen = new Set<string>();
  const visit = (r: T, level: number): void => {
    if (seen.has(r.uuid)) return;
    seen.add(r.uuid);
    out.push({ run: r, level });
    for (const c of byParent.get(r.uuid) ?? []) visit(c, level + 1);
  };
  for (const r of byParent.get(null) ?? []) visit(r, 0);
  // A cycle has no root: list what is left flat rather than drop it.
  for (const r of runs) if (!seen.has(r.uuid)) visit(r, 0);
  return out;
}

function roundUsd(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
