// How keys move the transcript pager (its state is pager-state.ts'):
// scrolling (following the end while the run works, until a key scrolls
// away; G follows again), search with n/N, the raw and stderr views,
// expanding tool results. Pure reducers `(state, …) => patch` over the
// document the connection feeds.

import type { Patch, TuiState } from './store.js';
import { info } from './store.js';
import { isTranscript, type PagerView } from './transcript-doc.js';
import type { PagerState } from './pager-state.js';
import { pagerWindow } from '../model/doc-window.js';

const size = (s: TuiState): { width: number; height: number } => ({ width: s.viewport.width, height: s.viewport.pagerHeight });

export function reduceOpenPager(s: TuiState, uuid: string, name: string): Patch {
  return { mode: 'pager', pager: { uuid, name, view: 'transcript', top: 0, follow: true, search: '', match: null, expanded: [], version: 0 }, message: null };
}

/** `d`: the run's diff, from its top; the document comes when the supervisor answers. */
export function reduceOpenDiff(s: TuiState, uuid: string, name: string): Patch {
  const back: PagerState['back'] = s.mode === 'details' ? 'details' : 'list';
  return {
    mode: 'pager',
    pager: { uuid, name, view: 'diff', top: 0, follow: false, search: '', match: null, expanded: [], version: 0, back },
    pagerDoc: null,
    message: null,
  };
}

/** enter/v in the approvals queue: request `id`'s whole input, from its top; the document comes when the supervisor answers. */
export function reduceOpenInput(s: TuiState, id: number, run: string, title: string): Patch {
  return {
    mode: 'pager',
    pager: { uuid: run, name: title, view: 'input', top: 0, follow: false, search: '', match: null, expanded: [], version: 0, back: 'approvals', request: id },
    pagerDoc: null,
    message: null,
  };
}

export function reduceClosePager(s?: TuiState): Patch {
  return { mode: s?.pager?.back ?? 'details', pager: null, pagerDoc: null };
}

export function reducePagerScroll(s: TuiState, delta: number | 'top' | 'bottom'): Patch {
  const p = s.pager;
  if (!p || !s.pagerDoc) return {};
  const { width, height } = size(s);
  const { rows, top } = pagerWindow(s.pagerDoc, p, width, height);
  const maxTop = Math.max(0, rows.length - height);
  if (delta === 'bottom') return { pager: { ...p, follow: true, top: maxTop } };
  const next = delta === 'top' ? 0 : Math.min(maxTop, Math.max(0, top + delta));
  return { pager: { ...p, follow: false, top: next } };
}

/** Switch to a view (or back to the transcript when it is showing): the end, as when the pager opened. */
export function reducePagerView(s: TuiState, view: PagerView): Patch {
  const p = s.pager;
  if (!p || !isTranscript(p.view)) return {};
  const next = p.view === view ? 'transcript' : view;
  return { pager: { ...p, view: next, follow: true, top: 0, match: null } };
}

/** Find `text` from the row after (or before) the first one on screen; the match goes to the top. */
export function reduceSearch(s: TuiState, text: string, dir: 1 | -1, now: number, fromTop = false): Patch {
  const p = s.pager;
  if (!p || !s.pagerDoc) return {};
  if (text === '') return { pager: { ...p, search: '', match: null } };
  const { width, height } = size(s);
  const { rows, top } = pagerWindow(s.pagerDoc, p, width, height);
  const needle = text.toLowerCase();
  const from = p.match !== null && !fromTop ? p.match : top;
  const n = rows.length;
  for (let k = fromTop ? 0 : 1; k <= n; k++) {
    const i = (((from + dir * k) % n) + n) % n;
    if (rows[i]!.text.toLowerCase().includes(needle)) {
      const maxTop = Math.max(0, n - height);
      const wrapped = dir === 1 ? i < from : i > from;
      return { pager: { ...p, search: text, match: i, follow: false, top: Math.min(i, maxTop) }, ...(wrapped ? info(`search wrapped: "${text}"`, now) : {}) };
    }
  }
  return { pager: { ...p, search: text, match: null }, ...info(`not found: "${text}"`, now) };
}

/** Expand the tool results on screen (or fold them again when all are expanded). */
export function reduceExpand(s: TuiState, now: number): Patch {
  const p = s.pager;
  if (!p || !s.pagerDoc) return {};
  if (p.view !== 'transcript') return info('tool results fold in the transcript view (r goes back to it)', now);
  const { width, height } = size(s);
  const { top } = pagerWindow(s.pagerDoc, p, width, height);
  const here = s.pagerDoc.resultsIn(top, top + height);
  if (here.length === 0) return info('no tool result on screen', now);
  const open = new Set(p.expanded);
  const fold = here.every((i) => open.has(i));
  for (const i of here) {
    if (fold) open.delete(i);
    else open.add(i);
  }
  // Keep the first row on screen where it is: the rows above it do not change.
  return { pager: { ...p, expanded: [...open].sort((a, b) => a - b), follow: false, top } };
}
