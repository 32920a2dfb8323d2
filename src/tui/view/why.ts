// What holds a queued run back, for its row and its details. A run's view
// says so as of its last event (PublicRun.waiting); the TUI asks the same
// question of the stats it polls every second, so the answer stays true as
// slots come and go between that run's events, and a hold counts down.

import { waitingFromCaps, withResumes, type Waiting } from '../../core/waiting.js';
import type { PublicRun } from '../../protocol/views.js';
import { waitingText } from '../../text/waiting.js';
import type { Stats } from '../state/stats.js';
import type { Token } from '../model/tokens.js';

/** A run the TUI holds, as much as a dependent's WHY needs of it. */
export type InputOf = (uuid: string) => { name: string; status: string } | undefined;

/**
 * The waiting reason of a queued run: from stats when there are any, else
 * what the server last said. A dependent (`run --after`) stands in no cap's
 * line: what it waits for is the server's word, its inputs' statuses as the
 * TUI holds them now (`inputOf`), since they move without the dependent.
 */
function queuedWaiting(r: PublicRun, stats: Stats | null, position: number | undefined, now: number, inputOf?: InputOf): Waiting | null {
  if (r.status !== 'queued') return null;
  if (r.waiting?.reason === 'after') {
    if (inputOf === undefined) return r.waiting;
    const left = (r.waiting.inputs ?? []).map((i) => ({ ...i, status: inputOf(i.uuid)?.status ?? i.status }));
    return { ...r.waiting, inputs: left.filter((i) => i.status !== 'ended') };
  }
  // An account held, and a retry waiting out its backoff, are in no cap's queue: the supervisor's word, counted down here.
  if (r.waiting?.reason === 'hold' && r.waiting.account !== undefined && r.waiting.until !== null && Date.parse(r.waiting.until) > now) return r.waiting;
  if (r.waiting?.reason === 'retry' && r.waiting.until !== null && Date.parse(r.waiting.until) > now) return r.waiting;
  if (stats === null || stats.caps.length === 0) return r.waiting ?? null;
  // Nothing starts whatever the caps say: a paused queue, a cluster whose database is away.
  const stopped = stats.degraded ? 'unavailable' : stats.paused ? 'paused' : stats.cluster && !stats.cluster.available ? 'cluster' : null;
  if (stopped) return { reason: stopped, name: null, active: null, limit: null, reserved: null, until: null, position: position ?? r.queue_position ?? null };
  const w = waitingFromCaps(
    stats.caps,
    { provider: r.provider, workload: r.workload, position: position ?? r.queue_position ?? null },
    { fleetExceeded: stats.fleetExceeded, now },
  );
  // The run itself stopped on that limit: it resumes when the hold lifts.
  return withResumes(w, r.attempts?.length ?? 0);
}

function waitingToken(w: Waiting): Token {
  if (w.reason === 'hold' || w.reason === 'pace' || w.reason === 'retry') return 'event.hold';
  if (w.reason === 'fleet') return 'event.budget';
  if (w.reason === 'expiring' || w.reason === 'unavailable') return 'reason.bad';
  return 'status.queued';
}

/** `global 8/8`, `provider claude 3/3`, `hold codex 4d23h`, `queue #6`…, or null for a run that is not queued. */
export function queuedWhy(
  r: PublicRun,
  stats: Stats | null,
  position: number | undefined,
  now: number,
  opts: { short?: boolean } = {},
  inputOf?: InputOf,
): { text: string; token: Token } | null {
  const w = queuedWaiting(r, stats, position, now, inputOf);
  if (w === null) return null;
  return { text: waitingText(w, now, opts), token: waitingToken(w) };
}
