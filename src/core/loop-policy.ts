// What a loop does at a fire, and when it fires next. Pure: the loops room
// (server/loops.ts) passes the time and the loop's active runs, then journals
// the answer. A loop owns time only: the command it fires spawns agents like
// any caller, and its own cap (max_concurrency) counts only its own runs.

import { firesBetween, nextFire, parseCron } from './cron.js';
import type { Run } from './types.js';

export const OVERLAPS = ['queue', 'skip'] as const;
export type Overlap = (typeof OVERLAPS)[number];

export type LoopSchedule = { cron: string; tz: string } | { once_at: number };

/** A loop as the journal keeps it (the loops table's record). */
export interface Loop {
  name: string;
  schedule: LoopSchedule;
  command: string[];
  cwd: string;
  max_concurrency: number;
  overlap: Overlap;
  timeout_ms: number | null;
  paused: boolean;
  created_at: number;
  /** The next scheduled fire (epoch ms), or null: paused, or a once-loop that has fired. */
  next_fire_at: number | null;
  /** A fire waiting for a free place under max_concurrency (overlap queue): at most one. */
  pending: { since: number; coalesced: number } | null;
  /** Runs fired so far: numbers the runs' names. */
  fired: number;
}

/** A loop run's provider; its workload is `loop:NAME`. */
export const LOOP_PROVIDER = 'loop';
export const loopWorkload = (name: string): string => `loop:${name}`;

export function isLoopRun(run: Pick<Run, 'provider' | 'workload'>): boolean {
  return run.provider === LOOP_PROVIDER && run.workload.startsWith('loop:');
}

export function loopOfRun(run: Pick<Run, 'provider' | 'workload'>): string | null {
  return isLoopRun(run) ? run.workload.slice('loop:'.length) : null;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Null if fine, else why not. */
export function loopNameProblem(name: string): string | null {
  // Quoted as JSON: a name with a newline or an escape is shown, not obeyed or split across lines.
  return NAME.test(name) ? null : `loop name ${JSON.stringify(name)} must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit`;
}

/** What a fire does, given the loop's runs that are live now. */
export type FireDecision =
  | { kind: 'start' }
  /** Queue: the first fire over the cap waits as the pending run. */
  | { kind: 'pend' }
  /** Queue: a pending run already waits; this fire folds into it. */
  | { kind: 'coalesce' }
  /** Skip: over the cap, the fire is dropped. */
  | { kind: 'skip' };

export function decideFire(loop: Pick<Loop, 'max_concurrency' | 'overlap' | 'pending'>, active: number): FireDecision {
  // A waiting pending run goes first: a fire never jumps it.
  if (loop.pending !== null) return { kind: loop.overlap === 'queue' ? 'coalesce' : 'skip' };
  if (active < loop.max_concurrency) return { kind: 'start' };
  return { kind: loop.overlap === 'queue' ? 'pend' : 'skip' };
}

/** After a run of the loop ended (or at start-up): start the pending run now? */
export function pendingStarts(loop: Pick<Loop, 'max_concurrency' | 'pending' | 'paused'>, active: number): boolean {
  return !loop.paused && loop.pending !== null && active < loop.max_concurrency;
}

/**
 * How late a scheduled fire may run. Later than this, the machine slept or
 * the supervisor was down: the fire is skipped (and logged), never replayed.
 */
export const FIRE_GRACE_MS = 60_000;

/** The first scheduled fire strictly after `after`, or null (a once-loop after its time). */
export function nextScheduled(schedule: LoopSchedule, after: number): number | null {
  if ('once_at' in schedule) return schedule.once_at > after ? schedule.once_at : null;
  return nextFire(parseCron(schedule.cron), schedule.tz, after);
}

/** What is due at `now` for a loop whose next fire was `due`. */
export type Due =
  | { kind: 'none' }
  | { kind: 'fire'; scheduled: number; next: number | null }
  /** Fires that fell while nothing could run them (asleep, no supervisor): `count` of them from `first`, skipped. */
  | { kind: 'missed'; first: number; count: number; next: number | null };

export function dueAt(schedule: LoopSchedule, due: number | null, now: number): Due {
  if (due === null || due > now) return { kind: 'none' };
  const next = nextScheduled(schedule, now);
  if (now - due <= FIRE_GRACE_MS) return { kind: 'fire', scheduled: due, next };
  const count = 'once_at' in schedule ? 1 : 1 + firesBetween(parseCron(schedule.cron), schedule.tz, due, now);
  return { kind: 'missed', first: due, count, next };
}

export type LoopRunStatus = 'pending' | 'running' | 'stopping' | 'ok' | 'failed' | 'timeout' | 'stopped' | 'canceled';

/** A loop run's status, from its orcr run's; `stopping`: a guard is stopping it (a timeout), which the row does not show. */
export function loopRunStatus(run: Pick<Run, 'status' | 'exit_reason' | 'kill_requested_at'>, stopping = false): LoopRunStatus {
  if (run.status !== 'ended') {
    if (run.status === 'queued') return 'pending';
    return run.kill_requested_at !== null || stopping ? 'stopping' : 'running';
  }
  switch (run.exit_reason) {
    case 'completed':
      return 'ok';
    case 'timeout':
      return 'timeout';
    case 'killed':
      return 'stopped';
    case 'canceled':
      return 'canceled';
    default:
      return 'failed';
  }
}
