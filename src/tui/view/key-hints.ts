// The footer's key hints and the help screen's list, generated from the one
// binding table (input/keys.ts) so they cannot drift from what the keys do.
// Pure: the components ask, nothing here reads the store.

import { BINDINGS, Command, type KeyContext } from '../input/keys.js';
import type { Pane, TuiState } from '../state/store.js';

/** The keys' context: the mode, but the pager showing a diff has keys of its own. */
export function contextOf(s: Pick<TuiState, 'mode' | 'pager'>): KeyContext {
  return s.mode === 'pager' && s.pager?.view === 'diff' ? 'diff' : s.mode;
}

/** The footer's order: the most used first, so a narrow terminal cuts the least useful. */
const FOOTER_ORDER: readonly Command[] = [
  Command.Confirm,
  Command.Deny,
  Command.Submit,
  Command.Back,
  Command.Details,
  Command.NextAttention,
  Command.Transcript,
  Command.Last,
  Command.Search,
  Command.NextMatch,
  Command.Expand,
  Command.LoopPause,
  Command.LoopFire,
  Command.RawView,
  Command.StderrView,
  Command.Kill,
  Command.Wait,
  Command.Send,
  Command.New,
  Command.Filter,
  Command.Help,
  Command.Quit,
  Command.Diff,
  Command.NextPane,
  Command.ToggleAll,
  Command.ToggleEvents,
];

/** Footer hints for a context, and in the list for the focused pane: "j/k move  x kill  w wait  …". */
export function footerHints(context: KeyContext, pane: Pane = 'runs'): { label: string; hint: string }[] {
  const out: { label: string; hint: string }[] = [];
  if (context === 'list' || context === 'details' || context === 'pager' || context === 'diff' || context === 'loops') out.push({ label: 'j/k', hint: context === 'list' ? (pane === 'runs' ? 'move' : 'select') : context === 'loops' ? 'select' : 'scroll' });
  for (const c of FOOTER_ORDER) {
    const b = BINDINGS.find((x) => x.command === c && x.footer && x.contexts.includes(context));
    if (!b) continue;
    if (context === 'list' && b.panes && !b.panes.includes(pane)) continue;
    if (context !== 'list' && b.panes) continue;
    out.push({ label: b.label, hint: (context === 'list' ? b.paneHint?.[pane] : undefined) ?? b.hint });
  }
  if (context !== 'list' && context !== 'prompt' && context !== 'confirm') out.unshift({ label: 'esc', hint: 'back' });
  return out;
}

/** Help screen lines: every binding once per command, in table order. */
export function helpEntries(): { label: string; hint: string }[] {
  const seen = new Set<string>();
  const out: { label: string; hint: string }[] = [];
  for (const b of BINDINGS) {
    const id = `${b.command}:${b.contexts.join(',')}`;
    if (b.contexts.includes('prompt') || b.contexts.includes('confirm') || seen.has(b.command)) continue;
    seen.add(b.command);
    seen.add(id);
    // n/N is one entry; a key that means something else in a view says where.
    if (b.command === Command.PrevMatch) continue;
    const only = (...cs: KeyContext[]): boolean => b.contexts.every((c) => cs.includes(c));
    const where = only('pager', 'diff') ? 'pager: ' : only('loops') ? 'loops: ' : only('details') ? 'details: ' : '';
    out.push({ label: b.label, hint: where + b.hint });
  }
  return out;
}
