// Ink measures every <Text> on every frame (string-width), and a text with
// a single non-ASCII character — a status glyph, a meter bar, a rule —
// takes string-width's slow path over the whole text: grapheme segmentation
// and several Unicode regexps per character, ~40% of a 160-column frame.
// Pure printable ASCII is measured by one regexp test. So a line is cut
// into segments, each its own <Text>: long ASCII stretches on their own, so
// only the few glyphs pay for the slow path. Short ASCII runs stay with
// their neighbours, so a row is two or three nodes, not one per glyph.

import { sliceColumns, textWidth } from './format.js';

export interface Part<S> {
  text: string;
  style: S;
}

/** ASCII runs shorter than this ride along with the glyphs around them. */
export const MIN_ASCII_RUN = 8;

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const RUNS = /[\x20-\x7e]+|[^\x20-\x7e]+/g;

export function isPlainAscii(text: string): boolean {
  return PRINTABLE_ASCII.test(text);
}

/**
 * Cut a line's styled parts into segments; every segment is either pure
 * printable ASCII or short. Joining all segments' texts gives the line back.
 */
export function segmentLine<S>(parts: readonly Part<S>[], minRun = MIN_ASCII_RUN): Part<S>[][] {
  if (parts.every((p) => isPlainAscii(p.text))) return parts.length ? [parts.slice()] : [];
  const segments: Part<S>[][] = [];
  let cur: Part<S>[] = [];
  let curAscii = true; // every part of cur is printable ASCII
  let curLen = 0;
  const close = (): void => {
    if (cur.length > 0) segments.push(cur);
    cur = [];
    curAscii = true;
    curLen = 0;
  };
  for (const p of parts) {
    for (const [run] of p.text.matchAll(RUNS)) {
      const ascii = isPlainAscii(run);
      if (ascii && run.length >= minRun && !curAscii) close(); // a long ASCII run leaves the glyphs behind
      if (!ascii && curAscii && curLen >= minRun) close(); // a glyph leaves a long ASCII stretch alone
      cur.push({ text: run, style: p.style });
      curAscii &&= ascii;
      curLen += run.length;
    }
  }
  close();
  return segments;
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
