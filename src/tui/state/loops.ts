// The loops view's rows as the supervisor sends them (`loop.list`), checked:
// each loop's schedule, whether it is paused, its next fire, its last result
// and its runs in flight. Unknown or missing fields become "nothing", never a crash.

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

const time = (v: unknown): number | null => {
  const t = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : null;
};

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

function row(raw: Record<string, unknown>): LoopRow {
  const last = obj(raw.last);
  const pending = obj(raw.pending);
  return {
    name: clean(String(raw.name ?? '')),
    // The zone beside the cron: "0 9 * * *" means nothing without it.
    schedule: clean(typeof raw.cron === 'string' && typeof raw.tz === 'string' ? `${raw.cron} ${raw.tz}` : String(raw.schedule ?? '')),
    paused: raw.paused === true,
    nextFireAt: time(raw.next_fire_at),
    maxConcurrency: typeof raw.max_concurrency === 'number' ? raw.max_concurrency : 1,
    overlap: clean(String(raw.overlap ?? 'queue')),
    active: Array.isArray(raw.active) ? raw.active.length : 0,
    pending: pending ? 1 + (typeof pending.coalesced === 'number' ? pending.coalesced : 0) : null,
    last: last
      ? { name: clean(String(last.name ?? '')), status: clean(String(last.status ?? '')), exitCode: typeof last.exit_code === 'number' ? last.exit_code : null, endedAt: time(last.ended_at) }
      : null,
  };
}

export function normalizeLoops(raw: unknown, at: number): LoopsView {
  const loops = obj(raw)?.loops;
  const rows = Array.isArray(loops) ? loops.map(obj).filter((l): l is Record<string, unknown> => l !== null).map(row) : [];
  return { rows, at };
}

/** The cursor kept on the rows there are (a loop removed under it moves it up). */
export function clampCursor(cursor: number, rows: number): number {
  return Math.max(0, Math.min(cursor, rows - 1));
}
