// What a person is shown of a request, everywhere it is shown — the TUI's
// queue and WHY, `ps`, `orcr approvals`, events, notifications: one line,
// bounded, its control characters written out (`\n`, `\x1b`) so a command
// reads as what it is and cannot move a cursor. The whole input stays in the
// run's folder for whoever wants to read it.

import type { Ask } from './approvals.js';

/** The most a summary holds of what the request names (a command, a path, a URL, a question). */
const SUMMARY_SUBJECT_MAX = 160;

/** `Bash: npm test`, `Write: src/a.ts (12 lines, 340 B)`, `Edit: src/a.ts (+3 −1)`, `WebFetch: https://…`, `question: Which database?` */
/** `cwd`: the run's folder, which a path is shown from; null where it is not known (a path is shown whole). */
export function summarize(ask: Pick<Ask, 'tool' | 'subject' | 'size' | 'questions'>, cwd: string | null): string {
  if (ask.questions && ask.questions.length > 0) {
    const more = ask.questions.length > 1 ? ` (+${ask.questions.length - 1} more)` : '';
    return `question: ${bounded(ask.questions[0]!.question)}${more}`;
  }
  const tool = bounded(ask.tool, 60);
  if (ask.subject === null) return tool;
  const subject = bounded(cwd !== null && ask.subject.startsWith(cwd + '/') ? ask.subject.slice(cwd.length + 1) : ask.subject);
  return `${tool}: ${subject}${sizeText(ask.size)}`;
}

function sizeText(size: Ask['size']): string {
  if (!size) return '';
  const parts: string[] = [];
  if (size.added !== undefined || size.removed !== undefined) parts.push(`+${size.added ?? 0} −${size.removed ?? 0}`);
  if (size.bytes !== undefined) parts.push(bytesText(size.bytes));
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Controls written out, then cut to `max` characters with an ellipsis. */
export function bounded(text: string, max = SUMMARY_SUBJECT_MAX): string {
  let out = '';
  for (const ch of text) {
    out += escapeChar(ch);
    if (out.length > max) return out.slice(0, max - 1) + '…';
  }
  return out;
}

/** One character as it is shown of an agent's text: a control, a line separator or a bidi mark written out (`\n`, `\x1b`, `\u202e`), anything else itself. */
export function escapeChar(ch: string): string {
  const c = ch.codePointAt(0)!;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  if (c < 0x20 || c === 0x7f) return '\\x' + c.toString(16).padStart(2, '0');
  // C1 controls, line separators, bidi overrides and isolates: each can make a line read other than it is.
  if ((c >= 0x80 && c <= 0x9f) || c === 0x2028 || c === 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
    return '\\u' + c.toString(16).padStart(4, '0');
  }
  return ch;
}
