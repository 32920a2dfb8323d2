// How data from the supervisor changes the state: a snapshot, a frame of
// stream messages, fresh stats, and the filter and all/active switches that
// re-cut the same rows. Pure reducers `(state, …) => patch`; no I/O.

import { parseFilter } from './filter.js';
import { noteRun, type Burns, type RunBurn } from './burn.js';
import type { PublicApproval, PublicRun } from '../../protocol/views.js';
import { QUIET_EVENTS, logEntry, type LogEntry } from './event-log.js';
import { followSelection, clampList } from './list-state.js';
import { followLimiter } from './navigation.js';
import { addOlder, olderOfSnapshot, trimEnded, type Older, type OlderPage } from './ended-window.js';
import { applyList, applyRequestEvents } from './approvals.js';
import { followQueue } from './approval-queue.js';
import { byMachine, fleetOf, NO_FLEET, remoteRow, withFleet, withFleetRequests, type Fleet, type Scope } from './fleet.js';
import type { ClusterRunsReply } from '../../protocol/results.js';
import type { ClusterRun } from '../../protocol/views.js';
import { applyEvents, applySnapshot, type Incoming, type Notable, type RunsData, type Snapshot } from './runs.js';
import { safeRun } from './safe-text.js';
import { computeView, updateView, type ViewOptions } from './runs-view.js';
import { SORT_KEYS, type GroupKey, type SortKey, type SortSpec } from './sort.js';
import type { Stats } from './stats.js';
import type { Patch, TuiState } from './store.js';

/** Details (or a prompt or confirmation over them) is showing the selected run. */
function inDetails(s: TuiState): boolean {
  // The pager shows the same run, over its details.
  const over = (m: string | undefined): boolean => m === 'details' || m === 'pager' || (m === 'approvals' && s.queueBack === 'details');
  return over(s.mode) || (s.mode === 'confirm' && over(s.confirm?.back)) || (s.mode === 'prompt' && over(s.prompt?.back));
}

/**
 * Recompute the rows shown. The selected run stays selected where it still
 * is, except a run just killed from the list: the cursor keeps its row.
 * While details show a run, that run stays selected even when the list no
 * longer has it (it ended, and only active runs are listed).
 */
function reView(s: TuiState, runs: RunsData, filter = s.filter, showAll = s.showAll, sort = s.sort, changed?: ReadonlySet<string>): Patch {
  const opts: ViewOptions = { filter, showAll, sort, now: s.now, seen: s.seen, collapsed: s.collapsed };
  // In cluster scope other machines' rows are listed too, grouped by machine (this one's first).
  const cluster = s.scope === 'cluster';
  const all = cluster ? withFleet(runs.byId, s.fleet) : runs.byId;
  // A frame of the stream changes a few runs: the view moves them, when it can, instead of going over every run.
  let view = (!cluster && changed && updateView(s.view, s.runs.byId, runs.byId, changed, opts)) || computeView(all, opts);
  if (cluster) view = { ...view, ids: byMachine(view.ids, s.fleet) };
  const h = s.viewport.runsHeight;
  if (s.killPin !== null && s.killPin === s.selected && !inDetails(s)) {
    const list = clampList(s.list, view.ids.length, h);
    const selected = view.ids[list.cursor] ?? null;
    return { runs, view, list, selected, killPin: selected === s.killPin ? s.killPin : null };
  }
  const { list, selected } = followSelection(s.list, s.selected, view.ids, h);
  if (inDetails(s) && s.selected !== null && selected !== s.selected && all[s.selected]) return { runs, view, list };
  return { runs, view, list, selected, killPin: null };
}

/** Runs someone is looking at or acting on: the window never lets them go from under them. */
function inUse(s: TuiState): Set<string> {
  const keep = new Set<string>();
  for (const u of [s.selected, s.details?.uuid, s.confirm?.uuid, s.prompt?.target]) if (u) keep.add(u);
  return keep;
}

/**
 * reView, with the ended runs held to their window: trimmed when they run
 * past it by a batch, or at once (`now`) when the window itself shrank or a
 * snapshot came in.
 */
function reViewWindowed(s: TuiState, runs: RunsData, older: Older, now: boolean, showAll = s.showAll, changed?: ReadonlySet<string>): Patch {
  let patch = reView(s, runs, s.filter, showAll, s.sort, changed);
  // The window holds this machine's ended runs: other machines' keep theirs for view_retention.
  const t = trimEnded(runs.byId, patch.view!.counts.ended - remoteEnded(s), older, inUse(s), now);
  if (t) {
    patch = reView(s, { byId: t.byId, seq: runs.seq }, s.filter, showAll);
    older = t.older;
  }
  return older === s.older ? patch : { ...patch, older };
}

function remoteEnded(s: TuiState): number {
  if (s.scope !== 'cluster') return 0;
  let n = 0;
  for (const k in s.fleet.byId) if (s.fleet.byId[k]!.status === 'ended') n++;
  return n;
}

function pushLog(s: TuiState, events: { seq: number; ev: LogEntry }[]): Patch {
  let logSeq = s.logSeq;
  let pushed = 0;
  for (const { seq, ev } of events) {
    if (seq <= logSeq) continue;
    s.log.push(ev);
    logSeq = seq;
    pushed++;
  }
  if (pushed === 0) return {};
  // Scrolled up, or a line other than the newest selected: stay on the same lines while new ones arrive below.
  const last = Math.max(0, s.log.size - 1);
  const logScroll = s.logScroll > 0 || s.logCursor > 0 ? Math.min(s.logScroll + pushed, last) : 0;
  const logCursor = s.logCursor > 0 ? Math.min(s.logCursor + pushed, last) : 0;
  return { logSeq, logVersion: s.log.version, logScroll, logCursor };
}

/** A (re)subscription's snapshot replaces every row; the replayed events fill the log. */
export function reduceSnapshot(s: TuiState, snap: Snapshot, now: number): Patch {
  const runs = applySnapshot(snap);
  const names = runs.byId;
  const patch: Patch = { ...reViewWindowed(s, runs, olderOfSnapshot(snap.runs, snap.total, snap.truncated), true), loaded: true, now };
  const entries = (snap.events ?? [])
    .filter((e) => !QUIET_EVENTS.has(e.type))
    .map((e) => ({ seq: e.seq, ev: logEntry(e, e.run ? (names[e.run]?.name ?? null) : null) }));
  Object.assign(patch, pushLog(s, entries));
  if (s.details && !patch.runs!.byId[s.details.uuid]) patch.details = null;
  // Every run's totals as of now are where its burn counts from (a run still tracked keeps its minutes).
  const burn: Record<string, RunBurn> = {};
  for (const id in patch.runs!.byId) {
    const b = noteRun(s.burn[id], patch.runs!.byId[id]!, now);
    if (b) burn[id] = b;
  }
  patch.burn = burn;
  return patch;
}

/** What the frame's rows spent since last seen, in the minute of their event (rows without one: now). */
function burnOf(s: TuiState, msgs: readonly Incoming[], byId: Readonly<Record<string, PublicRun>>): Burns {
  let burn: Record<string, RunBurn> | null = null;
  const note = (r: PublicRun, at: number): void => {
    const prev = (burn ?? s.burn)[r.uuid];
    const next = noteRun(prev, r, at);
    if (next === undefined || next === prev) return;
    burn ??= { ...s.burn };
    burn[r.uuid] = next;
  };
  for (const m of msgs) {
    if (m.type === 'rows') for (const r of m.runs) note(r, s.now);
    else if (m.run && byId[m.run.uuid]) note(m.run, m.event.ts);
  }
  if (burn === null) return s.burn;
  // Runs the window let go take their minutes with them (looked for only once there are clearly some).
  const b = burn as Record<string, RunBurn>;
  const ids = Object.keys(b);
  if (ids.length > 64 && ids.length > Object.keys(byId).length / 2) for (const id of ids) if (!byId[id]) delete b[id];
  return b;
}

/** Stream messages (one frame's worth): rows merged by uuid, log lines appended, notable changes returned. */
export function reduceStream(s: TuiState, msgs: readonly Incoming[]): { patch: Patch; notable: Notable[] } {
  const applied = applyEvents(s.runs, msgs);
  if (applied.data === s.runs) return { patch: {}, notable: [] };
  // The clock (s.now) is left to the once-a-second tick: moving it on every
  // frame would re-render every visible row for a change no one can see.
  const patch: Patch = {};
  if (applied.data !== s.runs) Object.assign(patch, reViewWindowed(s, applied.data, s.older, false, s.showAll, applied.changed));
  const byId = applied.data.byId;
  const burn = burnOf(s, msgs, patch.runs?.byId ?? byId);
  if (burn !== s.burn) patch.burn = burn;
  const entries = applied.fresh
    .filter((m) => !QUIET_EVENTS.has(m.event.type))
    .map((m) => ({ seq: m.event.seq, ev: logEntry(m.event, m.run?.name ?? (m.event.run ? (byId[m.event.run]?.name ?? null) : null)) }));
  Object.assign(patch, pushLog(s, entries));
  const requests = applyRequestEvents(s.requests, applied.fresh, byId);
  if (requests !== s.requests) Object.assign(patch, { requests, queue: followQueue(s.queue, requests) });
  // Keep the runs' seq even when only quiet events arrived.
  if (!patch.runs && applied.data.seq !== s.runs.seq) patch.runs = applied.data;
  return { patch, notable: applied.notable };
}

/** approval.list's answer: the whole truth on a new connection (`fresh`), else what the events have not said yet. */
export function reduceRequestList(s: TuiState, list: readonly PublicApproval[], fresh: boolean): Patch {
  let requests = applyList(s.requests, list, fresh);
  // A whole-truth list is this machine's: other machines' requests stay as the fleet has them.
  if (s.scope === 'cluster') requests = withFleetRequests(requests, s.fleet).requests;
  return { requests, queue: followQueue(s.queue, requests) };
}

/** Fresh stats (the queue's order is not theirs to change: the supervisor sends each run's place). */
export function reduceStats(s: TuiState, stats: Stats): Patch {
  return { stats, ...followLimiter(s, stats) };
}

/**
 * Apply a filter, unless a term of it does not read: then nothing changes but
 * `problem`, which says which term and why (the list keeps the filter it had).
 */
export function reduceFilter(s: TuiState, filter: string): Patch & { problem?: string } {
  const { problems } = parseFilter(filter);
  if (problems.length > 0) return { problem: problems.join('; ') };
  return { filter, ...reView({ ...s, killPin: null }, s.runs, filter, s.showAll) };
}

/** An ended run that needed you, looked at (its details opened): it leaves the lead of the list. */
export function reduceSeen(s: TuiState, uuid: string): Patch {
  const r = s.runs.byId[uuid];
  if (!r || r.status !== 'ended' || !s.view.attention[uuid] || s.seen[uuid]) return {};
  const seen = { ...s.seen, [uuid]: true as const };
  return { seen, ...reView({ ...s, seen }, s.runs) };
}

/** `z`: fold a run's children away under it, or unfold them. */
export function reduceFold(s: TuiState, uuid: string): Patch {
  const collapsed = { ...s.collapsed };
  if (collapsed[uuid]) delete collapsed[uuid];
  else collapsed[uuid] = true;
  return { collapsed, ...reView({ ...s, collapsed, killPin: null }, s.runs) };
}

/** `S` cycles the column the runs are sorted by; `-` reverses it. */
export function reduceSort(s: TuiState, sort: SortSpec): Patch {
  return { sort, ...reView({ ...s, killPin: null }, s.runs, s.filter, s.showAll, sort) };
}

export function nextSortKey(key: SortKey): SortKey {
  return SORT_KEYS[(SORT_KEYS.indexOf(key) + 1) % SORT_KEYS.length]!;
}

/** `b`: provider → workload → repository (when some run has a worktree: else every run would be in one group) → none. */
export function nextGroup(group: GroupKey | null, repos: boolean): GroupKey | null {
  if (group === null) return 'provider';
  if (group === 'provider') return 'workload';
  if (group === 'workload' && repos) return 'repo';
  return null;
}

/** Active runs only: older runs paged in are let go (the window shrinks back); they page in again on demand. */
export function reduceShowAll(s: TuiState, showAll: boolean): Patch {
  const base = { ...s, killPin: null };
  if (showAll || s.older.extra === 0) return { showAll, ...reView(base, s.runs, s.filter, showAll) };
  return { showAll, ...reViewWindowed(base, s.runs, { ...s.older, extra: 0 }, true, showAll) };
}

/** A page of older ended runs asked for (run.list before the cursor) has come. */
export function reduceOlderPage(s: TuiState, page: OlderPage): { patch: Patch; added: number } {
  const { byId, older, added } = addOlder(s.runs.byId, s.older, page, safeRun);
  const runs = byId === s.runs.byId ? s.runs : { byId, seq: s.runs.seq };
  return { patch: { ...reView(s, runs), older }, added };
}

/** The fleet read again (cluster.runs): other machines' rows listed anew, their requests in the queue. Only in cluster scope. */
export function reduceFleet(s: TuiState, reply: ClusterRunsReply, now: number): Patch {
  if (s.scope !== 'cluster') return {};
  const fleet = fleetOf(s.fleet, reply, now);
  return withFleetState(s, fleet);
}

function withFleetState(s: TuiState, fleet: Fleet): Patch {
  const { requests, requestKeys } = withFleetRequests(s.requests, s.scope === 'cluster' ? fleet : null);
  const next: Fleet = { ...fleet, requestKeys };
  const base = { ...s, fleet: next };
  return { fleet: next, ...reView(base, s.runs), requests, queue: followQueue(s.queue, requests) };
}

/**
 * `m`: this machine's runs, or every machine's. Cluster scope starts with the
 * fleet's first read (the connection reads it before switching: a home in no
 * cluster is told so, and stays); back to this machine, the other machines'
 * rows and requests leave the list and the queue.
 */
export function reduceScope(s: TuiState, scope: Scope, reply: ClusterRunsReply | null, now: number): Patch {
  if (scope === 'cluster' && reply) {
    const on = { ...s, scope, killPin: null };
    return { scope, ...withFleetState(on, fleetOf(NO_FLEET, reply, now)) };
  }
  const off = { ...s, scope: 'machine' as const, fleet: NO_FLEET, killPin: null };
  return { scope: 'machine', ...withFleetState(off, NO_FLEET), tagged: {} };
}

/** One run of another machine read afresh (its details opened): its row and face as it says now. */
export function reduceFleetRun(s: TuiState, key: string, run: ClusterRun): Patch {
  if (s.scope !== 'cluster' || run.local) return {};
  const f = s.fleet;
  const fleet: Fleet = {
    ...f,
    byId: { ...f.byId, [key]: remoteRow(run) },
    faces: { ...f.faces, [key]: run },
    hostOf: { ...f.hostOf, [key]: run.host },
    keyOfUuid: { ...f.keyOfUuid, [run.uuid]: key },
  };
  return withFleetState(s, fleet);
}
