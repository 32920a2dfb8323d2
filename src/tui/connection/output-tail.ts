// The last lines of a run's output for the details pane: read through the
// clients' shared reader (src/client/run-output.ts) and made terminal-safe
// on the way in, so an agent's escape sequences never reach the terminal.

import { readTail } from '../../client/run-output.js';
import { safeLine } from '../../text/terminal-text.js';

/** One output line as the pane shows it: no CR, a tab worth two spaces, nothing a terminal would obey. */
const shownLine = (l: string): string => safeLine((l.endsWith('\r') ? l.slice(0, -1) : l).replace(/\t/g, '  '));

/** The last lines of `file`, each safe to draw; `missing` when there is no file yet. */
export function safeTail(file: string, maxLines = 200, maxBytes = 256 * 1024): { lines: string[]; missing: boolean } {
  const t = readTail(file, maxLines, maxBytes);
  return { lines: t.lines.map(shownLine), missing: t.missing };
}
