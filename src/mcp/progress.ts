// A `wait` tool call that can take hours: clients time a request out (the
// official SDK after 60 s by default) unless progress resets their clock. So
// a wait whose request has a progressToken gets notifications/progress every
// ORCR_MCP_PROGRESS_MS (default 10 s) while it waits, `progress` being the
// seconds waited so far (rising, as the spec wants), `total` the timeout's.
// A cancelled request stops the wait: its connection closes and the
// supervisor drops the wait (and gives back a slot it lent).

import { parseDuration } from '../config/duration.js';
import type { Orcr, WaitResult } from '../sdk/client.js';
import type { CallContext } from './jsonrpc.js';

const DEFAULT_EVERY_MS = 10_000;

function everyMs(): number {
  const n = Number(process.env.ORCR_MCP_PROGRESS_MS);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_EVERY_MS;
}

export async function waitWithProgress(orcr: Orcr, runs: string[], timeout: string | undefined, ctx: CallContext): Promise<WaitResult[]> {
  const token = ctx.progressToken;
  if (token === undefined) return orcr.wait(runs, { timeout, signal: ctx.signal });
  const started = Date.now();
  let totalS: number | undefined;
  try {
    totalS = timeout === undefined ? undefined : parseDuration(timeout) / 1000;
  } catch {
    /* a bad timeout: the SDK's wait refuses it, in its words */
  }
  const what = runs.length > 3 ? `${runs.slice(0, 3).join(', ')} and ${runs.length - 3} more` : runs.join(', ');
  let last = 0;
  const tick = setInterval(() => {
    // Strictly rising, even if two ticks fall in one millisecond.
    const progress = Math.max((Date.now() - started) / 1000, last + 0.001);
    last = progress;
    ctx.notify('notifications/progress', {
      progressToken: token,
      progress,
      ...(totalS !== undefined ? { total: totalS } : {}),
      message: `waiting for ${what}: ${Math.round(progress)}s`,
    });
  }, everyMs());
  try {
    return await orcr.wait(runs, { timeout, signal: ctx.signal });
  } finally {
    clearInterval(tick);
  }
}
