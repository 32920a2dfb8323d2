// A transcript's entries as terminal rows of a given width: text wrapped by
// display width (never cut), a tool call on one line, its result folded to
// its first line unless expanded. Shared by `orcr logs --pretty` and the
// TUI's pager. Everything an agent wrote goes through safeText/safeLine here,
// so no row can carry an escape sequence.

import type { Entry } from '../agents/transcript.js';
import { displayWidth, truncateDisplay } from './display-width.js';
import { safeLine, safeText } from './terminal-text.js';

export type RowStyle =
  | 'prompt'
  | 'input'
  | 'text'
  | 'tool'
  | 'result'
  | 'result.failed'
  | 'turn'
  | 'turn.failed'
  | 'error'
  | 'hold'
  | 'approval'
  | 'decision'
  | 'decision.denied'
  | 'raw';

export interface Row {
  text: string;
  style: RowStyle;
}

/** Rows of one entry. `expanded` shows a tool result whole. */
export function entryRows(e: Entry, width: number, expanded = false): Row[] {
  const w = Math.max(8, width);
  switch (e.kind) {
    case 'prompt':
      return block('› ', '  ', e.text, w, 'prompt');
    case 'input':
      return block('› ', '  ', e.text, w, 'input');
    case 'text':
      return block('  ', '  ', e.text, w, 'text');
    case 'tool':
      return [{ text: truncateDisplay(`⏺ ${safeLine(e.text)}`, w), style: 'tool' }];
    case 'tool_result': {
      const style: RowStyle = e.failed ? 'result.failed' : 'result';
      const lines = safeText(e.text).replace(/\n+$/, '').split('\n');
      if (expanded) return block('  ⎿ ', '    ', lines.join('\n'), w, style);
      const more = lines.length > 1 ? ` (+${lines.length - 1} line${lines.length === 2 ? '' : 's'})` : '';
      const first = lines[0] === '' && lines.length === 1 ? '(no output)' : lines[0]!;
      const cut = truncateDisplay(`  ⎿ ${first}`, w - displayWidth(more));
      return [{ text: cut + more, style }];
    }
    case 'turn': {
      const label = `── ${safeLine(e.text)} `;
      const pad = Math.max(0, w - displayWidth(label));
      return [{ text: truncateDisplay(label + '─'.repeat(Math.min(pad, 4)), w), style: e.failed ? 'turn.failed' : 'turn' }];
    }
    case 'error':
      return block('✗ ', '  ', e.text, w, 'error');
    case 'hold':
      return block('⏸ hold ', '  ', e.text, w, 'hold');
    case 'approval':
      return block('? ', '  ', e.text, w, 'approval');
    case 'decision':
      return block(e.failed ? '  ⊘ ' : '  ✓ ', '    ', e.text, w, e.failed ? 'decision.denied' : 'decision');
    case 'raw':
      return block('', '', e.text, w, 'raw');
  }
}

/** A raw output line as rows (the pager's raw view, stderr). */
export function rawRows(line: string, width: number): Row[] {
  return block('', '', line.endsWith('\r') ? line.slice(0, -1) : line, Math.max(8, width), 'raw');
}

function block(first: string, rest: string, text: string, width: number, style: RowStyle): Row[] {
  const rows: Row[] = [];
  const paragraphs = safeText(text).split('\n');
  // Trailing empty lines say nothing.
  while (paragraphs.length > 1 && paragraphs[paragraphs.length - 1]!.trim() === '') paragraphs.pop();
  for (const p of paragraphs) {
    for (const piece of wrap(p, width - displayWidth(rows.length === 0 ? first : rest))) {
      rows.push({ text: (rows.length === 0 ? first : rest) + piece, style });
    }
  }
  return rows;
}

let segmenter: Intl.Segmenter | null = null;

/** One line (no newlines) wrapped to `width` columns at spaces where it can, inside a word where it must. Never empty. */
export function wrap(line: string, width: number): string[] {
  const w = Math.max(1, width);
  // ASCII fast path: most agent output is, and a 50,000-line run must open fast.
  if (/^[\x20-\x7e]*$/.test(line)) {
    if (line.length <= w) return [line];
    return wrapWith(
      line,
      w,
      (s) => s.length,
      (s) => Array.from(s),
    );
  }
  if (displayWidth(line) <= w) return [line];
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const seg = segmenter;
  return wrapWith(line, w, displayWidth, (s) => Array.from(seg.segment(s), (g) => g.segment));
}

function wrapWith(line: string, w: number, width: (s: string) => number, chars: (s: string) => string[]): string[] {
  const out: string[] = [];
  let cur = '';
  let used = 0;
  // Words with the spaces before them, so spacing inside a line is kept.
  for (const word of line.match(/\s*\S+|\s+$/g) ?? [line]) {
    const ww = width(word);
    if (used + ww <= w) {
      cur += word;
      used += ww;
      continue;
    }
    const bare = word.trimStart();
    if (used > 0 && width(bare) <= w) {
      out.push(cur);
      cur = bare;
      used = width(bare);
      continue;
    }
    // Longer than a row: cut it across rows.
    for (const ch of chars(used > 0 ? word : bare)) {
      const cw = width(ch);
      if (used + cw > w && used > 0) {
        out.push(cur);
        cur = '';
        used = 0;
      }
      if (used === 0 && ch === ' ') continue;
      cur += ch;
      used += cw;
    }
  }
  out.push(cur);
  return out;
}
