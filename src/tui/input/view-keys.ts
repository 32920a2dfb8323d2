// Keys of the full-screen views that give keys meanings of their own: the
// transcript pager (scrolling, search, its views, expanding tool results)
// and the loops view (its cursor, pause and fire). Each answers false for
// the keys it shares with the rest (help, theme, quit).

import { Command } from './keys.js';
import type { KeyDeps } from './key-deps.js';
import { clampCursor } from '../state/loops.js';
import { reduceClosePager, reduceExpand, reducePagerScroll, reducePagerView, reduceSearch } from '../state/pager.js';
import { info, type TuiState } from '../state/store.js';

/** The pager's own meanings of keys; false for the keys it shares (help, theme, quit). */
export function onPager(k: KeyDeps, s: TuiState, cmd: Command): boolean {
  const { set, actions, now } = k;
  const scroll = (d: number | 'top' | 'bottom'): void => set(reducePagerScroll(s, d));
  const page = Math.max(1, s.viewport.pagerHeight - 1);
  switch (cmd) {
    case Command.Up:
      scroll(-1);
      return true;
    case Command.Down:
      scroll(1);
      return true;
    case Command.PageUp:
      scroll(-page);
      return true;
    case Command.PageDown:
      scroll(page);
      return true;
    case Command.First:
      scroll('top');
      return true;
    case Command.Last:
      scroll('bottom');
      return true;
    case Command.Search:
      k.openPrompt(s, { kind: 'search', text: s.pager?.search ?? '', target: null, targetName: null, selected: !!s.pager?.search });
      return true;
    case Command.NextMatch:
    case Command.PrevMatch:
      if (!s.pager?.search) set(info('nothing searched yet (/ searches)', now()));
      else set(reduceSearch(s, s.pager.search, cmd === Command.NextMatch ? 1 : -1, now()));
      return true;
    case Command.RawView:
      set(reducePagerView(s, 'raw'));
      return true;
    case Command.StderrView:
      set(reducePagerView(s, 'stderr'));
      return true;
    case Command.Expand:
      set(reduceExpand(s, now()));
      return true;
    case Command.Back:
      set(reduceClosePager(s));
      if (s.pager?.view !== 'diff') actions.transcriptClosed();
      return true;
    default:
      return false;
  }
}

/** The loops view's own meanings of keys; false for the keys it shares (help, theme, quit). */
export function onLoops(k: KeyDeps, s: TuiState, cmd: Command): boolean {
  const { set, actions, now } = k;
  const rows = s.loops?.rows ?? [];
  const move = (to: number): void => set({ loopsCursor: clampCursor(to, rows.length) });
  const selected = rows[clampCursor(s.loopsCursor, rows.length)];
  switch (cmd) {
    case Command.Up:
      move(s.loopsCursor - 1);
      return true;
    case Command.Down:
      move(s.loopsCursor + 1);
      return true;
    case Command.PageUp:
      move(s.loopsCursor - Math.max(1, s.viewport.pagerHeight - 2));
      return true;
    case Command.PageDown:
      move(s.loopsCursor + Math.max(1, s.viewport.pagerHeight - 2));
      return true;
    case Command.First:
      move(0);
      return true;
    case Command.Last:
      move(rows.length - 1);
      return true;
    case Command.Back:
    case Command.Loops:
      set({ mode: 'list' });
      return true;
    case Command.LoopPause:
    case Command.LoopFire:
      if (!selected) set(info('no loop selected', now()));
      else if (cmd === Command.LoopPause) actions.pauseLoop(selected.name, !selected.paused);
      else actions.fireLoop(selected.name);
      return true;
    default:
      return false;
  }
}
