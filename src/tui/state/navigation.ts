// How a person moves through the state: the selection, scrolling and focus of
// each pane (runs, limiter, event log, details), and the viewport the panes
// are cut to. Pure reducers `(state, …) => patch`; no I/O.

import { clampList, followSelection, listReducer, scrollFromEnd, type ListAction, type ListState } from './list-state.js';
import type { Stats } from './stats.js';
import type { Pane, Patch, TuiState, Viewport } from './store.js';
import { limiterItems, nextSelectable, type LimiterItem } from '../model/limiter-items.js';
import { outputRows } from '../model/doc-window.js';

/** Rows of the output details show now (the transcript, or the raw lines), at the screen's width. */
export function detailsRows(s: Pick<TuiState, 'details' | 'outputDoc' | 'viewport'>): number {
  const d = s.details;
  return d && s.outputDoc?.uuid === d.uuid ? outputRows(s.outputDoc, d.raw ?? false, s.viewport.width).length : 0;
}

/** `r` in details: the raw lines, or the transcript again; from the newest row. */
export function reduceDetailsRaw(s: TuiState): Patch {
  return s.details ? { details: { ...s.details, raw: !(s.details.raw ?? false), scroll: 0 } } : {};
}

/** The limiter's selection after its lines changed: the same holder or waiter where it still is, else the nearest one. */
export function followLimiter(s: TuiState, stats: Stats): Pick<TuiState, 'limiterList' | 'limiterKey'> | Record<string, never> {
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

export function reduceList(s: TuiState, a: ListAction): Patch {
  const list = listReducer(s.list, a, s.view.ids.length, s.viewport.runsHeight);
  return { list, selected: s.view.ids[list.cursor] ?? null, killPin: null };
}

/** Open a run's details from anywhere (a row, a holder, a waiter, an event); the runs pane's cursor goes to it when it is listed. */
export function reduceOpenDetails(s: TuiState, uuid: string): Patch {
  const i = s.view.ids.indexOf(uuid);
  const list = i >= 0 ? clampList({ cursor: i, offset: s.list.offset }, s.view.ids.length, s.viewport.runsHeight) : s.list;
  // The output starts as the transcript, at its newest rows; the connection feeds the document.
  const details = s.details?.uuid === uuid ? { ...s.details, scroll: 0, raw: false } : { uuid, cpu: null, rssBytes: null, pids: [], scroll: 0, raw: false };
  return { mode: 'details', selected: uuid, list, killPin: null, details };
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
    v.detailsOutputHeight === viewport.detailsOutputHeight &&
    v.pagerHeight === viewport.pagerHeight
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
    const total = detailsRows(s);
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
