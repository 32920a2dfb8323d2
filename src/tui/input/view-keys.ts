// What the keys of the full-screen views do: the transcript pager (scrolling,
// search, its views, expanding tool results, a diff in it), the loops view
// (its cursor, pause and fire), the help screen's scrolling and the spend
// view. Handlers and disabled reasons for the bindings (bindings.ts).

import { clampCursor } from '../state/loops.js';
import { reduceClosePager, reduceExpand, reducePagerScroll, reducePagerView, reduceSearch } from '../state/pager.js';
import type { TuiState } from '../state/store.js';
import { isTranscript } from '../state/transcript-doc.js';
import { unavailable, type KeyCall, type Refusal } from './binding.js';

type By = number | 'page' | '-page' | 'top' | 'bottom';

export const pagerScroll =
  (by: By) =>
  (c: KeyCall): void => {
    const page = Math.max(1, c.s.viewport.pagerHeight - 1);
    c.set(reducePagerScroll(c.s, by === 'page' ? page : by === '-page' ? -page : by));
  };

export const openSearch = (c: KeyCall): void =>
  c.openPrompt({ kind: 'search', text: c.s.pager?.search ?? '', target: null, targetName: null, selected: !!c.s.pager?.search });

export const searched = (c: KeyCall): Refusal | null => (c.s.pager?.search ? null : unavailable('nothing searched yet (/ searches)'));

export const nextMatch =
  (dir: 1 | -1) =>
  (c: KeyCall): void =>
    c.set(reduceSearch(c.s, c.s.pager!.search, dir, c.now()));

export const pagerView =
  (view: 'raw' | 'stderr') =>
  (c: KeyCall): void =>
    c.set(reducePagerView(c.s, view));

export const expand = (c: KeyCall): void => c.set(reduceExpand(c.s, c.now()));

export function closePager(c: KeyCall): void {
  c.set(reduceClosePager(c.s));
  if (c.s.pager && isTranscript(c.s.pager.view)) c.actions.output.transcriptClosed();
}

// ---- the loops view

const loopRows = (s: TuiState): NonNullable<TuiState['loops']>['rows'] => s.loops?.rows ?? [];

export const loopsMove =
  (by: By) =>
  (c: KeyCall): void => {
    const s = c.s;
    const rows = loopRows(s).length;
    const page = Math.max(1, s.viewport.pagerHeight - 2);
    const to = by === 'top' ? 0 : by === 'bottom' ? rows - 1 : s.loopsCursor + (by === 'page' ? page : by === '-page' ? -page : by);
    c.set({ loopsCursor: clampCursor(to, rows) });
  };

const selectedLoop = (s: TuiState): ReturnType<typeof loopRows>[number] | undefined => loopRows(s)[clampCursor(s.loopsCursor, loopRows(s).length)];

export const loopSelected = (c: KeyCall): Refusal | null => (selectedLoop(c.s) ? null : unavailable('no loop selected'));

export function pauseLoop(c: KeyCall): void {
  const l = selectedLoop(c.s)!;
  c.actions.views.pauseLoop(l.name, !l.paused);
}

export const fireLoop = (c: KeyCall): void => c.actions.views.fireLoop(selectedLoop(c.s)!.name);

/** `@`: the loops view, or back to the list from it. */
export function toggleLoops(c: KeyCall): void {
  if (c.s.mode === 'loops') return c.set({ mode: 'list' });
  c.set({ mode: 'loops', message: null });
  c.actions.views.loopsOpened();
}

/** `$`: the spend view, or back to the list from it. */
export function toggleSpend(c: KeyCall): void {
  if (c.s.mode === 'spend') return c.set({ mode: 'list' });
  c.set({ mode: 'spend', message: null });
  c.actions.views.spendOpened();
}

export const toList = (c: KeyCall): void => c.set({ mode: 'list' });

// ---- the help screen (the Help component keeps the last page in view)

export const helpScroll =
  (by: By) =>
  (c: KeyCall): void => {
    const s = c.s;
    const page = Math.max(1, s.viewport.pagerHeight - 2);
    const to = by === 'top' ? 0 : by === 'bottom' ? 1e6 : s.helpScroll + (by === 'page' ? page : by === '-page' ? -page : by);
    c.set({ helpScroll: Math.max(0, Math.min(to, 1e6)) });
  };

export const closeHelp = (c: KeyCall): void => c.set({ mode: c.s.helpBack });
