// Lines cut into segments so Ink measures long ASCII stretches on its fast
// path, and cut to width before that (a row of segments must not rely on
// Ink's truncation, which would shrink every segment, glyphs first).

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { clipParts, isPlainAscii, MIN_ASCII_RUN, segmentLine, type Part } from '../../src/tui/view/line-segments.js';
import { displayWidth } from '../../src/text/display-width.js';

const cols = (s: string): number => displayWidth(s);
const joined = (ps: readonly Part<number>[]): string => ps.map((p) => p.text).join('');
const parts = fc.array(
  fc.record({ text: fc.string({ unit: fc.constantFrom('a', 'b', ' ', '-', '○', '█', '─', '…', '⟳', '界'), maxLength: 30 }), style: fc.nat(3) }),
  { maxLength: 8 },
);

describe('segmentLine', () => {
  it('a status row becomes the glyph and the rest', () => {
    const segs = segmentLine([
      { text: '  ', style: 0 },
      { text: '○ queued   ', style: 1 },
      { text: ' queued-12              default/default   #11 1m01s', style: 2 },
    ]);
    expect(segs.map((s) => joined(s))).toEqual(['  ○', ' queued    queued-12              default/default   #11 1m01s']);
  });

  it('a plain ASCII line stays one segment', () => {
    expect(segmentLine([{ text: 'pane: runs', style: 0 }, { text: ' theme: dark', style: 1 }])).toHaveLength(1);
  });

  it('keeps the text and styles, and leaves every long ASCII run out of the glyph segments', () => {
    fc.assert(
      fc.property(parts, (ps) => {
        const segs = segmentLine(ps);
        expect(segs.map(joined).join('')).toBe(joined(ps));
        // Styles stay in order with their text: re-joining per style gives the same text.
        for (const style of [0, 1, 2, 3]) {
          expect(segs.flat().filter((p) => p.style === style).map((p) => p.text).join('')).toBe(ps.filter((p) => p.style === style).map((p) => p.text).join(''));
        }
        for (const seg of segs) {
          if (seg.every((p) => isPlainAscii(p.text))) continue;
          for (const p of seg) if (isPlainAscii(p.text)) expect(p.text.length).toBeLessThan(MIN_ASCII_RUN);
        }
      }),
    );
  });
});

describe('clipParts', () => {
  it('cuts at the width with an ellipsis, counting terminal columns', () => {
    expect(joined(clipParts([{ text: '○ queued', style: 0 }, { text: ' name-that-is-long', style: 1 }], 12))).toBe('○ queued na…');
    expect(joined(clipParts([{ text: 'abc', style: 0 }], 3))).toBe('abc');
    expect(joined(clipParts([{ text: 'abc', style: 0 }, { text: '', style: 1 }], 3))).toBe('abc');
    expect(joined(clipParts([{ text: 'abcd', style: 0 }], 3))).toBe('ab…');
    expect(clipParts([{ text: 'abcd', style: 0 }], 0)).toEqual([]);
    // Wide characters take two columns; one is never split at the edge.
    expect(joined(clipParts([{ text: '世界-1 ', style: 0 }, { text: 'claude', style: 1 }], 8))).toBe('世界-1 …');
    expect(joined(clipParts([{ text: '世界世界', style: 0 }], 4))).toBe('世…');
    expect(joined(clipParts([{ text: '🚀-agent', style: 0 }], 8))).toBe('🚀-agent');
  });

  it('never exceeds the width, and leaves a line that fits alone', () => {
    fc.assert(
      fc.property(parts, fc.nat(60), (ps, w) => {
        const out = joined(clipParts(ps, w));
        const full = joined(ps);
        if (cols(full) <= w) expect(out).toBe(full);
        else {
          // A wide character that would straddle the edge leaves its column empty.
          expect(cols(out)).toBeLessThanOrEqual(w);
          expect(cols(out)).toBeGreaterThanOrEqual(w - 1);
          if (w > 0) expect(out.endsWith('…')).toBe(true);
        }
      }),
    );
  });
});
