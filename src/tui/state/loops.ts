// The loops view's rows as the supervisor sends them (`loop.list`): each
// loop's schedule, whether it is paused, its next fire, its last result and
// its runs in flight. Taken in the method table's shape; names and schedules
// are user text, made safe on the way in.

import type { ResultOf } from '../../protocol/methods.js';
import type { PublicLoop } from '../../protocol/views.js';
import { clean } from './safe-text.js';

export interface LoopRow {
  name: string;
  /** The schedule in words: the cron and its zone, or the once-at time. */
  schedule: string;
  paused: boolean;
  /** Epoch ms, or null (a once-at loop that fired, or paused). */
  nextFireAt: number | null;
  maxConcurrency: number;
  overlap: string;
  active: number;
  /** A fire waiting for a free place (overlap queue), and how many fires folded into it. */
  pending: number | null;
  last: { name: string; status: string; exitCode: number | null; endedAt: number | null } | null;
}

export interface LoopsView {
  rows: LoopRow[];
  /** When read (local clock): the countdowns are counted from the tick's `now`. */
  at: number;
}

const time = (iso: string | null): number | null => {
  const t = iso === null ? NaN : Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

function row(l: PublicLoop): LoopRow {
  return {
    name: clean(l.name),
    // The zone beside the cron: "0 9 * * *" means nothing without it.
    schedule: clean(l.cron !== null && l.tz !== null ? `${l.cron} ${l.tz}` : l.schedule),
    paused: l.paused,
    nextFireAt: time(l.next_fire_at),
    maxConcurrency: l.max_concurrency,
    overlap: clean(l.overlap),
    active: l.active.length,
    pending: l.pending ? 1 + l.pending.coalesced : null,
    last: l.last ? { name: clean(l.last.name), status: clean(l.last.status), exitCode: l.last.exit_code, endedAt: time(l.last.ended_at) } : null,
  };
}

export function normalizeLoops(raw: ResultOf<'loop.list'>, at: number): LoopsView {
  return { rows: raw.loops.map(row), at };
}

/** The cursor kept on the rows there are (a loop removed under it moves it up). */
export function clampCursor(cursor: number, rows: number): number {
  return Math.max(0, Math.min(cursor, rows - 1));
}
