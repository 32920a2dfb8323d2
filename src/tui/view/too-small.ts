// What a terminal too small for the panes shows: its size, the size needed,
// and how to get out, wrapped to its width. Pure.

import { wrap } from '../../text/transcript-lines.js';
import type { Span } from './columns.js';
import { MIN_COLUMNS, MIN_ROWS } from './layout.js';

/** `ignored`: a key other than q was pressed meanwhile (said, so a key that does nothing is not a mystery). */
export function tooSmallLines(columns: number, rows: number, ignored = false): Span[][] {
  const w = Math.max(1, columns);
  const said: [string, Span['token']][] = [
    [`orcr-tui: this terminal is ${columns}x${rows}, too small to show the runs: it needs at least ${MIN_COLUMNS}x${MIN_ROWS}.`, 'notice.error'],
    ['Make it larger, or press q to quit.', 'text.muted'],
  ];
  if (ignored) said.push(['Other keys do nothing until it is larger.', 'notice.info']);
  return said.flatMap(([text, token]) => wrap(text, w).map((l) => [{ text: l, token }]));
}
