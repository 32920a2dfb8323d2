// The footer's key hints and the help screen's list, made from the one
// binding map (input/bindings.ts) so they cannot drift from what the keys do.
// Pure: the components ask, nothing here reads the store.

import type { Binding } from '../input/binding.js';
import { BINDINGS } from '../input/bindings.js';
import type { KeyContext } from '../input/keys.js';
import type { Pane, TuiState } from '../state/store.js';
import { isTranscript } from '../state/transcript-doc.js';
import { textWidth } from './format.js';

/** The keys' context: the mode, but the pager showing a document read once (a diff, a request's input) has keys of its own. */
export function contextOf(s: Pick<TuiState, 'mode' | 'pager'>): KeyContext {
  return s.mode === 'pager' && s.pager && !isTranscript(s.pager.view) ? 'diff' : s.mode;
}

export interface Hint {
  label: string;
  hint: string;
  /** Shown whatever the width (how to get out, get help, answer or leave a question). */
  always: boolean;
}

const inFooter = (b: Binding, context: KeyContext, pane: Pane): boolean => {
  const f = b.footer;
  if (!f || !b.contexts.includes(context)) return false;
  // A binding placed by pane is the list's: its panes' footers show it, no other.
  return f.panes === undefined || (context === 'list' && f.panes.includes(pane));
};

const FOOTER = BINDINGS.filter((b) => b.footer).sort((a, b) => a.footer!.rank - b.footer!.rank);

/** Footer hints for a context, and in the list for the focused pane: "j/k move  x kill  w wait  …", the most used first. */
export function footerHints(context: KeyContext, pane: Pane = 'runs'): Hint[] {
  return FOOTER.filter((b) => inFooter(b, context, pane)).map((b) => {
    const f = b.footer!;
    const hint = typeof f.hint === 'function' ? f.hint({ context, pane }) : (f.hint ?? b.description);
    return { label: f.label ?? b.label, hint, always: f.always === true };
  });
}

/** Columns a hint takes, its separator from the one before included. */
const hintWidth = (h: Hint, first: boolean): number => textWidth(h.label) + 1 + textWidth(h.hint) + (first ? 0 : 2);

/**
 * The hints that fit in `width` columns, in their order: the essential ones
 * always; the others, most used first, while they fit — a narrow terminal
 * drops the least useful whole, never "? help" or "q quit".
 */
export function fitHints(hints: readonly Hint[], width: number): Hint[] {
  const keep = new Set<Hint>(hints.filter((h) => h.always));
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

/** Where a key shown once for several views works, when that is not everywhere. */
function whereIn(contexts: ReadonlySet<KeyContext>): string {
  const only = (...cs: KeyContext[]): boolean => [...contexts].every((c) => cs.includes(c));
  if (only('pager', 'diff')) return 'pager: ';
  if (only('loops')) return 'loops: ';
  if (only('approvals')) return 'approvals: ';
  if (only('details')) return 'details: ';
  if (only('details', 'pager', 'diff')) return 'details, pager: ';
  return '';
}

/** Help screen lines: each key once (its bindings in every view together), in the map's order. */
export function helpEntries(): { label: string; hint: string }[] {
  const entries = new Map<string, { label: string; description: string; contexts: Set<KeyContext> }>();
  for (const b of BINDINGS) {
    // The prompt's and the question's keys are on screen while they are up.
    if (b.help === false || b.contexts.includes('prompt') || b.contexts.includes('confirm')) continue;
    const id = `${b.label}\u0000${b.description}`;
    const e = entries.get(id) ?? { label: b.label, description: b.description, contexts: new Set<KeyContext>() };
    for (const c of b.contexts) e.contexts.add(c);
    entries.set(id, e);
  }
  return [...entries.values()].map((e) => ({ label: e.label, hint: whereIn(e.contexts) + e.description }));
}
