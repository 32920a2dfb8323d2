// Ink builds every frame from scratch: a new Output per frame, and with it
// new caches, so each line of the screen is tokenized into styled cells
// again on every frame even when it did not change. With a fleet on screen
// that is most of a frame's cost (bench item 7: ~30% of the CPU per frame at
// 160x50). Sharing one bounded cache across frames keeps a line's cells from
// the frame before. The cached values are pure functions of the line's text,
// so frames come out byte for byte the same.
//
// This reaches into Ink's build (ink/build/output.js, not in its exports map),
// so it is guarded: if the file or the shape is not what Ink 6.8 has, nothing
// is patched and Ink renders as it always did, only slower.
// test/tui/ink-frame-cache.test.ts fails when an Ink upgrade breaks it.

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Entries kept across frames before the cache starts over (a 160x50 screen uses a few hundred). */
export const FRAME_CACHE_LIMIT = 20_000;

interface OutputCaches {
  widths: Map<string, number>;
  blockWidths: Map<string, number>;
  styledChars: Map<string, unknown>;
}

interface OutputClass {
  new (o: { width: number; height: number }): { caches?: unknown };
  prototype: { write: (...args: unknown[]) => unknown };
}

export type FrameCacheState = { applied: true } | { applied: false; reason: string };

let state: FrameCacheState | null = null;
let shared: OutputCaches | null = null;
let limit = FRAME_CACHE_LIMIT;

/** Entries in the shared cache now (0 when not installed). */
export function frameCacheEntries(): number {
  return shared ? shared.styledChars.size + shared.widths.size + shared.blockWidths.size : 0;
}

function isCaches(c: unknown): c is OutputCaches {
  const o = c as Partial<OutputCaches> | null;
  return !!o && o.widths instanceof Map && o.blockWidths instanceof Map && o.styledChars instanceof Map;
}

/** Patch Ink's Output once per process (later calls only set the limit); says whether it took. */
export async function installInkFrameCache(maxEntries = FRAME_CACHE_LIMIT): Promise<FrameCacheState> {
  limit = maxEntries;
  if (state) return state;
  try {
    const inkEntry = createRequire(import.meta.url).resolve('ink');
    const mod = (await import(pathToFileURL(path.join(path.dirname(inkEntry), 'output.js')).href)) as { default?: unknown };
    const Output = mod.default as OutputClass | undefined;
    if (typeof Output !== 'function' || typeof Output.prototype.write !== 'function') {
      return (state = { applied: false, reason: 'ink/build/output.js has no Output class with write()' });
    }
    const probe = new Output({ width: 1, height: 1 });
    if (!isCaches(probe.caches)) return (state = { applied: false, reason: 'Ink Output has no caches of the known shape' });
    const Caches = probe.caches.constructor as new () => OutputCaches;
    const caches = new Caches();
    shared = caches;
    const write = Output.prototype.write;
    // Every frame's Output writes before it reads (get), so swapping its
    // caches on the first write covers the whole frame.
    Output.prototype.write = function (this: { caches: OutputCaches }, ...args: unknown[]) {
      if (this.caches !== caches) {
        this.caches = caches;
        if (frameCacheEntries() > limit) {
          caches.styledChars.clear();
          caches.widths.clear();
          caches.blockWidths.clear();
        }
      }
      return write.apply(this, args);
    };
    return (state = { applied: true });
  } catch (e) {
    return (state = { applied: false, reason: `cannot load ink/build/output.js: ${(e as Error).message}` });
  }
}
