// Ink builds every frame from scratch: a new Output per frame, with new
// caches, so every line of the screen is tokenized into styled cells and
// turned back into a string of escape sequences on every frame, even when
// it did not change. With a fleet on screen that was most of a frame's cost
// (bench item 7). Two changes to Ink's Output, both pure memoization:
//
// - its caches (a line's styled cells, string widths) are shared across
//   frames instead of made anew per frame;
// - get() assembles the screen row by row, and a row whose writes (position
//   and text, after Ink's transformers) are the same as a row seen before —
//   in any place: the event log scrolls — reuses that row's string. A row's
//   string depends on nothing else, so frames come out byte for byte the
//   same as Ink's own.
//
// And one bound: Ink keeps every text it has ever measured for layout in a
// module-level Map that is never emptied (ink/build/measure-text.js). A TUI
// showing elapsed times and a moving event log measures new texts all the
// time: measured here, ~38 MB an hour of heap for 40 rows whose times tick,
// several times that with events streaming. That Map is cleared when it
// passes the same limit as the caches above.
//
// This reaches into Ink's build (ink/build/output.js and measure-text.js, not
// in its exports map), so it is guarded: if a file or its shape is not what
// Ink 6.8 has, that part is not patched and Ink works as it always did. Frames
// with clipping (overflow hidden, unused by orcr-tui) go to Ink's own get().
// test/tui/ink-frame-cache.test.tsx fails when an Ink upgrade breaks this.

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Entries kept across frames before a cache starts over. A screen uses a few
 * hundred; an entry of the styled-cells cache is an object per character, so
 * this also bounds the memory (~20 MB at most).
 */
export const FRAME_CACHE_LIMIT = 2_000;

interface StyledChar {
  type: 'char';
  value: string;
  fullWidth: boolean;
  styles: unknown[];
}

interface OutputCaches {
  widths: Map<string, number>;
  blockWidths: Map<string, number>;
  styledChars: Map<string, StyledChar[]>;
  getStyledChars(line: string): StyledChar[];
  getStringWidth(text: string): number;
}

type Operation =
  | { type: 'write'; x: number; y: number; text: string; transformers: ((line: string, index: number) => string)[] }
  | { type: 'clip' | 'unclip' };

interface OutputInstance {
  width: number;
  height: number;
  operations: Operation[];
  caches: OutputCaches;
}

interface OutputClass {
  new (o: { width: number; height: number }): Partial<OutputInstance>;
  prototype: { write: (...args: unknown[]) => unknown; get: () => { output: string; height: number } };
}

export type FrameCacheState = { applied: true } | { applied: false; reason: string };

let state: FrameCacheState | null = null;
let shared: OutputCaches | null = null;
const rows = new Map<string, string>();
let limit = FRAME_CACHE_LIMIT;
/** Ink's measure-text cache, once found. */
let measureCache: Map<string, unknown> | null = null;

/** Frames assembled row by row, and frames handed to Ink's own get() (clipping). */
export const frameCounts = { rows: 0, ink: 0 };

/** Entries in the shared caches now (0 when not installed). */
export function frameCacheEntries(): number {
  return shared ? shared.styledChars.size + shared.widths.size + shared.blockWidths.size + rows.size : 0;
}

/** Entries in Ink's measure-text cache (null when it was not found). */
export function inkMeasureCacheEntries(): number | null {
  return measureCache?.size ?? null;
}

/**
 * Find the Map that ink/build/measure-text.js keeps private: have it measure a
 * text no one else uses and see which Map it looks that text up in.
 */
async function findMeasureCache(inkDir: string): Promise<Map<string, unknown> | null> {
  const mod = (await import(pathToFileURL(path.join(inkDir, 'measure-text.js')).href)) as { default?: unknown };
  const measure = mod.default;
  if (typeof measure !== 'function') return null;
  const probe = `\u0000orcr-probe-${process.pid}-${Date.now()}`;
  let found: Map<string, unknown> | null = null;
  const get = Map.prototype.get;
  Map.prototype.get = function (this: Map<unknown, unknown>, key: unknown) {
    if (key === probe) found = this as Map<string, unknown>;
    return get.call(this, key);
  };
  try {
    (measure as (t: string) => unknown)(probe);
  } finally {
    Map.prototype.get = get;
  }
  const cache = found as Map<string, unknown> | null;
  if (!cache || !cache.has(probe)) return null;
  cache.delete(probe);
  return cache;
}

function clearAll(): void {
  shared?.styledChars.clear();
  shared?.widths.clear();
  shared?.blockWidths.clear();
  rows.clear();
}

function isCaches(c: unknown): c is OutputCaches {
  const o = c as Partial<OutputCaches> | null;
  return (
    !!o &&
    o.widths instanceof Map &&
    o.blockWidths instanceof Map &&
    o.styledChars instanceof Map &&
    typeof o.getStyledChars === 'function' &&
    typeof o.getStringWidth === 'function'
  );
}

const BLANK: StyledChar = Object.freeze({ type: 'char', value: ' ', fullWidth: false, styles: Object.freeze([]) as unknown as unknown[] });

/**
 * Ink 6.8's Output.get() for frames without clipping, one row at a time:
 * cells start blank, each write lays its line's styled cells from x on (a
 * wide character blanks the cells it covers), and the row becomes a string.
 */
function rowGet(this: OutputInstance, toString: (chars: StyledChar[]) => string): { output: string; height: number } {
  const caches = this.caches;
  const perRow: { x: number; line: string }[][] = Array.from({ length: this.height }, () => []);
  for (const op of this.operations) {
    if (op.type !== 'write') continue;
    // Ink skips a text whose first row is above the screen entirely, and rows below it.
    if (op.y < 0) continue;
    const lines = op.text.split('\n');
    for (let index = 0; index < lines.length; index++) {
      const y = op.y + index;
      if (y >= this.height) break;
      let line = lines[index]!;
      for (const t of op.transformers) line = t(line, index);
      perRow[y]!.push({ x: op.x, line });
    }
  }
  const out: string[] = [];
  for (const writes of perRow) {
    // Length-prefixed, so no text can make two different rows' keys equal.
    let key = `${this.width}`;
    for (const w of writes) key += `|${w.x}:${w.line.length}:${w.line}`;
    let str = rows.get(key);
    if (str === undefined) {
      const cells: (StyledChar | undefined)[] = new Array<StyledChar>(this.width).fill(BLANK);
      for (const { x, line } of writes) {
        let offsetX = x;
        for (const ch of caches.getStyledChars(line)) {
          cells[offsetX] = ch;
          const w = Math.max(1, caches.getStringWidth(ch.value));
          for (let i = 1; i < w; i++) cells[offsetX + i] = { type: 'char', value: '', fullWidth: false, styles: ch.styles };
          offsetX += w;
        }
      }
      str = toString(cells.filter((c): c is StyledChar => c !== undefined)).trimEnd();
      rows.set(key, str);
    }
    out.push(str);
  }
  return { output: out.join('\n'), height: this.height };
}

/** Patch Ink's Output once per process (later calls only set the limit); says whether it took. */
export async function installInkFrameCache(maxEntries = FRAME_CACHE_LIMIT): Promise<FrameCacheState> {
  limit = maxEntries;
  if (state) return state;
  try {
    const inkEntry = createRequire(import.meta.url).resolve('ink');
    const mod = (await import(pathToFileURL(path.join(path.dirname(inkEntry), 'output.js')).href)) as { default?: unknown };
    const Output = mod.default as OutputClass | undefined;
    if (typeof Output !== 'function' || typeof Output.prototype.write !== 'function' || typeof Output.prototype.get !== 'function') {
      return (state = { applied: false, reason: 'ink/build/output.js has no Output class with write() and get()' });
    }
    // The tokenizer Ink itself uses (resolved from Ink's folder, so it is the same copy).
    const tokPkg = createRequire(inkEntry).resolve('@alcalzone/ansi-tokenize/package.json');
    const tok = (await import(pathToFileURL(path.join(path.dirname(tokPkg), 'build', 'index.js')).href)) as {
      styledCharsToString?: (chars: StyledChar[]) => string;
    };
    const toString = tok.styledCharsToString;
    if (typeof toString !== 'function') return (state = { applied: false, reason: '@alcalzone/ansi-tokenize has no styledCharsToString' });
    const probe = new Output({ width: 1, height: 1 });
    if (!isCaches(probe.caches) || !Array.isArray(probe.operations) || probe.width !== 1 || probe.height !== 1) {
      return (state = { applied: false, reason: 'Ink Output is not of the known shape' });
    }
    const Caches = probe.caches.constructor as new () => OutputCaches;
    const caches = new Caches();
    shared = caches;
    const write = Output.prototype.write;
    const get = Output.prototype.get;
    // Every frame's Output writes before it reads (get), so swapping its
    // caches on the first write covers the whole frame.
    measureCache = await findMeasureCache(path.dirname(inkEntry)).catch(() => null);
    Output.prototype.write = function (this: OutputInstance, ...args: unknown[]) {
      if (this.caches !== caches) {
        // The first write of a frame: the moment to keep every cache bounded.
        this.caches = caches;
        if (frameCacheEntries() > limit) clearAll();
        if (measureCache && measureCache.size > limit) measureCache.clear();
      }
      return write.apply(this, args);
    };
    Output.prototype.get = function (this: OutputInstance) {
      const plain = this.operations.every((op) => op.type === 'write' && Number.isInteger(op.x) && Number.isInteger(op.y));
      if (this.caches !== caches || !plain) {
        frameCounts.ink++;
        return get.call(this);
      }
      frameCounts.rows++;
      return rowGet.call(this, toString);
    };
    return (state = { applied: true });
  } catch (e) {
    return (state = { applied: false, reason: `cannot patch Ink's Output: ${(e as Error).message}` });
  }
}
