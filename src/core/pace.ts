// After a hold lifts: the runs it held back start at a bounded pace, not all
// in the same second (a provider just past its usage limit refuses most of a
// burst again: Claude Code's issue #53922, of ten sessions started right after
// a reset three or four worked). A paced provider starts at most one run, then
// waits its interval before the next, for as many runs as it had waiting when
// its hold lifted. Pure: a limiter asks with the runs an admission pass would
// start, and keeps the answer's paces and the holds they make.

import { decide, type AdmissionInput, type SlotHolder } from './admission.js';
import type { Waiting } from './waiting.js';

/** providers.NAME.resume_pace by default: ten runs after a reset start over 45 s, not in one. */
export const DEFAULT_RESUME_PACE_MS = 5000;

export interface Pace {
  /** Between two starts of the provider. */
  interval_ms: number;
  /** Paced starts still to come (the provider's runs that waited when its hold lifted). */
  left: number;
  /** Epoch ms before which the provider starts nothing (its last paced start + interval). */
  next_at: number;
}

/** A provider's pace after its hold lifts at `now`, with `waiting` runs of it queued; null: no pace (none, or one waits). */
export function paceAfterLift(intervalMs: number, waiting: number, now: number): Pace | null {
  if (intervalMs <= 0 || waiting <= 1) return null;
  return { interval_ms: intervalMs, left: waiting, next_at: now };
}

/** What holds each provider back: its hold, or its pace's next start (one past already holds nothing), the later. */
export function withPaceHolds(holds: Readonly<Record<string, number>>, paces: Readonly<Record<string, Pace>>): Record<string, number> {
  const out: Record<string, number> = { ...holds };
  for (const [provider, p] of Object.entries(paces)) if (p.left > 0) out[provider] = Math.max(p.next_at, out[provider] ?? -Infinity);
  return out;
}

/**
 * Of one pass's promotions (in start order), the ones the paces let start:
 * at most one of each paced provider, whose pace then counts it and waits
 * its interval. `back`: the rest, to be queued again in their places. Paces
 * that are spent are dropped.
 */
export function applyPaces<W extends { uuid: string; provider: string }>(
  promoted: readonly W[],
  paces: Readonly<Record<string, Pace>>,
  now: number,
): { keep: W[]; back: W[]; paces: Record<string, Pace> } {
  const next: Record<string, Pace> = { ...paces };
  const keep: W[] = [];
  const back: W[] = [];
  for (const w of promoted) {
    const p = Object.hasOwn(next, w.provider) ? next[w.provider]! : undefined;
    if (p === undefined) {
      keep.push(w);
      continue;
    }
    if (p.next_at > now) {
      back.push(w);
      continue;
    }
    keep.push(w);
    const left = p.left - 1;
    if (left <= 0) delete next[w.provider];
    else next[w.provider] = { ...p, left, next_at: now + p.interval_ms };
  }
  return { keep, back, paces: next };
}

/** Why a run waits, told as its provider's pace where the hold that stops it is the pace's, not a hold of the provider's own. */
export function pacedWaiting(w: Waiting | null, paces: Readonly<Record<string, Pace>>, holds: Readonly<Record<string, number>>, now: number): Waiting | null {
  if (w?.reason !== 'hold' || w.name === null || !Object.hasOwn(paces, w.name)) return w;
  if ((Object.hasOwn(holds, w.name) ? holds[w.name]! : -Infinity) > now) return w;
  const p = paces[w.name]!;
  return { ...w, reason: 'pace', active: p.left, every_ms: p.interval_ms };
}

/**
 * decide() under paces: a paced provider's runs past its one wait, its pace
 * holds it from now, and the slots they would have taken go to others in
 * the same pass. The promotions in start order, and the paces after.
 */
export function decidePaced(input: AdmissionInput, paces: Readonly<Record<string, Pace>>): { promote: string[]; paces: Record<string, Pace> } {
  let current: Record<string, Pace> = { ...paces };
  if (Object.keys(current).length === 0) return { promote: decide(input), paces: current };
  const promote: string[] = [];
  let holders: readonly SlotHolder[] = input.holders;
  let waiters = input.waiters;
  const byUuid = new Map(waiters.map((w) => [w.uuid, w]));
  for (;;) {
    const holds = withPaceHolds(input.holds ?? {}, current);
    const r = applyPaces(
      decide({ ...input, holders, waiters, holds }).map((u) => byUuid.get(u)!),
      current,
      input.now,
    );
    current = r.paces;
    promote.push(...r.keep.map((w) => w.uuid));
    const kept = new Set(r.keep.map((w) => w.uuid));
    holders = [...holders, ...r.keep.map((w) => ({ uuid: w.uuid, provider: w.provider, workload: w.workload }))];
    waiters = waiters.filter((w) => !kept.has(w.uuid));
    if (r.back.length === 0) return { promote, paces: current };
  }
}
