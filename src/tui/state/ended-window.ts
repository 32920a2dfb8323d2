// The bounded window of ended runs. A home that lives for months ends runs
// by the hundred thousand; the TUI keeps every run that is not ended and only
// the most recently ended ones, and knows what it left out (older ones the
// snapshot did not send, or that it let go) so the list can say so and page
// them back in from the supervisor on demand. Pure: no I/O, no clock.

import type { PublicRun } from '../../protocol/views.js';
import { copyRuns } from './runs.js';

/** Ended runs kept while nobody looks further back. */
export const ENDED_WINDOW = 1000;
/**
 * How far past its bound the window may run before it is trimmed: trimming
 * sorts the ended runs, so it is done for a batch of endings at a time,
 * never for each one.
 */
export const ENDED_SLACK = 250;
/** Ended runs kept at most, those paged in included (the second bound). */
export const ENDED_MAX = 5000;
/** Older ended runs one request pages in. */
export const OLDER_PAGE = 500;

export interface Older {
  /** Ended runs the supervisor holds and the TUI does not (as far as it knows: gc may have taken some). */
  hidden: number;
  /** run.list's cursor for them: every run not held is queued before this queue_seq; null when none is. */
  before: number | null;
  /** Room paged in above ENDED_WINDOW (up to ENDED_MAX − ENDED_WINDOW), given back when the list shows active runs only. */
  extra: number;
  /** A page is on its way. */
  loading: boolean;
}

export const NO_OLDER: Older = { hidden: 0, before: null, extra: 0, loading: false };

/** Ended runs kept now. */
function bound(o: Older): number {
  return Math.min(ENDED_MAX, ENDED_WINDOW + o.extra);
}

/** Most recently ended first (ended_at is ISO time, which sorts as text), then the later queued. */
function newerEnded(a: PublicRun, b: PublicRun): number {
  const ea = a.ended_at ?? '';
  const eb = b.ended_at ?? '';
  if (ea !== eb) return ea < eb ? 1 : -1;
  return b.queue_seq - a.queue_seq;
}

export interface Trimmed {
  byId: Record<string, PublicRun>;
  older: Older;
}

/**
 * Let go of the ended runs past the window, oldest ended first, keeping the
 * runs someone is looking at (`keep`). Null when nothing needs to go: under
 * the bound, or (unless `now`) under the bound plus the slack, so a trim's
 * sort is paid once per ENDED_SLACK endings. What goes counts as hidden, and
 * the cursor moves up to reach it again.
 */
export function trimEnded(byId: Readonly<Record<string, PublicRun>>, ended: number, older: Older, keep: ReadonlySet<string>, now = false): Trimmed | null {
  const max = bound(older);
  if (ended <= max || (!now && ended <= max + ENDED_SLACK)) return null;
  const endedRuns: PublicRun[] = [];
  for (const uuid in byId) {
    const r = byId[uuid]!;
    if (r.status === 'ended') endedRuns.push(r);
  }
  endedRuns.sort(newerEnded);
  const out: Record<string, PublicRun> = copyRuns(byId);
  let kept = 0;
  let evicted = 0;
  let top = older.before ?? -Infinity;
  for (const r of endedRuns) {
    if (kept < max || keep.has(r.uuid)) {
      kept++;
      continue;
    }
    delete out[r.uuid];
    evicted++;
    top = Math.max(top, r.queue_seq + 1);
  }
  if (evicted === 0) return null;
  return { byId: out, older: { ...older, hidden: older.hidden + evicted, before: top } };
}

/** What a truncated snapshot left out: everything queued before the oldest run it sent. */
export function olderOfSnapshot(runs: readonly PublicRun[], total: number | undefined, truncated: boolean | undefined): Older {
  if (!truncated) return NO_OLDER;
  // The cursor for older ended runs: below the oldest ended run sent (an old active run sent with them is no bound).
  let min = Infinity;
  for (const r of runs) if (r.status === 'ended') min = Math.min(min, r.queue_seq);
  if (!Number.isFinite(min)) for (const r of runs) min = Math.min(min, r.queue_seq);
  return { ...NO_OLDER, hidden: Math.max(0, (total ?? runs.length) - runs.length), before: Number.isFinite(min) ? min : null };
}

export interface OlderPage {
  runs: PublicRun[];
  /** run.list's cursor for the page before this one; null at the first run ever queued. */
  next: number | null;
}

/**
 * A page of older ended runs joins the rows it does not duplicate (a row
 * held is as new as any: an ended run does not change), and the window grows
 * by what it added, up to ENDED_MAX.
 */
export function addOlder(
  byId: Readonly<Record<string, PublicRun>>,
  older: Older,
  page: OlderPage,
  safe: (r: PublicRun) => PublicRun,
): Trimmed & { added: number } {
  let out: Record<string, PublicRun> | null = null;
  let added = 0;
  for (const r of page.runs) {
    if (byId[r.uuid] || r.status !== 'ended') continue;
    out ??= copyRuns(byId);
    out[r.uuid] = safe(r);
    added++;
  }
  const extra = Math.min(ENDED_MAX - ENDED_WINDOW, older.extra + added);
  const hidden = page.next === null ? 0 : Math.max(0, older.hidden - added);
  return { byId: out ?? byId, older: { hidden, before: page.next, extra, loading: false }, added };
}
