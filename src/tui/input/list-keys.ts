// What the list's own keys do (and details', for moving and leaving): moving
// in the focused pane, panes and the event log, tagging, the next run that
// needs you, order, grouping and folding, the filter, the theme and help.
// Handlers and disabled reasons for the bindings (bindings.ts).

import { nextPane, reduceCloseDetails, reduceFocus, reduceScroll } from '../state/navigation.js';
import { nextGroup, nextSortKey, reduceFilter, reduceFold, reduceShowAll, reduceSort } from '../state/reducers.js';
import type { SortSpec } from '../state/sort.js';
import { info as notice, type Patch, type TuiState } from '../state/store.js';
import { sortWords } from '../view/format.js';
import { nextThemeName } from '../view/theme.js';
import { unavailable, type KeyCall, type Refusal } from './binding.js';
import { nothingSelected, plural } from './run-keys.js';
import { runOf } from '../state/fleet.js';

/** The notice a key leaves, as a patch, for keys that change other things in the same step. */
const info = (c: KeyCall, text: string): Patch => notice(text, c.now());

/** Lines a page key moves in the focused pane. */
function pageOf(s: TuiState): number {
  if (s.mode === 'details') return s.viewport.detailsOutputHeight;
  if (s.pane === 'limiter') return s.viewport.limiterHeight;
  if (s.pane === 'events') return s.viewport.eventsHeight;
  return s.viewport.runsHeight;
}

/** Move in the focused pane (details scroll their output): a line, a page, or to an end. */
export const scroll =
  (by: number | 'page' | '-page' | 'top' | 'bottom') =>
  (c: KeyCall): void => {
    const page = Math.max(1, pageOf(c.s) - 1);
    c.set(reduceScroll(c.s, by === 'page' ? page : by === '-page' ? -page : by));
  };

/** esc in the list: back to the runs pane, then untag, then clear the filter, then the notice. */
export function backInList(c: KeyCall): void {
  const s = c.s;
  if (s.pane !== 'runs') return c.set({ pane: 'runs' });
  if (Object.keys(s.tagged).length > 0) return c.set({ tagged: {}, ...info(c, 'no runs tagged') });
  if (s.filter) return c.set(reduceFilter(s, ''));
  c.set({ message: null });
}

export function closeDetails(c: KeyCall): void {
  c.set(reduceCloseDetails(c.s));
  c.actions.output.detailsClosed();
}

export const focusNextPane = (c: KeyCall): void => c.set(reduceFocus(c.s, nextPane(c.s)));

export const toggleEvents = (c: KeyCall): void => c.set({ showEvents: !c.s.showEvents, pane: c.s.pane === 'events' ? 'runs' : c.s.pane });

export function nextTheme(c: KeyCall): void {
  const theme = nextThemeName(c.themes, c.s.theme);
  c.set({ theme });
  c.actions.prefs.themeChanged(theme);
}

export function toggleHelp(c: KeyCall): void {
  if (c.s.mode === 'help') c.set({ mode: c.s.helpBack });
  else c.set({ mode: 'help', helpBack: c.s.mode, helpScroll: 0 });
}

export const inRuns = (c: KeyCall): Refusal | null => (c.target && c.s.pane === 'runs' ? null : unavailable(nothingSelected(c.s)));

export function tag(c: KeyCall): void {
  const s = c.s;
  const uuid = c.target!.uuid;
  const tagged = { ...s.tagged };
  if (tagged[uuid]) delete tagged[uuid];
  else tagged[uuid] = true;
  const n = Object.keys(tagged).length;
  // On to the next row, so space, space, space tags a run of rows.
  c.set({ tagged, ...reduceScroll(s, 1), ...info(c, n ? `${plural(n, 'run')} tagged: x, w, s and R act on them (esc untags)` : 'no runs tagged') });
}

export function tagAll(c: KeyCall): void {
  const s = c.s;
  // Elsewhere than the runs pane * means nothing.
  if (s.pane !== 'runs') return;
  const all = s.view.ids.length > 0 && s.view.ids.every((id) => s.tagged[id]);
  const tagged: Record<string, true> = all ? {} : Object.fromEntries(s.view.ids.map((id) => [id, true as const]));
  c.set({ tagged, ...info(c, all ? 'no runs tagged' : `${plural(s.view.ids.length, 'listed run')} tagged: x, w, s and R act on them (esc untags)`) });
}

export const anyNeedsYou = (c: KeyCall): Refusal | null => (c.s.view.ids.some((id) => c.s.view.attention[id]) ? null : unavailable('no run needs you'));

export function nextNeedingYou(c: KeyCall): void {
  const s = c.s;
  const ids = s.view.ids;
  const lead = ids.filter((id) => s.view.attention[id]);
  // They lead the list: the next one below the cursor, or the first again.
  const at = lead.map((id) => ids.indexOf(id)).find((i) => i > s.list.cursor) ?? ids.indexOf(lead[0]!);
  const need = s.view.attention[ids[at]!]!;
  c.set({
    ...reduceScroll({ ...s, pane: 'runs' }, at - s.list.cursor),
    ...info(c, `${runOf(s, ids[at]!)?.name ?? 'run'}: ${need.reason} (${lead.length} need${lead.length === 1 ? 's' : ''} you)`),
  });
}

/** `S`, `b` and `-`: a new order, said in the footer and remembered for the next session. */
export const resort =
  (next: (s: TuiState) => SortSpec) =>
  (c: KeyCall): void => {
    const sort = next(c.s);
    c.set({ ...reduceSort(c.s, sort), ...info(c, `sorted by ${sortWords(sort)} (S: next column, -: reverse, b: group)`) });
    c.actions.prefs.sortChanged(sort);
  };

export const nextSort = (s: TuiState): SortSpec => ({ key: nextSortKey(s.sort.key), reverse: false, group: s.sort.group ?? null });
export const nextGrouping = (s: TuiState): SortSpec => ({
  ...s.sort,
  group: nextGroup(
    s.sort.group ?? null,
    Object.values(s.runs.byId).some((r) => r.worktree),
  ),
});
export const reversed = (s: TuiState): SortSpec => ({ ...s.sort, reverse: !s.sort.reverse });

export const foldable = (c: KeyCall): Refusal | null => {
  const why = inRuns(c);
  if (why) return why;
  const t = c.target!;
  return c.s.view.folded?.[t.uuid] === undefined ? unavailable(`${t.name} has no runs of its own listed under it`) : null;
};

export function fold(c: KeyCall): void {
  const s = c.s;
  const t = c.target!;
  const f = s.view.folded![t.uuid]!;
  c.set({
    ...reduceFold(s, t.uuid),
    ...info(c, f > 0 ? `${t.name}: its runs unfolded` : `${t.name}: ${plural(s.runs.byId[t.uuid]?.children.length ?? 0, 'child run')} folded under it`),
  });
}

/** The filter as it was, selected: typing replaces it, an arrow key keeps it to edit. */
export const openFilter = (c: KeyCall): void => c.openPrompt({ kind: 'filter', text: c.s.filter, target: null, targetName: null, selected: c.s.filter !== '' });

export const openNew = (c: KeyCall): void => c.openPrompt({ kind: 'new', text: '', target: null, targetName: null });

export const toggleAll = (c: KeyCall): void =>
  c.set({ ...reduceShowAll(c.s, !c.s.showAll), ...info(c, c.s.showAll ? 'showing active runs only (a shows all)' : 'showing all runs') });
