// How the pager colours a transcript's rows and a diff's: each row style as a
// theme token; its title and where it stands. Which rows show is
// model/doc-window.ts'. Pure: the Pager component asks, nothing here reads the store.

import type { RowStyle } from '../../text/transcript-lines.js';
import type { PagerView } from '../state/transcript-doc.js';
import type { DiffStyle } from '../model/diff.js';
import type { Token } from '../model/tokens.js';

/** A diff row's colour, by what the line is. */
export const DIFF_TOKEN: Readonly<Record<DiffStyle, Token>> = {
  'diff.summary': 'text.primary',
  'diff.file': 'text.accent',
  'diff.meta': 'text.muted',
  'diff.hunk': 'event.system',
  'diff.add': 'reason.ok',
  'diff.del': 'reason.bad',
  'diff.context': 'text.primary',
};

const ROW_TOKEN: Readonly<Record<RowStyle, Token>> = {
  prompt: 'text.accent',
  input: 'text.accent',
  text: 'text.primary',
  tool: 'event.input',
  result: 'text.muted',
  'result.failed': 'event.error',
  turn: 'event.system',
  'turn.failed': 'reason.bad',
  error: 'event.error',
  hold: 'event.hold',
  raw: 'text.muted',
};

/** A row's colour, a transcript's or a diff's. */
export function rowToken(style: RowStyle | DiffStyle): Token {
  return style in DIFF_TOKEN ? DIFF_TOKEN[style as DiffStyle] : ROW_TOKEN[style as RowStyle];
}

/** The pager's title: whose transcript (or diff), which view, and where in it. */
export function pagerTitle(name: string, view: PagerView): string {
  if (view === 'diff') return `Diff: ${name}`;
  return view === 'transcript' ? `Transcript: ${name}` : view === 'raw' ? `Raw output: ${name}` : `Stderr: ${name}`;
}

export function pagerRight(
  top: number,
  shown: number,
  total: number,
  follow: boolean,
  working: boolean,
  loading?: { read: number; total: number } | null,
): string {
  // A long output is still being parsed behind the first screen: say how far.
  if (loading)
    return `${Math.min(total, top + 1)}-${Math.min(total, top + shown)} of ${total}+ · reading ${loading.read.toLocaleString('en-US')} of ${loading.total.toLocaleString('en-US')} lines…`;
  if (total === 0) return 'nothing yet';
  const at = `${Math.min(total, top + 1)}-${Math.min(total, top + shown)} of ${total}`;
  if (follow) return `${at} · ${working ? 'following' : 'end'}`;
  return `${at} · G ${working ? 'follows' : 'end'}`;
}
