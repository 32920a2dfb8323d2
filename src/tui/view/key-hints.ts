// The footer's key hints and the help screen's list, generated from the one
// binding table (input/keys.ts) so they cannot drift from what the keys do.
// Pure: the components ask, nothing here reads the store.

import { BINDINGS, Command, type KeyContext } from '../input/keys.js';
import type { Pane, TuiState } from '../state/store.js';
import { textWidth } from './format.js';

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

export interface Hint {
  label: string;
  hint: string;
  /** The command it stands for (none for the movement keys' "j/k"). */
  command?: Command;
}

/** Footer hints for a context, and in the list for the focused pane: "j/k move  x kill  w wait  …". */
export function footerHints(context: KeyContext, pane: Pane = 'runs'): Hint[] {
  const out: Hint[] = [];
  if (context === 'list' || context === 'details' || context === 'pager' || context === 'diff' || context === 'loops') out.push({ label: 'j/k', hint: context === 'list' ? (pane === 'runs' ? 'move' : 'select') : context === 'loops' ? 'select' : 'scroll' });
  for (const c of FOOTER_ORDER) {
    const b = BINDINGS.find((x) => x.command === c && x.footer && x.contexts.includes(context));
    if (!b) continue;
    if (context === 'list' && b.panes && !b.panes.includes(pane)) continue;
    if (context !== 'list' && b.panes) continue;
    out.push({ label: b.label, hint: (context === 'list' ? b.paneHint?.[pane] : undefined) ?? b.hint, command: c });
  }
  if (context !== 'list' && context !== 'prompt' && context !== 'confirm') out.unshift({ label: 'esc', hint: 'back', command: Command.Back });
  return out;
}

/** What a person needs whatever the width: how to get out, get help, answer or leave a question. */
const ESSENTIAL: ReadonlySet<Command> = new Set([Command.Back, Command.Help, Command.Quit, Command.Confirm, Command.Deny, Command.Submit]);

/** Columns a hint takes, its separator from the one before included. */
const hintWidth = (h: Hint, first: boolean): number => textWidth(h.label) + 1 + textWidth(h.hint) + (first ? 0 : 2);

/**
 * The hints that fit in `width` columns, in their order: the essential ones
 * always; the others, most used first, while they fit — a narrow terminal
 * drops the least useful whole, never "? help" or "q quit".
 */
export function fitHints(hints: readonly Hint[], width: number): Hint[] {
  const keep = new Set<Hint>(hints.filter((h) => h.command !== undefined && ESSENTIAL.has(h.command)));
  let used = [...keep].reduce((n, h, i) => n + hintWidth(h, i === 0), 0);
  for (const h of hints) {
    if (keep.has(h)) continue;
    const w = hintWidth(h, keep.size === 0);
    if (used + w > width) continue;
    keep.add(h);
    used += w;
  }
  return hints.filter((h) => keep.has(h));
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
    const where = only('pager', 'diff') ? 'pager: ' : only('loops') ? 'loops: ' : only('details') ? 'details: ' : only('details', 'pager', 'diff') ? 'details, pager: ' : '';
    out.push({ label: b.label, hint: where + b.hint });
  }
  return out;
}
