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
import { limiterItems, nextSelectable, type LimiterItem } from './limiter.js';

export type Pane = 'runs' | 'limiter' | 'events';
export type Mode = 'list' | 'details' | 'help' | 'confirm' | 'prompt';
export type PromptKind = 'filter' | 'send' | 'new';

export interface Prompt {
  kind: PromptKind;
  text: string;
  /** The run a `send` goes to. */
  target: string | null;
  targetName: string | null;
  /** The whole text is selected (the filter as it was): typing replaces it, an arrow key keeps it. */
  selected?: boolean;
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
  /** The home is --demo's throw-away one: quitting stops its fleet and removes it. */
  demo: boolean;
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
  /**
   * A run killed from the runs pane: while it is still the selected one, the
   * cursor keeps its row when the run moves away (it sorts to the bottom as
   * it ends), so the next key acts on what is now in that row.
   */
  killPin: string | null;
  /** The focused limiter's selection (over limiterItems(stats.caps)) and the key of the selected line. */
  limiterList: ListState;
  limiterKey: string | null;
  /** The event log's selected line, counted from the newest (0). */
  logCursor: number;
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
    demo: false,
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
    killPin: null,
    limiterList: { cursor: 0, offset: 0 },
    limiterKey: null,
    logCursor: 0,
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

/** Details (or a prompt or confirmation over them) is showing the selected run. */
export function inDetails(s: TuiState): boolean {
  return s.mode === 'details' || (s.mode === 'confirm' && s.confirm?.back === 'details') || (s.mode === 'prompt' && s.prompt?.back === 'details');
}

/**
 * Recompute the rows shown. The selected run stays selected where it still
 * is, except a run just killed from the list: the cursor keeps its row.
 * While details show a run, that run stays selected even when the list no
 * longer has it (it ended, and only active runs are listed).
 */
export function reView(s: TuiState, runs: RunsData, filter = s.filter, showAll = s.showAll, priorities = s.priorities): Patch {
  const view = computeView(runs.byId, { filter, showAll, priorities });
  const h = s.viewport.runsHeight;
  if (s.killPin !== null && s.killPin === s.selected && !inDetails(s)) {
    const list = clampList(s.list, view.ids.length, h);
    const selected = view.ids[list.cursor] ?? null;
    return { runs, view, list, selected, killPin: selected === s.killPin ? s.killPin : null };
  }
  const { list, selected } = followSelection(s.list, s.selected, view.ids, h);
  if (inDetails(s) && s.selected !== null && selected !== s.selected && runs.byId[s.selected]) return { runs, view, list };
  return { runs, view, list, selected, killPin: null };
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
  const patch: Patch = { stats, ...followLimiter(s, stats) };
  if (samePriorities(s.priorities, priorities)) return patch;
  return { ...patch, priorities, ...reView(s, s.runs, s.filter, s.showAll, priorities) };
}

/** The limiter's selection after its lines changed: the same holder or waiter where it still is, else the nearest one. */
function followLimiter(s: TuiState, stats: Stats): Pick<TuiState, 'limiterList' | 'limiterKey'> | Record<string, never> {
  if (s.limiterKey === null) return {};
  const items = limiterItems(stats.caps);
  const at = items.findIndex((it) => it.key === s.limiterKey);
  return limiterAt(items, at >= 0 ? at : s.limiterList.cursor, 1, s.limiterList, s.viewport.limiterHeight);
}

/** Select the selectable line nearest `index` (looking `dir` first), keeping it and its cap's line in view. */
function limiterAt(items: readonly LimiterItem[], index: number, dir: 1 | -1, list: ListState, height: number): Pick<TuiState, 'limiterList' | 'limiterKey'> {
  const i = Math.min(Math.max(0, index), Math.max(0, items.length - 1));
  let at = nextSelectable(items, i, dir);
  if (at < 0) at = nextSelectable(items, i, dir === 1 ? -1 : 1);
  if (at < 0) return { limiterList: clampList(list, items.length, height), limiterKey: null };
  let next = clampList({ cursor: at, offset: list.offset }, items.length, height);
  // Moving up onto a cap's first entry: show the cap's line above it too.
  if (next.offset === at && at > 0 && items[at - 1]!.role === 'cap') next = { ...next, offset: at - 1 };
  return { limiterList: next, limiterKey: items[at]!.key };
}

/** The selected holder, waiter or event: the run it is about, or null. */
export function paneTarget(s: TuiState): string | null {
  if (s.pane === 'limiter') {
    const it = s.stats ? limiterItems(s.stats.caps)[s.limiterList.cursor] : undefined;
    return it && it.key === s.limiterKey ? it.uuid : null;
  }
  if (s.pane === 'events') return s.log.at(s.log.size - 1 - s.logCursor)?.run ?? null;
  return s.selected;
}

/** Focus a pane; the limiter and the event log select a line as they get focus. */
export function reduceFocus(s: TuiState, pane: Pane): Patch {
  if (pane === 'limiter' && s.stats) {
    const items = limiterItems(s.stats.caps);
    const at = s.limiterKey !== null ? items.findIndex((it) => it.key === s.limiterKey) : -1;
    return { pane, ...limiterAt(items, at >= 0 ? at : 0, 1, s.limiterList, s.viewport.limiterHeight) };
  }
  // The newest line in view.
  if (pane === 'events') return { pane, logCursor: Math.min(s.logScroll, Math.max(0, s.log.size - 1)) };
  return { pane };
}

function samePriorities(a: Readonly<Record<string, number>> | null, b: Readonly<Record<string, number>> | null): boolean {
  if (a === null || b === null) return a === b;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

export function reduceList(s: TuiState, a: ListAction): Patch {
  const list = listReducer(s.list, a, s.view.ids.length, s.viewport.runsHeight);
  return { list, selected: s.view.ids[list.cursor] ?? null, killPin: null };
}

export function reduceFilter(s: TuiState, filter: string): Patch {
  return { filter, ...reView({ ...s, killPin: null }, s.runs, filter, s.showAll) };
}

export function reduceShowAll(s: TuiState, showAll: boolean): Patch {
  return { showAll, ...reView({ ...s, killPin: null }, s.runs, s.filter, showAll) };
}

/** Open a run's details from anywhere (a row, a holder, a waiter, an event); the runs pane's cursor goes to it when it is listed. */
export function reduceOpenDetails(s: TuiState, uuid: string): Patch {
  const i = s.view.ids.indexOf(uuid);
  const list = i >= 0 ? clampList({ cursor: i, offset: s.list.offset }, s.view.ids.length, s.viewport.runsHeight) : s.list;
  return { mode: 'details', selected: uuid, list, killPin: null, details: s.details?.uuid === uuid ? s.details : null };
}

/** Back to the list from details: the selection is the cursor's row again if the run shown is not listed. */
export function reduceCloseDetails(s: TuiState): Patch {
  const { list, selected } = followSelection(s.list, s.selected, s.view.ids, s.viewport.runsHeight);
  return { mode: 'list', list, selected };
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
    ...logWindow(s.logCursor, s.logScroll, s.log.size, viewport.eventsHeight),
    limiterList: clampList(s.limiterList, s.stats ? limiterItems(s.stats.caps).length : 0, viewport.limiterHeight),
  };
}

/** The event log's scroll that keeps the selected line in view (both counted from the newest). */
function logWindow(cursor: number, scroll: number, size: number, height: number): Pick<TuiState, 'logCursor' | 'logScroll'> {
  const h = Math.max(1, height);
  const c = Math.min(Math.max(0, cursor), Math.max(0, size - 1));
  let sc = scroll;
  if (c < sc) sc = c;
  if (c > sc + h - 1) sc = c - h + 1;
  return { logCursor: c, logScroll: scrollFromEnd(sc, 0, size, h) };
}

/** Move the selection in whichever pane has focus (details scroll their output). */
export function reduceScroll(s: TuiState, delta: number | 'top' | 'bottom'): Patch {
  if (s.mode === 'details' && s.details) {
    const total = s.details.lines.length;
    const h = s.viewport.detailsOutputHeight;
    // In details, "down" goes towards newer output, i.e. fewer lines from the end.
    const d = delta === 'top' ? total : delta === 'bottom' ? -total : -delta;
    return { details: { ...s.details, scroll: scrollFromEnd(s.details.scroll, d, total, h) } };
  }
  if (s.pane === 'events') {
    // "Down" is towards newer lines, i.e. fewer lines from the newest; G follows the log again.
    const size = s.log.size;
    if (delta === 'bottom') return { logCursor: 0, logScroll: 0 };
    const cursor = delta === 'top' ? size - 1 : s.logCursor - delta;
    return logWindow(cursor, s.logScroll, size, s.viewport.eventsHeight);
  }
  if (s.pane === 'limiter') {
    if (!s.stats) return {};
    const items = limiterItems(s.stats.caps);
    if (delta === 'top') return limiterAt(items, 0, 1, s.limiterList, s.viewport.limiterHeight);
    if (delta === 'bottom') return limiterAt(items, items.length - 1, -1, s.limiterList, s.viewport.limiterHeight);
    // Step over caps' own lines: |delta| holders/waiters up or down.
    const dir = delta < 0 ? -1 : 1;
    let at = s.limiterList.cursor;
    for (let n = 0; n < Math.abs(delta); n++) {
      const next = nextSelectable(items, at + dir, dir);
      if (next < 0) break;
      at = next;
    }
    return limiterAt(items, at, dir, s.limiterList, s.viewport.limiterHeight);
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
