// How a request's whole input (approval.get) reads as rows in the pager: each
// field's name, its value under it — a string's lines as lines (a file a Write
// would put, a command's script), anything else as indented JSON; an input
// cut at 1 MiB says so first and shows the cut text. The input is the
// agent's, so untrusted: every control character is written out (`\x1b`,
// `\u202e`) and no escape sequence reaches the terminal. The pager's
// document (state/input-doc.ts) makes them, the view colours them by style. Pure.

import { escapeChar } from '../../core/approval-summary.js';
import { wrap } from '../../text/transcript-lines.js';

export type InputStyle = 'input.note' | 'input.key' | 'input.value';

export interface InputRow {
  text: string;
  style: InputStyle;
}

/** A character written out as requests' summaries write it (core's escapeChar), a tab as two spaces: the pager keeps its columns. */
function shown(ch: string): string {
  return ch === '\t' ? '  ' : escapeChar(ch);
}

const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** One line with every control character written out. */
function visible(line: string): string {
  if (!UNSAFE.test(line)) return line;
  let out = '';
  for (const ch of line) out += shown(ch);
  return out;
}

/** A value's lines: a string's own (its control characters written out), anything else as JSON. */
function valueLines(v: unknown): string[] {
  const text = typeof v === 'string' ? v : (JSON.stringify(v, null, 2) ?? String(v));
  return text.split('\n').map(visible);
}

/** `lines` wrapped to `width`, each row `indent` columns in. */
function indented(lines: readonly string[], indent: number, width: number): InputRow[] {
  const pad = ' '.repeat(indent);
  return lines.flatMap((line) => wrap(line, Math.max(8, width - indent)).map((part) => ({ text: pad + part, style: 'input.value' as const })));
}

/** The rows of a request's input at `width`: each field's name, its value under it; `truncated`: approval.get cut its JSON at 1 MiB (the input is then that text). */
export function inputRows(id: number, input: unknown, truncated: boolean, width: number): InputRow[] {
  const out: InputRow[] = [];
  if (truncated) {
    out.push({
      text: `cut at 1 MiB: what follows is the start of its JSON (the whole input is approvals/${id}.json in the run's folder)`,
      style: 'input.note',
    });
    out.push({ text: '', style: 'input.note' });
  }
  if (truncated || input === null || typeof input !== 'object' || Array.isArray(input)) return [...out, ...indented(valueLines(input), 0, width)];
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 0) return [...out, { text: '(no input)', style: 'input.note' }];
  for (const [k, v] of entries) out.push({ text: visible(k), style: 'input.key' }, ...indented(valueLines(v), 2, width));
  return out;
}
