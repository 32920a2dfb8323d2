// The line under the runs list that says ended runs are left out (the window
// let them go, or the snapshot did not send them) and how to page them in.
// Pure: the runs table renders it, the app gives it its row.

import { ENDED_MAX, ENDED_WINDOW, OLDER_PAGE } from '../state/ended-window.js';
import type { TuiState } from '../state/store.js';

/** The text of the line, or null when nothing is left out or ended runs are not listed. */
export function olderLine(s: TuiState): string | null {
  const o = s.older;
  if (!s.loaded || !s.showAll || o.before === null) return null;
  const what = o.hidden > 0 ? `${o.hidden.toLocaleString('en-US')} older ended run${o.hidden === 1 ? '' : 's'}` : 'older ended runs';
  if (o.loading) return `… ${what} not shown — loading ${OLDER_PAGE}…`;
  if (o.extra >= ENDED_MAX - ENDED_WINDOW) return `… ${what} not shown — ${ENDED_MAX.toLocaleString('en-US')} held, the most kept (orcr ps --all lists all)`;
  return `… ${what} not shown — L loads ${OLDER_PAGE} more`;
}

/** Rows left for runs in a body of `body` lines when the line takes one. */
export function listBody(body: number, line: boolean): number {
  return line && body > 1 ? body - 1 : body;
}
