// Text measured in terminal columns: wide CJK and emoji take two, combining
// marks none. Kept apart from terminal-text.ts because string-width and its
// Unicode tables cost tens of milliseconds to load, and only tables need them.

import stringWidth from 'string-width';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Widths of short strings seen before (row prefixes, glyphs, cells): string-width's Unicode checks cost microseconds a call. */
const short = new Map<string, number>();

/** Columns a (safe) string takes on a terminal: wide CJK and emoji count two, combining marks none. */
export function displayWidth(text: string): number {
  // Most of what a terminal shows is plain ASCII: a column a character.
  if (PRINTABLE_ASCII.test(text)) return text.length;
  if (text.length > 16) return mixedWidth(text);
  return shortWidth(text);
}

/** Marks that change the character before them (combining, variation selectors, keycaps, joiners): never measured apart from it. */
const JOINS_BACK = /^[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u200c\u200d\u20d0-\u20ff\ufe00-\ufe0f\ufe20-\ufe2f]|^[\u{e0020}-\u{e007f}]/u;

/** ASCII a column a character, the rest measured run by run (runs repeat: a row's glyphs, a language's words). */
function mixedWidth(text: string): number {
  let other = 0;
  let width = 0;
  for (const m of text.matchAll(/[^\x20-\x7e]+/g)) {
    if (JOINS_BACK.test(m[0]) && m.index > 0) return stringWidth(text);
    other += m[0].length;
    width += m[0].length > 16 ? stringWidth(m[0]) : shortWidth(m[0]);
  }
  return width + text.length - other;
}

function shortWidth(text: string): number {
  let w = short.get(text);
  if (w === undefined) {
    if (short.size >= 4096) short.clear();
    w = stringWidth(text);
    short.set(text, w);
  }
  return w;
}

/** Cut to at most `width` columns, marking a cut with an ellipsis. */
export function truncateDisplay(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  if (width === 1) return '…';
  let out = '';
  let used = 0;
  for (const { segment } of graphemes(text)) {
    const w = displayWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return out + '…';
}

/** Pad with spaces to `width` columns (never cuts). */
export function padDisplay(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const pad = width - displayWidth(text);
  if (pad <= 0) return text;
  return align === 'left' ? text + ' '.repeat(pad) : ' '.repeat(pad) + text;
}

let segmenter: Intl.Segmenter | null = null;
function graphemes(text: string): Iterable<{ segment: string }> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}
