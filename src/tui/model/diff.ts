// How a run's diff (`git diff` text from the supervisor) reads as rows: a
// summary of the files first, as `--stat` gives it, then each file under its
// own header, its hunks, and every line styled by what it is. The pager's
// document (state/diff-doc.ts) makes them and the view colours them by style
// (view/transcript-rows.ts). The text is the agent's work, so untrusted: every
// row goes through safeLine, and no escape sequence in a file reaches the
// terminal. Pure.

import { safeLine } from '../../text/terminal-text.js';
import { wrap } from '../../text/transcript-lines.js';

export type DiffStyle = 'diff.summary' | 'diff.file' | 'diff.meta' | 'diff.hunk' | 'diff.add' | 'diff.del' | 'diff.context';

export interface DiffRow {
  text: string;
  style: DiffStyle;
}

export interface DiffFile {
  name: string;
  added: number;
  removed: number;
  /** Its lines after the `diff --git` line, each styled; not yet made safe. */
  lines: { text: string; style: DiffStyle }[];
}

/** The name git gives a file: `+++ b/x` (or `--- a/x` for a deleted one), else from the `diff --git` line. */
function nameOf(gitLine: string, minus: string | null, plus: string | null): string {
  if (plus !== null && plus !== '/dev/null') return plus.replace(/^b\//, '');
  if (minus !== null && minus !== '/dev/null') return minus.replace(/^a\//, '');
  const at = gitLine.lastIndexOf(' b/');
  return at >= 0 ? gitLine.slice(at + 3) : gitLine.slice('diff --git '.length);
}

/** The files of a unified diff, with their +/− counts; `---`/`+++` headers are not counted as lines. */
export function parseDiff(text: string): DiffFile[] {
  const files: DiffFile[] = [];
  let cur: (DiffFile & { git: string; minus: string | null; plus: string | null; inHunk: boolean }) | null = null;
  const finish = (): void => {
    if (!cur) return;
    const { git, minus, plus, inHunk: _, ...f } = cur;
    files.push({ ...f, name: nameOf(git, minus, plus) });
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      finish();
      cur = { name: '', added: 0, removed: 0, lines: [], git: line, minus: null, plus: null, inHunk: false };
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('@@')) {
      cur.inHunk = true;
      cur.lines.push({ text: line, style: 'diff.hunk' });
    } else if (!cur.inHunk) {
      // Before the first hunk: index, mode, rename and ---/+++ lines.
      if (line.startsWith('--- ')) cur.minus = line.slice(4);
      else if (line.startsWith('+++ ')) cur.plus = line.slice(4);
      if (line !== '') cur.lines.push({ text: line, style: 'diff.meta' });
    } else if (line.startsWith('+')) {
      cur.added++;
      cur.lines.push({ text: line, style: 'diff.add' });
    } else if (line.startsWith('-')) {
      cur.removed++;
      cur.lines.push({ text: line, style: 'diff.del' });
    } else if (line.startsWith('\\')) cur.lines.push({ text: line, style: 'diff.meta' });
    else if (line !== '' || cur.lines.length > 0) cur.lines.push({ text: line, style: 'diff.context' });
  }
  finish();
  // The text ends with a newline: its last empty "line" is not context.
  for (const f of files) while (f.lines.length > 0 && f.lines[f.lines.length - 1]!.text === '') f.lines.pop();
  return files;
}

const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The diff as rows before wrapping: the summary, then each file's header and lines, all made safe. */
function diffLines(text: string): DiffRow[] {
  const files = parseDiff(text);
  if (files.length === 0) return [];
  const rows: DiffRow[] = [];
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  rows.push({ text: `${plural(files.length, 'file')} changed, +${added} −${removed}`, style: 'diff.summary' });
  const nameWidth = Math.min(60, Math.max(...files.map((f) => safeLine(f.name).length)));
  for (const f of files) rows.push({ text: ` ${safeLine(f.name).padEnd(nameWidth)}  +${f.added} −${f.removed}`, style: 'diff.summary' });
  for (const f of files) {
    rows.push({ text: '', style: 'diff.context' });
    rows.push({ text: `━━ ${safeLine(f.name)}  +${f.added} −${f.removed}`, style: 'diff.file' });
    // Tabs as four columns: code keeps its indentation (safeLine would make each one space).
    for (const l of f.lines) rows.push({ text: safeLine(l.text.replace(/\t/g, '    ')), style: l.style });
  }
  return rows;
}

/** The rows at a width: long lines wrap, each piece keeping its line's style. */
export function diffRows(text: string, width: number): DiffRow[] {
  const out: DiffRow[] = [];
  for (const r of diffLines(text)) for (const piece of wrap(r.text, Math.max(8, width))) out.push({ text: piece, style: r.style });
  return out;
}
