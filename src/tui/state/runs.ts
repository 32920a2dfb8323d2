// The runs as the TUI holds them: a snapshot and the event stream become
// normalized rows (byId), made terminal-safe once on the way in, and a
// sorted, filtered view of ids with counts and queue positions. Pure: no
// I/O, `now` passed in.

import { attentionOf, type Attention } from './attention.js';
import { parseFilter } from './filter.js';
import type { RunEvent } from '../../core/events.js';
import type { RowsMessage, StreamMessage } from '../../client/client.js';

/** What the stream brings, in order: events with their row, and rows that changed without one. */
export type Incoming = StreamMessage | RowsMessage;
import type { PublicRun } from '../../protocol/views.js';
import { hasControls, safeLine } from '../../text/terminal-text.js';
import type { Status } from '../view/format.js';
import type { Stats } from './stats.js';

/** Sort order: what needs a person first, then what runs, then what waits, then history. */
const STATUS_RANK: Readonly<Record<string, number>> = { blocked: 0, idle: 1, working: 2, starting: 3, queued: 4, ended: 5 };

export interface RunsData {
  byId: Readonly<Record<string, PublicRun>>;
  /** The last journal seq applied: stream events at or below it are already in. */
  seq: number;
}

export interface Snapshot {
  seq: number;
  runs: PublicRun[];
  /** Runs the home holds; more than `runs` when the snapshot was cut to the newest (`truncated`). */
  total?: number;
  truncated?: boolean;
  events?: RunEvent[];
}

// ---------------------------------------------------------------------------
// Text from agents. Every string a run or an event carries may hold escape
// sequences (an agent's output, a name typed by someone else); the TUI makes
// it safe once, when it comes in, so no pane can forget to and no frame pays
// for it again.

/** One line of terminal-safe text (the test is one regexp; most text passes as is). */
export const clean = (v: string): string => (hasControls(v) ? safeLine(v) : v);
const cleanOrNull = (v: string | null): string | null => (v === null ? null : clean(v));

const RUN_TEXT = ['name', 'provider', 'workload', 'protocol', 'status', 'exit_reason', 'exit_detail', 'blocked_kind', 'cwd', 'session_id', 'last_tool', 'last_text'] as const;

/** The run with every text field terminal-safe; the same object when nothing needed it. */
export function safeRun(r: PublicRun): PublicRun {
  let out: PublicRun | null = null;
  for (const k of RUN_TEXT) {
    const v = r[k];
    if (typeof v === 'string' && hasControls(v)) {
      out ??= { ...r };
      (out as unknown as Record<string, string>)[k] = safeLine(v);
    }
  }
  if (r.command.some(hasControls)) {
    out ??= { ...r };
    out.command = r.command.map(clean);
  }
  const w = r.waiting;
  if (w && ((w.name !== null && hasControls(w.name)) || (w.until !== null && hasControls(w.until)))) {
    out ??= { ...r };
    out.waiting = { ...w, name: cleanOrNull(w.name), until: cleanOrNull(w.until) };
  }
  // A repository's folder is named by whoever made it: the table and details show it.
  const wt = r.worktree;
  if (wt && [wt.repo, wt.path, wt.branch, wt.base].some(hasControls)) {
    out ??= { ...r };
    out.worktree = { ...wt, repo: safeLine(wt.repo), path: safeLine(wt.path), branch: safeLine(wt.branch), base: safeLine(wt.base) };
  }
  return out ?? r;
}

/**
 * A copy of the runs by id, to change without touching the state's. A loop:
 * V8 spreads an object of thousands of keys (a dictionary) ~2.5x slower, and
 * this runs once a frame.
 */
export function copyRuns(byId: Readonly<Record<string, PublicRun>>): Record<string, PublicRun> {
  const out: Record<string, PublicRun> = {};
  for (const uuid in byId) out[uuid] = byId[uuid]!;
  return out;
}

export function applySnapshot(snap: Snapshot): RunsData {
  const byId: Record<string, PublicRun> = {};
  for (const r of snap.runs) byId[r.uuid] = safeRun(r);
  return { byId, seq: snap.seq };
}

export interface Notable {
  kind: 'blocked' | 'ended';
  uuid: string;
  name: string;
  /** blocked kind or exit reason */
  detail: string;
}

export interface Applied {
  data: RunsData;
  /** The runs whose rows were replaced (or added). */
  changed: Set<string>;
  /** The messages that were new (seq above what was applied), in order. */
  fresh: StreamMessage[];
  notable: Notable[];
}

/**
 * Apply stream messages in order. A message at or below the applied seq is a
 * duplicate of what the snapshot already holds and is dropped. Every run
 * event carries its run's row as of that event (the supervisor journals the
 * two together), so that row simply replaces ours; applied in seq order, the
 * last event of a run decides its row. A message without a row (an event
 * about no run, or about a run the server no longer knows) leaves the rows
 * as they are: it still reaches the log and the notices. A rows message
 * (rows that changed without an event: the agent's last words, its tool)
 * replaces rows too, unless an event later than it was applied already,
 * whose row is newer.
 */
export function applyEvents(data: RunsData, msgs: readonly Incoming[]): Applied {
  let byId: Record<string, PublicRun> | null = null;
  let seq = data.seq;
  const changed = new Set<string>();
  const fresh: StreamMessage[] = [];
  const notable: Notable[] = [];
  for (const m of msgs) {
    if (m.type === 'rows') {
      if (m.seq < seq) continue;
      for (const r of m.runs) {
        const row = safeRun(r);
        if (!row.uuid) continue;
        byId ??= copyRuns(data.byId);
        byId[row.uuid] = row;
        changed.add(row.uuid);
      }
      continue;
    }
    const ev = m.event;
    if (ev.seq <= seq) continue;
    seq = ev.seq;
    fresh.push(m);
    const uuid = ev.run;
    if (uuid === null) continue;
    const next = m.run && m.run.uuid === uuid ? safeRun(m.run) : undefined;
    if (next) {
      byId ??= copyRuns(data.byId);
      byId[uuid] = next;
      changed.add(uuid);
    }
    const name = next?.name ?? (byId ?? data.byId)[uuid]?.name ?? uuid.slice(0, 8);
    if (ev.type === 'blocked') {
      notable.push({ kind: 'blocked', uuid, name, detail: clean(String(ev.data.kind ?? next?.blocked_kind ?? 'unknown')) });
    } else if (ev.type === 'ended') {
      notable.push({ kind: 'ended', uuid, name, detail: clean(String(ev.data.reason ?? next?.exit_reason ?? 'ended')) });
    }
  }
  return { data: byId || seq !== data.seq ? { byId: byId ?? data.byId, seq } : data, changed, fresh, notable };
}

/** What the runs list is ordered by: `status` is the supervisor's own order (queued runs in admission order). */
export const SORT_KEYS = ['status', 'elapsed', 'cost', 'tokens', 'name'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface SortSpec {
  key: SortKey;
  /** Reversed: by status, the order upside down; otherwise smallest (or A) first instead of largest first. */
  reverse: boolean;
  /** Runs of one provider, workload or repository together, groups by name, the order above inside each. */
  group?: GroupKey | null;
}
export const GROUP_KEYS = ['provider', 'workload', 'repo'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];
export const DEFAULT_SORT: SortSpec = { key: 'status', reverse: false };

export function isSortSpec(v: unknown): v is SortSpec {
  const o = v as Partial<SortSpec> | null;
  return (
    !!o &&
    typeof o === 'object' &&
    SORT_KEYS.includes(o.key as SortKey) &&
    typeof o.reverse === 'boolean' &&
    (o.group === undefined || o.group === null || GROUP_KEYS.includes(o.group as GroupKey))
  );
}

const startedMs = (r: PublicRun): number | null => (r.started_at ? Date.parse(r.started_at) : null);

/** Largest first (names: A first); ties in queue order. `now` is for a live run's elapsed time. */
function sortCompare(key: Exclude<SortKey, 'status'>, now: number): (a: PublicRun, b: PublicRun) => number {
  const by = (f: (r: PublicRun) => number) => (a: PublicRun, b: PublicRun) => f(b) - f(a) || a.queue_seq - b.queue_seq;
  switch (key) {
    case 'elapsed':
      return by((r) => {
        const s = startedMs(r);
        return s === null ? -1 : (r.ended_at ? Date.parse(r.ended_at) : now) - s;
      });
    case 'cost':
      return by((r) => r.cost_usd);
    case 'tokens':
      return by((r) => r.tokens.input + r.tokens.output);
    case 'name':
      return (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.queue_seq - b.queue_seq);
  }
}

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
  /**
   * Workload priorities (from stats), which decide the admission order: higher
   * priority first, then queue_seq. Null before the first stats: the order the
   * server last gave (queue_position) stands in.
   */
  priorities?: Readonly<Record<string, number>> | null;
}

export interface RunsView {
  ids: string[];
  /** 1-based admission order of each queued run (all queued runs, not just the filtered ones). */
  positions: Readonly<Record<string, number>>;
  counts: Readonly<Record<Status, number>>;
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

/** The folder name of the repository a run's worktree was made from; null for a run in place (or from a supervisor too old to say). */
export function repoName(r: PublicRun): string | null {
  if (!r.worktree?.repo) return null;
  const parts = r.worktree.repo.split('/').filter((p) => p !== '');
  return parts[parts.length - 1] ?? r.worktree.repo;
}

/** The name a run is grouped under; runs without a repository group after those with one. */
function groupName(r: PublicRun, g: GroupKey): [number, string] {
  if (g !== 'repo') return [0, r[g]];
  const name = repoName(r);
  return name === null ? [1, ''] : [0, name];
}

/** The supervisor's admission order (workload priority descending, then queue_seq, as the README says). */
export function admissionCompare(priorities: Readonly<Record<string, number>> | null): (a: PublicRun, b: PublicRun) => number {
  if (priorities === null) {
    return (a, b) => (a.queue_position ?? Infinity) - (b.queue_position ?? Infinity) || a.queue_seq - b.queue_seq;
  }
  // A Map: workload names are user text ("constructor" must not find Object.prototype's).
  const byName = new Map(Object.entries(priorities));
  const prio = (r: PublicRun): number => byName.get(r.workload) ?? 0;
  return (a, b) => prio(b) - prio(a) || a.queue_seq - b.queue_seq;
}

export function compareRuns(a: PublicRun, b: PublicRun): number {
  const ra = STATUS_RANK[a.status] ?? 9;
  const rb = STATUS_RANK[b.status] ?? 9;
  if (ra !== rb) return ra - rb;
  return a.queue_seq - b.queue_seq;
}

/** Each view and what it was computed from: updateView may start from it only with the same options. */
const viewSources = new WeakMap<RunsView, { byId: Readonly<Record<string, PublicRun>>; opts: ViewOptions }>();

/** Rows to show: active or all, matching the filter, sorted by status, queued runs in admission order. */
export function computeView(byId: Readonly<Record<string, PublicRun>>, opts: ViewOptions): RunsView {
  const view = computeWholeView(byId, opts);
  viewSources.set(view, { byId, opts });
  return view;
}

function computeWholeView(byId: Readonly<Record<string, PublicRun>>, opts: ViewOptions): RunsView {
  const filter = parseFilter(opts.filter);
  const counts: Record<Status, number> = { queued: 0, starting: 0, working: 0, idle: 0, blocked: 0, ended: 0 };
  const others: PublicRun[] = [];
  const queued: PublicRun[] = [];
  const shown: PublicRun[] = [];
  const needy: { r: PublicRun; a: Attention }[] = [];
  const now = opts.now ?? Date.now();
  const seen = opts.seen ?? {};
  // Any listed run with a parent: only then is there a tree to lay out.
  let nested = false;
  let total = 0;
  let worktrees = false;
  for (const uuid in byId) {
    const r = byId[uuid]!;
    total++;
    // A switch, not `status in counts`: this loop runs over every run on every frame.
    switch (r.status) {
      case 'queued':
        counts.queued++;
        queued.push(r);
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
    if (r.worktree) worktrees = true;
    if (r.parent) nested = true;
    if (a !== null) needy.push({ r, a });
    else if (r.status === 'queued') shown.push(r);
    else others.push(r);
  }
  // The queue is sorted once, for its positions, and its listed runs go in that order where queued runs sort.
  const order = admissionCompare(opts.priorities ?? null);
  queued.sort(order);
  const positions: Record<string, number> = {};
  for (let k = 0; k < queued.length; k++) positions[queued[k]!.uuid] = k + 1;
  // The listed ones are usually all of them: then the order is the queue's.
  const listedQueue = shown.length === queued.length ? queued : shown.sort((a, b) => positions[a.uuid]! - positions[b.uuid]!);
  others.sort(compareRuns);
  const ids: string[] = [];
  const queuedRank = STATUS_RANK.queued!;
  let i = 0;
  for (; i < others.length && (STATUS_RANK[others[i]!.status] ?? 9) < queuedRank; i++) ids.push(others[i]!.uuid);
  for (const r of listedQueue) ids.push(r.uuid);
  for (; i < others.length; i++) ids.push(others[i]!.uuid);
  // The runs that need you lead, newest first, whatever the order of the rest.
  needy.sort((x, y) => y.a.at - x.a.at || x.r.queue_seq - y.r.queue_seq);
  const attention: Record<string, Attention> = {};
  for (const { r, a } of needy) attention[r.uuid] = a;
  const lead = needy.map(({ r }) => r.uuid);
  const sort = opts.sort ?? DEFAULT_SORT;
  if (sort.group) {
    // Grouped: a stable sort by the group's name keeps the chosen order inside each group.
    const g = sort.group;
    const inOrder = sort.key !== 'status' ? [...others, ...listedQueue].sort(sortCompare(sort.key, now)) : ids.map((id) => byId[id]!);
    if (sort.reverse) inOrder.reverse();
    const key = new Map(inOrder.map((r) => [r.uuid, groupName(r, g)]));
    const grouped = inOrder
      .map((r) => r.uuid)
      .sort((a, b) => {
        const [ra, na] = key.get(a)!;
        const [rb, nb] = key.get(b)!;
        return ra - rb || (na < nb ? -1 : na > nb ? 1 : 0);
      });
    const t = nested ? asTree(grouped, byId, opts.collapsed ?? {}, lead) : {};
    return { ids: [...lead, ...(t.ids ?? grouped)], positions, counts, total, attention, depth: t.depth, folded: t.folded, worktrees };
  }
  if (sort.key !== 'status') {
    // Positions stay the admission order's; only the listing is ordered otherwise.
    const rows = [...others, ...listedQueue].sort(sortCompare(sort.key, now));
    if (sort.reverse) rows.reverse();
    const sorted = rows.map((r) => r.uuid);
    const t = nested ? asTree(sorted, byId, opts.collapsed ?? {}, lead) : {};
    return { ids: [...lead, ...(t.ids ?? sorted)], positions, counts, total, attention, depth: t.depth, folded: t.folded, worktrees };
  }
  if (sort.reverse) ids.reverse();
  const tree: ReturnType<typeof asTree> = nested ? asTree(ids, byId, opts.collapsed ?? {}, lead) : {};
  return { ids: tree.ids ? [...lead, ...tree.ids] : lead.length ? [...lead, ...ids] : ids, positions, counts, total, attention, depth: tree.depth, folded: tree.folded, worktrees };
}

/** Most changes at once that updateView takes on; past it, computing the whole view is as cheap. */
const UPDATE_MAX = 64;
const sameOptions = (a: ViewOptions, b: ViewOptions): boolean =>
  a.filter === b.filter && a.showAll === b.showAll && (a.sort ?? DEFAULT_SORT) === (b.sort ?? DEFAULT_SORT) && a.now === b.now && a.seen === b.seen && a.collapsed === b.collapsed && (a.priorities ?? null) === (b.priorities ?? null);

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
export function updateView(prev: RunsView, oldById: Readonly<Record<string, PublicRun>>, byId: Readonly<Record<string, PublicRun>>, changed: ReadonlySet<string>, opts: ViewOptions): RunsView | null {
  const source = viewSources.get(prev);
  if (!source || source.byId !== oldById || !sameOptions(source.opts, opts)) return null;
  const sort = opts.sort ?? DEFAULT_SORT;
  if (opts.filter !== '' || sort.key !== 'status' || sort.reverse || sort.group || prev.depth || prev.folded || prev.worktrees) return null;
  if (changed.size > UPDATE_MAX) return null;
  const now = opts.now ?? Date.now();
  const seen = opts.seen ?? {};
  const plain = (r: PublicRun | undefined): boolean => r === undefined || (r.status in STATUS_RANK && !r.parent && !r.worktree && attentionOf(r, now, seen) === null);
  for (const u of changed) if (!plain(oldById[u]) || !plain(byId[u])) return null;
  const listed = (r: PublicRun | undefined): r is PublicRun => r !== undefined && (opts.showAll || r.status !== 'ended');
  const lead = Object.keys(prev.attention).length;
  const ids = prev.ids.slice();
  const counts = { ...prev.counts } as Record<Status, number>;
  let total = prev.total;
  let queueMoved = false;
  // Out first, so that what stays is sorted by rows that did not change; then each back in its place.
  for (const u of changed) {
    const old = oldById[u];
    if (!old) continue;
    counts[old.status as Status]--;
    total--;
    if (old.status === 'queued') queueMoved = true;
    if (!listed(old)) continue;
    const at = ids.indexOf(u, lead);
    if (at < 0) return null;
    ids.splice(at, 1);
  }
  const order = admissionCompare(opts.priorities ?? null);
  // The order computeView lists runs in: by status, queued runs in admission order, the others by queue_seq.
  const compare = (a: PublicRun, b: PublicRun): number => {
    const d = STATUS_RANK[a.status]! - STATUS_RANK[b.status]!;
    if (d !== 0) return d;
    return a.status === 'queued' ? order(a, b) : a.queue_seq - b.queue_seq;
  };
  for (const u of changed) {
    const r = byId[u];
    if (!r) continue;
    counts[r.status as Status]++;
    total++;
    if (r.status === 'queued') queueMoved = true;
    if (!listed(r)) continue;
    let lo = lead;
    let hi = ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const other = byId[ids[mid]!];
      if (!other) return null;
      if (compare(other, r) < 0) lo = mid + 1;
      else hi = mid;
    }
    ids.splice(lo, 0, u);
  }
  let positions = prev.positions;
  if (queueMoved) {
    // Every queued run is listed (no filter, and none needs a person): the queue is the list's queued stretch.
    const next: Record<string, number> = {};
    let k = 0;
    for (let i = lead; i < ids.length; i++) {
      const r = byId[ids[i]!]!;
      if (r.status === 'queued') next[r.uuid] = ++k;
      else if (k > 0) break;
    }
    if (k !== counts.queued) return null;
    positions = next;
  }
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

/** Workload priorities from stats (workload caps carry theirs); null when stats has none to tell. */
export function prioritiesOf(stats: Stats | null): Record<string, number> | null {
  if (!stats) return null;
  const out: Record<string, number> = {};
  for (const c of stats.caps) if (c.cap.startsWith('workload:') && typeof c.priority === 'number') out[c.cap.slice('workload:'.length)] = c.priority;
  return out;
}
