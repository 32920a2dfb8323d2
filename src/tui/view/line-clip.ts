// A line's styled parts cut to the columns it may use (a wide character
// counts two), an ellipsis marking the cut: the TUI cuts every line itself,
// so Ink never wraps or truncates one.

import { sliceColumns, textWidth } from './format.js';

export interface Part<S> {
  text: string;
  style: S;
}

/** The parts cut to `width` terminal columns (a wide character counts two), an ellipsis marking a cut. */
export function clipParts<S>(parts: readonly Part<S>[], width: number): Part<S>[] {
  const out: Part<S>[] = [];
  let left = Math.max(0, width);
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const len = textWidth(p.text);
    const restEmpty = parts.slice(i + 1).every((q) => q.text === '');
    if (len < left || (len === left && restEmpty)) {
      out.push(p);
      left -= len;
      continue;
    }
    // This part reaches the edge with more to come: keep what fits, then the ellipsis.
    if (left > 0) out.push({ text: sliceColumns(p.text, left - 1) + '…', style: p.style });
    break;
  }
  return out;
}
