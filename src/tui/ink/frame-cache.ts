// Ink's caches as orcr's patch to Ink leaves them (src/tui/ink/patch/ink+6.8.0.patch,
// applied at npm install): every one bounded by bytes, and Output's kept from
// one frame to the next, so a frame re-tokenizes only the rows that changed.
// This only switches that on and reads its figures; it never touches Ink's
// internals itself. Without the patch, Ink works as published, only slower,
// with caches that grow: the TUI says so in its footer.

import type * as InkModule from 'ink';

/** The budget of all of Ink's caches together (the patch's default). */
export const INK_CACHE_BYTES = 16 * 1024 * 1024;

export type FrameCacheState = { applied: true } | { applied: false; reason: string };

/**
 * Turn the cross-frame caches on with a budget of `maxBytes` (later calls
 * only change the budget). Imports Ink itself, so call it where Ink may load
 * (after the CI variables are settled).
 */
export async function enableInkFrameCache(maxBytes = INK_CACHE_BYTES): Promise<FrameCacheState> {
  const ink: Partial<typeof InkModule> = await import('ink');
  if (typeof ink.configureInkCaches !== 'function') {
    return { applied: false, reason: 'Ink is not patched (npm install applies src/tui/ink/patch/ink+6.8.0.patch): frames cost more and its caches grow' };
  }
  ink.configureInkCaches({ crossFrame: true, maxBytes });
  return { applied: true };
}

/** Frames back to Ink's own way (each with fresh caches); for tests that compare the two. */
export async function disableInkFrameCache(): Promise<void> {
  const ink: Partial<typeof InkModule> = await import('ink');
  ink.configureInkCaches?.({ crossFrame: false, maxBytes: INK_CACHE_BYTES });
}
