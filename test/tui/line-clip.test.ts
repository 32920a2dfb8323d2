// Lines cut to width by the TUI itself: Ink only ever sees a blank as wide
// as the line (components/context.tsx), so it cannot truncate one.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { clipParts, type Part } from '../../src/tui/view/line-clip.js';
import { displayWidth } from '../../src/text/display-width.js';

const cols = (s: string): number => displayWidth(s);
const joined = (ps: readonly Part<number>[]): string => ps.map((p) => p.text).join('');
const parts = fc.array(
  fc.record({ text: fc.string({ unit: fc.constantFrom('a', 'b', ' ', '-', '○', '█', '─', '…', '⟳', '界'), maxLength: 30 }), style: fc.nat(3) }),
  { maxLength: 8 },
);

describe('clipParts', () => {
  it('cuts at the width with an ellipsis, counting terminal columns', () => {
    expect(
      joined(
        clipParts(
          [
            { text: '○ queued', style: 0 },
            { text: ' name-that-is-long', style: 1 },
          ],
          12,
        ),
      ),
    ).toBe('○ queued na…');
    expect(joined(clipParts([{ text: 'abc', style: 0 }], 3))).toBe('abc');
    expect(
      joined(
        clipParts(
          [
            { text: 'abc', style: 0 },
            { text: '', style: 1 },
          ],
          3,
        ),
      ),
    ).toBe('abc');
    expect(joined(clipParts([{ text: 'abcd', style: 0 }], 3))).toBe('ab…');
    expect(clipParts([{ text: 'abcd', style: 0 }], 0)).toEqual([]);
    // Wide characters take two columns; one is never split at the edge.
    expect(
      joined(
        clipParts(
          [
            { text: '世界-1 ', style: 0 },
            { text: 'claude', style: 1 },
          ],
          8,
        ),
      ),
    ).toBe('世界-1 …');
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
