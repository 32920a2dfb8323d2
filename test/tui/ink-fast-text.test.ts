// The patched Ink's fast paths for text (src/tui/ink/patch): a line of ASCII
// (and narrow characters a UI draws) and SGR sequences made into styled characters without the grapheme
// segmenter, and a row joined without diffing equal styles. Both must give
// what ansi-tokenize gives, for any such line; any other line is left to it.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../src/agents/mock/rng.js';
import { styledCharsFromTokens, styledCharsToString, tokenize } from '@alcalzone/ansi-tokenize';
import { ROOT } from './home.js';

type Char = { type: 'char'; value: string; fullWidth: boolean; styles: { code: string; endCode: string }[] };
type Write = { x: number; line: string };
const output = (await import(pathToFileURL(path.join(ROOT, 'node_modules/ink/build/output.js')).href)) as {
  fastStyledChars: (line: string) => Char[] | undefined;
  fastCharsToString: (chars: (Char | undefined)[]) => string;
  plainRow: (writes: Write[], width: number) => string | undefined;
  cellRowOf: (writes: Write[], width: number) => string;
};

// Seeded (the mock agent's generator): a failure names its seed and comes back the same.
const rng = (seed: number): (() => number) => createRng(seed).next;

const CODES = ['\x1b[0m', '\x1b[m', '\x1b[1m', '\x1b[2m', '\x1b[22m', '\x1b[7m', '\x1b[27m', '\x1b[3m', '\x1b[23m', '\x1b[4m', '\x1b[31m', '\x1b[39m', '\x1b[38;5;111m', '\x1b[38;5;66m', '\x1b[38;2;255;136;0m', '\x1b[48;5;4m', '\x1b[49m', '\x1b[1;38;5;150m', '\x1b[2;7m', '\x1b[44m', '\x1b[5;6;7m', '\x1b[38;5m'];
// Narrow characters a UI draws (rules, dots, glyphs, bars): one cell and one grapheme each.
const NARROW = ['─', '·', 'é', '…', '●', '○', '◐', '■', '▲', '◇', '█', '░', '│', '⏺', '⏸', '⟳', '✓', '✗', '⚠', '›', '⎿', '—', '€', '→', '≤', '±', '°'];
// What is not: wide, astral, combining, zero-width, controls, other escapes.
const ODD = ['界', '🚀', '⌚', '✅', 'e\u0301', '\u200b', '\u00ad', '\x1b]8;;http://x\x07', '\x1b[12', '\x1b', '\t', '\x7f', '\u0300'];

function line(r: () => number, odd: boolean): string {
  let s = '';
  const n = Math.floor(r() * 40);
  for (let i = 0; i < n; i++) {
    const p = r();
    if (p < 0.3) s += CODES[Math.floor(r() * CODES.length)];
    else if (odd && p < 0.35) s += ODD[Math.floor(r() * ODD.length)];
    else if (p < 0.42) s += NARROW[Math.floor(r() * NARROW.length)];
    else s += String.fromCharCode(0x20 + Math.floor(r() * 95));
  }
  return s;
}

const plain = (chars: Char[]): unknown => chars.map((c) => ({ type: c.type, value: c.value, fullWidth: c.fullWidth, styles: c.styles.map((x) => [x.code, x.endCode]) }));

describe('Ink text fast paths (patched)', () => {
  it('a line of narrow characters and SGR sequences comes out as the characters ansi-tokenize makes of it', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const s = line(rng(seed), false);
      const fast = output.fastStyledChars(s);
      expect(fast, `seed ${seed}`).toBeDefined();
      expect(plain(fast!), `seed ${seed}: ${JSON.stringify(s)}`).toEqual(plain(styledCharsFromTokens(tokenize(s)) as Char[]));
    }
  });

  it('any other line is left to ansi-tokenize; what it does take is still the same', () => {
    let left = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const s = line(rng(seed), true);
      const fast = output.fastStyledChars(s);
      if (fast === undefined) left++;
      else expect(plain(fast), `seed ${seed}: ${JSON.stringify(s)}`).toEqual(plain(styledCharsFromTokens(tokenize(s)) as Char[]));
    }
    expect(left).toBeGreaterThan(300);
    for (const odd of ODD) expect(output.fastStyledChars(`a${odd}b`), JSON.stringify(odd)).toBeUndefined();
  });

  it('a row of plain writes built run by run is the row built cell by cell; any other row is left to the cells', () => {
    let plain = 0;
    let left = 0;
    for (let seed = 1; seed <= 4000; seed++) {
      const r = rng(seed);
      const width = 20 + Math.floor(r() * 60);
      const writes: Write[] = [];
      // Mostly side by side (as a UI lays out its texts), sometimes over each other, past the row, or odd.
      let x = Math.floor(r() * 4);
      for (let w = 0, n = 1 + Math.floor(r() * 4); w < n; w++) {
        const text = line(r, seed % 5 === 0);
        writes.push({ x, line: text });
        const visible = [...text.replace(/\x1b\[[0-9;]*m/g, '')].length;
        x += r() < 0.15 ? -Math.floor(r() * 5) : visible + Math.floor(r() * 4);
      }
      if (seed % 3 === 0) writes.reverse();
      const fast = output.plainRow(writes, width);
      const cells = output.cellRowOf(writes, width);
      if (fast === undefined) left++;
      else {
        plain++;
        expect(fast, `seed ${seed}: ${JSON.stringify(writes)} at ${width}`).toBe(cells);
      }
    }
    expect(plain).toBeGreaterThan(1000);
    expect(left).toBeGreaterThan(300);
    expect(output.plainRow([{ x: 0, line: 'ab' }, { x: 1, line: 'cd' }], 10)).toBeUndefined();
    expect(output.plainRow([{ x: 8, line: 'abcd' }], 10)).toBeUndefined();
    expect(output.plainRow([], 10)).toBe('');
  });

  it('a row joined without diffing equal styles is the string styledCharsToString makes', () => {
    const blank: Char = { type: 'char', value: ' ', fullWidth: false, styles: [] };
    for (let seed = 1; seed <= 2000; seed++) {
      const r = rng(seed);
      const row: (Char | undefined)[] = Array.from({ length: 60 }, () => blank);
      for (let w = 0; w < 3; w++) {
        const chars = styledCharsFromTokens(tokenize(line(r, true))) as Char[];
        const x = Math.floor(r() * 50);
        chars.forEach((c, i) => {
          if (x + i < row.length) row[x + i] = c;
        });
      }
      if (seed % 7 === 0) row[Math.floor(r() * 60)] = undefined;
      expect(output.fastCharsToString(row), `seed ${seed}`).toBe(styledCharsToString(row.filter((c): c is Char => c !== undefined)));
    }
  });
});
