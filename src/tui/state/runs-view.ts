// The runs list as the panes show it: from the rows by id, a sorted,
// filtered list of ids with the counts by status, queue positions, the runs
// that need a person, and the tree of runs that make runs; worked out again
// in part (updateView) when only a few rows changed. Pure: \`now\` passed in.

import { attentionOf, type Attention } from './attention.js';
import { parseFilter } from './filter.js';
import { compareRuns, queueCompare, DEFAULT_SORT, groupName, sortCompare, STATUS_RANK, type SortSpec } from './sort.js';
import type { RunStatus } from '../../core/types.js';
import type { PublicRun } from '../../protocol/views.js';

export interface ViewOptions {
  filter: string;
  showAll: boolean;
  /** Default: by status. */
  sort?: SortSpec;
  /** For sorting by elapsed time, and the countdowns of runs that need you. */
  now?: number;
  /** Ended runs whose details were opened: they no longer need you. */
  seen?: Readonly<Record<string, true>>;
  /** Runs whose children are folded away (`z`). */
  collapsed?: Readonly<Record<string, true>>;
}

export interface RunsView {
  ids: string[];
  /** Each queued run's place in admission order, as the supervisor gives it (queue_position; all queued runs, not just the listed ones). */
  positions: Readonly<Record<string, number>>;
  counts: Readonly<Record<RunStatus, number>>;
  total: number;
  /** Listed runs that need a person, with why; they lead `ids`, newest first. */
  attention: Readonly<Record<string, Attention>>;
  /** How far a listed run is indented under its listed parent (absent: 0). */
  depth?: Readonly<Record<string, number>>;
  /** Listed runs with listed children: how many descendants are folded away (0: unfolded). */
  folded?: Readonly<Record<string, number>>;
  /** Some listed run has a worktree (the CHANGES column shows then). */
  worktrees?: boolean;
}

/** Each view and what it was computed from: updateView may start from it only with the same options. */
const viewSources = new WeakMap<RunsView, { byId: Readonly<Record<string, PublicRun>>; opts: ViewOptions }>();

/** Rows to show: active or all, matching the filter, sorted by status, queued runs in admission order. */
export function computeView(byId: Readonly<Record<string, PublicRun>>, opts: ViewOptions): RunsView {
  const view = computeWholeView(byId, opts);
  viewSources.set(view, { byId, opts });
  return view;
}

/** What one pass over every run finds: the counts, the queue's places, and the listed runs by where they go. */
interface Tally {
  counts: Record<RunStatus, number>;
  positions: Record<string, number>;
  total: number;
  /** Listed runs that need a person, with why. */
  needy: { r: PublicRun; a: Attention }[];
  /** Listed queued runs that do not. */
  queued: PublicRun[];
  /** The other listed runs. */
  others: PublicRun[];
  /** Some listed run has a parent: only then is there a tree to lay out. */
  nested: boolean;
  worktrees: boolean;
}

function tally(byId: Readonly<Record<string, PublicRun>>, opts: ViewOptions, now: number): Tally {
  const filter = parseFilter(opts.filter);
  const seen = opts.seen ?? {};
  const t: Tally = {
    counts: { queued: 0, starting: 0, working: 0, idle: 0, blocked: 0, ended: 0 },
    positions: {},
    total: 0,
    needy: [],
    queued: [],
    others: [],
    nested: false,
    worktrees: false,
  };
  const counts = t.counts;
  for (const uuid in byId) {
    const r = byId[uuid]!;
    t.total++;
    // A switch, not `status in counts`: this loop runs over every run on every frame.
    switch (r.status) {
      case 'queued':
        counts.queued++;
        if (r.queue_position !== null) t.positions[uuid] = r.queue_position;
        break;
      case 'ended':
        counts.ended++;
        break;
      case 'working':
        counts.working++;
        break;
      case 'idle':
        counts.idle++;
        break;
      case 'starting':
        counts.starting++;
        break;
      case 'blocked':
        counts.blocked++;
        break;
    }
    const a = attentionOf(r, now, seen);
    // An ended run that needs you is listed even with active runs only: it is why you look.
    if (!opts.showAll && r.status === 'ended' && a === null) continue;
    if (!filter.empty && !filter.test(r)) continue;
    if (r.worktree) t.worktrees = true;
    if (r.parent) t.nested = true;
    if (a !== null) t.needy.push({ r, a });
    else if (r.status === 'queued') t.queued.push(r);
    else t.others.push(r);
  }
  return t;
}

/** The listed runs that do not lead, in the order chosen (before the tree). */
function listOrder(t: Tally, byId: Readonly<Record<string, PublicRun>>, sort: SortSpec, now: number): string[] {
  // The listed queued runs go, in the supervisor's admission order, where queued runs sort.
  const listedQueue = t.queued.sort(queueCompare);
  const others = t.others.sort(compareRuns);
  const ids: string[] = [];
  const queuedRank = STATUS_RANK.queued!;
  let i = 0;
  for (; i < others.length && (STATUS_RANK[others[i]!.status] ?? 9) < queuedRank; i++) ids.push(others[i]!.uuid);
  for (const r of listedQueue) ids.push(r.uuid);
  for (; i < others.length; i++) ids.push(others[i]!.uuid);
  if (sort.group) {
    // Grouped: a stable sort by the group's name keeps the chosen order inside each group.
    const g = sort.group;
    const inOrder = sort.key !== 'status' ? [...others, ...listedQueue].sort(sortCompare(sort.key, now)) : ids.map((id) => byId[id]!);
    if (sort.reverse) inOrder.reverse();
    const key = new Map(inOrder.map((r) => [r.uuid, groupName(r, g)]));
    return inOrder
      .map((r) => r.uuid)
      .sort((a, b) => {
        const [ra, na] = key.get(a)!;
        const [rb, nb] = key.get(b)!;
        return ra - rb || (na < nb ? -1 : na > nb ? 1 : 0);
      });
  }
  if (sort.key !== 'status') {
    // Positions stay the admission order's; only the listing is ordered otherwise.
    const rows = [...others, ...listedQueue].sort(sortCompare(sort.key, now));
    if (sort.reverse) rows.reverse();
    return rows.map((r) => r.uuid);
  }
  if (sort.reverse) ids.reverse();
  return ids;
}

function computeWholeView(byId: Readonly<Record<string, PublicRun>>, opts: ViewOptions): RunsView {
  const now = opts.now ?? Date.now();
  const t = tally(byId, opts, now);
  const order = listOrder(t, byId, opts.sort ?? DEFAULT_SORT, now);
  // The runs that need you lead, newest first, whatever the order of the rest.
  t.needy.sort((x, y) => y.a.at - x.a.at || x.r.queue_seq - y.r.queue_seq);
  const attention: Record<string, Attention> = {};
  for (const { r, a } of t.needy) attention[r.uuid] = a;
  const lead = t.needy.map(({ r }) => r.uuid);
  const tree: ReturnType<typeof asTree> = t.nested ? asTree(order, byId, opts.collapsed ?? {}, lead) : {};
  return {
    ids: tree.ids ? [...lead, ...tree.ids] : lead.length ? [...lead, ...order] : order,
    positions: t.positions,
    counts: t.counts,
    total: t.total,
    attention,
    depth: tree.depth,
    folded: tree.folded,
    worktrees: t.worktrees,
  };
}

/** Most changes at once that updateView takes on; past it, computing the whole view is as cheap. */
const UPDATE_MAX = 64;
const sameOptions = (a: ViewOptions, b: ViewOptions): boolean =>
  a.filter === b.filter &&
  a.showAll === b.showAll &&
  (a.sort ?? DEFAULT_SORT) === (b.sort ?? DEFAULT_SORT) &&
  a.now === b.now &&
  a.seen === b.seen &&
  a.collapsed === b.collapsed;

// The order computeView lists runs in: by status, queued runs in admission order, the others by queue_seq.
function compareListed(a: PublicRun, b: PublicRun): number {
  const d = STATUS_RANK[a.status]! - STATUS_RANK[b.status]!;
  if (d !== 0) return d;
  return a.status === 'queued' ? queueCompare(a, b) : a.queue_seq - b.queue_seq;
}

/** Puts run `u` (its row `r`) into `ids`, sorted after the first `lead`, where it sorts; false when a listed run has no row. */
function insertSorted(ids: string[], lead: number, u: string, r: PublicRun, byId: Readonly<Record<string, PublicRun>>): boolean {
  let lo = lead;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const other = byId[ids[mid]!];
    if (!other) return false;
    if (compareListed(other, r) < 0) lo = mid + 1;
    else hi = mid;
  }
  ids.splice(lo, 0, u);
  return true;
}

/** The queue's places with those of the changed runs as they are now. */
function positionsAfter(
  prev: Readonly<Record<string, number>>,
  changed: ReadonlySet<string>,
  byId: Readonly<Record<string, PublicRun>>,
): Record<string, number> {
  // A loop, not a spread: V8 copies an object of thousands of keys faster so.
  const next: Record<string, number> = {};
  for (const u in prev) next[u] = prev[u]!;
  for (const u of changed) {
    const r = byId[u];
    if (r?.status === 'queued' && r.queue_position !== null) next[u] = r.queue_position;
    else delete next[u];
  }
  return next;
}

/**
 * The view computeView gives for `byId`, from the one it gave for the rows
 * before (`prev`, from `oldById`) when only the runs in `changed` differ:
 * those are taken out of the list and put back where they now sort, and the
 * counts moved, without going over every run (at hundreds of events a second
 * that pass is a frame's largest cost in the store). Only for the plain case —
 * no filter, the status order, no tree, no worktree, none of the changed runs
 * needing a person — and only from a view computed with the same options;
 * null otherwise, and the caller computes the whole view.
 */
export function updateView(
  prev: RunsView,
  oldById: Readonly<Record<string, PublicRun>>,
  byId: Readonly<Record<string, PublicRun>>,
  changed: ReadonlySet<string>,
  opts: ViewOptions,
): RunsView | null {
  const source = viewSources.get(prev);
  if (!source || source.byId !== oldById || !sameOptions(source.opts, opts)) return null;
  const sort = opts.sort ?? DEFAULT_SORT;
  if (opts.filter !== '' || sort.key !== 'status' || sort.reverse || sort.group || prev.depth || prev.folded || prev.worktrees) return null;
  if (changed.size > UPDATE_MAX) return null;
  const now = opts.now ?? Date.now();
  const seen = opts.seen ?? {};
  const plain = (r: PublicRun | undefined): boolean =>
    r === undefined || (r.status in STATUS_RANK && !r.parent && !r.worktree && attentionOf(r, now, seen) === null);
  for (const u of changed) if (!plain(oldById[u]) || !plain(byId[u])) return null;
  const listed = (r: PublicRun | undefined): r is PublicRun => r !== undefined && (opts.showAll || r.status !== 'ended');
  const lead = Object.keys(prev.attention).length;
  const ids = prev.ids.slice();
  const counts = { ...prev.counts } as Record<RunStatus, number>;
  let total = prev.total;
  let queueMoved = false;
  // Out first, so that what stays is sorted by rows that did not change; then each back in its place.
  for (const u of changed) {
    const old = oldById[u];
    if (!old) continue;
    counts[old.status]--;
    total--;
    if (old.status === 'queued') queueMoved = true;
    if (!listed(old)) continue;
    const at = ids.indexOf(u, lead);
    if (at < 0) return null;
    ids.splice(at, 1);
  }
  for (const u of changed) {
    const r = byId[u];
    if (!r) continue;
    counts[r.status]++;
    total++;
    if (r.status === 'queued') queueMoved = true;
    if (!listed(r)) continue;
    if (!insertSorted(ids, lead, u, r, byId)) return null;
  }
  const positions = queueMoved ? positionsAfter(prev.positions, changed, byId) : prev.positions;
  // The runs that lead keep their place (their rows did not change); a countdown in their reason is read afresh.
  const attention: Record<string, Attention> = {};
  for (let i = 0; i < lead; i++) {
    const a = attentionOf(byId[ids[i]!]!, now, seen);
    if (a === null) return null;
    attention[ids[i]!] = a;
  }
  const view: RunsView = { ids, positions, counts, total, attention, depth: undefined, folded: undefined, worktrees: false };
  viewSources.set(view, { byId, opts });
  return view;
}

/**
 * Children under their parent, in the order given among siblings (agents
 * that spawn agents): a run whose parent is listed goes right after it,
 * indented, unless the parent is folded. Null ids: no listed run has a
 * listed parent, the order stands. Runs that lead the list (they need you)
 * stay there and do not drag their subtree along.
 */
function asTree(
  ordered: readonly string[],
  byId: Readonly<Record<string, PublicRun>>,
  collapsed: Readonly<Record<string, true>>,
  lead: readonly string[],
): { ids?: string[]; depth?: Record<string, number>; folded?: Record<string, number> } {
  const listed = new Set(ordered);
  const kids = new Map<string, string[]>();
  for (const id of ordered) {
    const p = byId[id]?.parent;
    if (p && listed.has(p)) {
      let k = kids.get(p);
      if (!k) kids.set(p, (k = []));
      k.push(id);
    }
  }
  if (kids.size === 0) return {};
  const ids: string[] = [];
  const depth: Record<string, number> = {};
  const folded: Record<string, number> = {};
  const count = (id: string): number => (kids.get(id) ?? []).reduce((n, c) => n + 1 + count(c), 0);
  const visit = (id: string, d: number, seen: Set<string>): void => {
    if (seen.has(id)) return; // a cycle would be a journal bug: show each run once whatever
    seen.add(id);
    ids.push(id);
    if (d > 0) depth[id] = d;
    const k = kids.get(id);
    if (!k) return;
    if (collapsed[id]) {
      folded[id] = count(id);
      return;
    }
    folded[id] = 0;
    for (const c of k) visit(c, d + 1, seen);
  };
  const seen = new Set<string>(lead);
  for (const id of ordered) {
    const p = byId[id]?.parent;
    if (!(p && listed.has(p))) visit(id, 0, seen);
  }
  return { ids, depth, folded };
}
