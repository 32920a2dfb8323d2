// The TUI's one store (zustand vanilla). State is plain data; every change is
// a pure reducer `(state, …) => patch`, exported for tests, and applied with
// one setState — the stream batcher calls at most one per frame.

import { createStore, type StoreApi } from 'zustand/vanilla';
import type { StreamMessage } from '../client/client.js';
import { clampList, followSelection, listReducer, scrollFromEnd, type ListAction, type ListState } from './list-state.js';
import {
  applyEvents,
  applySnapshot,
  clean,
  computeView,
  logEntry,
  prioritiesOf,
  QUIET_EVENTS,
  type LogEntry,
  type Notable,
  type RunsData,
  type RunsView,
  type Snapshot,
  type Stats,
} from './model.js';
import { Ring } from './ring.js';

export type Pane = 'runs' | 'limiter' | 'events';
export type Mode = 'list' | 'details' | 'help' | 'confirm' | 'prompt';
export type PromptKind = 'filter' | 'send' | 'new';

export interface Prompt {
  kind: PromptKind;
  text: string;
  /** The run a `send` goes to. */
  target: string | null;
  targetName: string | null;
  /** Where esc / submit returns to. */
  back: Mode;
}

export interface Confirm {
  uuid: string;
  name: string;
  back: Mode;
}

export interface Message {
  text: string;
  kind: 'info' | 'error';
  at: number;
}

export interface WaitBanner {
  id: number;
  uuid: string;
  name: string;
  state: 'waiting' | 'settled' | 'failed';
  token: string | null;
  error: string | null;
  at: number;
}

export interface ConnState {
  state: 'connecting' | 'up' | 'down';
  pid: number | null;
  startedAt: number | null;
  error: string | null;
  /** When the state last changed. */
  since: number;
  /** True while the first connection may be starting the supervisor. */
  starting: boolean;
}

export interface Viewport {
  width: number;
  runsHeight: number;
  limiterHeight: number;
  eventsHeight: number;
  detailsOutputHeight: number;
}

export interface DetailsData {
  uuid: string;
  cpu: number | null;
  rssBytes: number | null;
  pids: number[];
  lines: string[];
  outMissing: boolean;
  /** Lines scrolled up from the newest output line (0 = following). */
  scroll: number;
}

export interface TuiState {
  home: string;
  runs: RunsData;
  loaded: boolean;
  view: RunsView;
  stats: Stats | null;
  /** Workload priorities from the last stats: the queue's order depends on them. */
  priorities: Readonly<Record<string, number>> | null;
  log: Ring<LogEntry>;
  logVersion: number;
  logSeq: number;
  logScroll: number;
  conn: ConnState;
  mode: Mode;
  helpBack: Mode;
  prompt: Prompt | null;
  confirm: Confirm | null;
  pane: Pane;
  showEvents: boolean;
  filter: string;
  showAll: boolean;
  list: ListState;
  selected: string | null;
  limiterScroll: number;
  details: DetailsData | null;
  theme: string;
  message: Message | null;
  waits: WaitBanner[];
  now: number;
  viewport: Viewport;
}

export type TuiStore = StoreApi<TuiState>;
export type Patch = Partial<TuiState>;

export const LOG_CAPACITY = 2000;
const EMPTY_VIEW: RunsView = { ids: [], positions: {}, counts: { queued: 0, starting: 0, working: 0, idle: 0, blocked: 0, ended: 0 }, total: 0 };

export function initialState(over: Partial<TuiState> = {}): TuiState {
  const now = over.now ?? Date.now();
  return {
    home: '',
    runs: { byId: {}, seq: 0 },
    loaded: false,
    view: EMPTY_VIEW,
    stats: null,
    priorities: null,
    log: new Ring<LogEntry>(LOG_CAPACITY),
    logVersion: 0,
    logSeq: 0,
    logScroll: 0,
    conn: { state: 'connecting', pid: null, startedAt: null, error: null, since: now, starting: false },
    mode: 'list',
    helpBack: 'list',
    prompt: null,
    confirm: null,
    pane: 'runs',
    showEvents: true,
    filter: '',
    showAll: true,
    list: { cursor: 0, offset: 0 },
    selected: null,
    limiterScroll: 0,
    details: null,
    theme: 'dark',
    message: null,
    waits: [],
    now,
    viewport: { width: 120, runsHeight: 20, limiterHeight: 6, eventsHeight: 6, detailsOutputHeight: 10 },
    ...over,
  };
}

export function createTuiStore(over: Partial<TuiState> = {}): TuiStore {
  return createStore<TuiState>()(() => initialState(over));
}

// ---------------------------------------------------------------------------
// Reducers: (state, …) → patch. No I/O.

/** Recompute the rows shown and keep the selected run selected. */
export function reView(s: TuiState, runs: RunsData, filter = s.filter, showAll = s.showAll, priorities = s.priorities): Patch {
  const view = computeView(runs.byId, { filter, showAll, priorities });
  const { list, selected } = followSelection(s.list, s.selected, view.ids, s.viewport.runsHeight);
  return { runs, view, list, selected };
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
  // Scrolled up: stay on the same lines while new ones arrive below.
  const logScroll = s.logScroll > 0 ? Math.min(s.logScroll + pushed, Math.max(0, s.log.size - 1)) : 0;
  return { logSeq, logVersion: s.log.version, logScroll };
}

/** A (re)subscription's snapshot replaces every row; the replayed events fill the log. */
export function reduceSnapshot(s: TuiState, snap: Snapshot, now: number): Patch {
  const runs = applySnapshot(snap);
  const patch: Patch = { ...reView(s, runs), loaded: true, now };
  const names = runs.byId;
  const entries = (snap.events ?? [])
    .filter((e) => !QUIET_EVENTS.has(e.type))
    .map((e) => ({ seq: e.seq, ev: logEntry(e, e.run ? (names[e.run]?.name ?? null) : null) }));
  Object.assign(patch, pushLog(s, entries));
  if (s.details && !runs.byId[s.details.uuid]) patch.details = null;
  return patch;
}

/** Stream messages (one frame's worth): rows merged by uuid, log lines appended, notable changes returned. */
export function reduceStream(s: TuiState, msgs: readonly StreamMessage[]): { patch: Patch; notable: Notable[] } {
  const applied = applyEvents(s.runs, msgs);
  if (applied.fresh.length === 0) return { patch: {}, notable: [] };
  // The clock (s.now) is left to the once-a-second tick: moving it on every
  // frame would re-render every visible row for a change no one can see.
  const patch: Patch = {};
  if (applied.data !== s.runs) Object.assign(patch, reView(s, applied.data));
  const byId = applied.data.byId;
  const entries = applied.fresh
    .filter((m) => !QUIET_EVENTS.has(m.event.type))
    .map((m) => ({ seq: m.event.seq, ev: logEntry(m.event, m.run?.name ?? (m.event.run ? (byId[m.event.run]?.name ?? null) : null)) }));
  Object.assign(patch, pushLog(s, entries));
  // Keep the runs' seq even when only quiet events arrived.
  if (!patch.runs && applied.data.seq !== s.runs.seq) patch.runs = applied.data;
  return { patch, notable: applied.notable };
}

/** Fresh stats; when a workload's priority changed, the queue is re-ordered with it. */
export function reduceStats(s: TuiState, stats: Stats): Patch {
  const priorities = prioritiesOf(stats);
  if (samePriorities(s.priorities, priorities)) return { stats };
  return { stats, priorities, ...reView(s, s.runs, s.filter, s.showAll, priorities) };
}

function samePriorities(a: Readonly<Record<string, number>> | null, b: Readonly<Record<string, number>> | null): boolean {
  if (a === null || b === null) return a === b;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

export function reduceList(s: TuiState, a: ListAction): Patch {
  const list = listReducer(s.list, a, s.view.ids.length, s.viewport.runsHeight);
  return { list, selected: s.view.ids[list.cursor] ?? null };
}

export function reduceFilter(s: TuiState, filter: string): Patch {
  return { filter, ...reView(s, s.runs, filter, s.showAll) };
}

export function reduceShowAll(s: TuiState, showAll: boolean): Patch {
  return { showAll, ...reView(s, s.runs, s.filter, showAll) };
}

export function reduceViewport(s: TuiState, viewport: Viewport): Patch {
  const v = s.viewport;
  if (
    v.width === viewport.width &&
    v.runsHeight === viewport.runsHeight &&
    v.limiterHeight === viewport.limiterHeight &&
    v.eventsHeight === viewport.eventsHeight &&
    v.detailsOutputHeight === viewport.detailsOutputHeight
  ) {
    return {};
  }
  const list = clampList(s.list, s.view.ids.length, viewport.runsHeight);
  return {
    viewport,
    list,
    selected: s.view.ids[list.cursor] ?? null,
    logScroll: scrollFromEnd(s.logScroll, 0, s.log.size, viewport.eventsHeight),
  };
}

/** Scroll whichever pane has focus (the runs pane moves the selection instead). */
export function reduceScroll(s: TuiState, delta: number | 'top' | 'bottom'): Patch {
  if (s.mode === 'details' && s.details) {
    const total = s.details.lines.length;
    const h = s.viewport.detailsOutputHeight;
    // In details, "down" goes towards newer output, i.e. fewer lines from the end.
    const d = delta === 'top' ? total : delta === 'bottom' ? -total : -delta;
    return { details: { ...s.details, scroll: scrollFromEnd(s.details.scroll, d, total, h) } };
  }
  if (s.pane === 'events') {
    const d = delta === 'top' ? s.log.size : delta === 'bottom' ? -s.log.size : -delta;
    return { logScroll: scrollFromEnd(s.logScroll, d, s.log.size, s.viewport.eventsHeight) };
  }
  if (s.pane === 'limiter') {
    const n = s.stats?.caps.length ?? 0;
    const max = Math.max(0, n - s.viewport.limiterHeight);
    const next = delta === 'top' ? 0 : delta === 'bottom' ? max : s.limiterScroll + delta;
    return { limiterScroll: Math.min(max, Math.max(0, next)) };
  }
  if (delta === 'top') return reduceList(s, { type: 'first' });
  if (delta === 'bottom') return reduceList(s, { type: 'last' });
  return reduceList(s, delta < 0 ? { type: 'up', n: -delta } : { type: 'down', n: delta });
}

export function nextPane(s: TuiState): Pane {
  const panes: Pane[] = ['runs', 'limiter', ...(s.showEvents ? (['events'] as Pane[]) : [])];
  return panes[(panes.indexOf(s.pane) + 1) % panes.length]!;
}

// Notices carry names and the server's own words: made safe here, where every notice passes.
export function info(text: string, now: number): Patch {
  return { message: { text: clean(text), kind: 'info', at: now } };
}

export function error(text: string, now: number): Patch {
  return { message: { text: clean(text), kind: 'error', at: now } };
}
