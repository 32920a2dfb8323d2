// Text measured in terminal columns: wide CJK and emoji take two, combining
// marks none. Kept apart from terminal-text.ts because string-width and its
// Unicode tables cost tens of milliseconds to load, and only tables need them.

import stringWidth from 'string-width';

/** Columns a (safe) string takes on a terminal: wide CJK and emoji count two, combining marks none. */
export function displayWidth(text: string): number {
  return stringWidth(text);
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
