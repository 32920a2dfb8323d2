// Why a queued run has not started: the cap that holds it back, told from the
// counts admission keeps. Pure, with `now` passed in. The supervisor asks it
// from its admission index; the TUI asks it from `stats` caps, so its WHY
// column stays true as slots come and go between run events.

import type { CapUsage } from './admission.js';
import { capKey, GLOBAL_CAP, parseCap, providerCap, workloadCap } from './caps.js';

type WaitingReason =
  'after' | 'retry' | 'hold' | 'pace' | 'fleet' | 'provider' | 'workload' | 'global' | 'reserved' | 'expiring' | 'next' | 'unavailable' | 'cluster' | 'paused';

/** What stops a queued run, with the figures a user needs to judge it. */
export interface Waiting {
  reason: WaitingReason;
  /** The provider or workload named by the reason, else null. */
  name: string | null;
  /** Slots in use and the cap's limit, for the cap reasons (global, reserved, provider, workload). */
  active: number | null;
  limit: number | null;
  /** Slots of the global cap kept for other workloads (reason `reserved`). */
  reserved: number | null;
  /** When a hold lifts (ISO), reason `hold`. */
  until: string | null;
  /** Admission order among all queued runs (1 = next), as queue_position. */
  position: number | null;
  /** Reason `hold`: one account of the provider is held (pause_at; null: its default login), not the provider. Absent: the provider. */
  account?: string | null;
  /** Reason `hold`: the run itself stopped on that limit and resumes its session when it lifts. Absent: false. */
  resumes?: boolean;
  /** Reason `retry` (then `active` of `limit` is the retry it waits for, `until` its time): what failed. */
  why?: string | null;
  /** Reason `pace` (its provider's hold lifted: its runs start one at a time; `active` of them are still to start, `until` the next): ms between two starts. */
  every_ms?: number;
  /** Reason `after` (then `limit` is how many runs it waits for): those not ended yet, in the order given. */
  inputs?: { uuid: string; name: string; status: string }[];
}

export interface WaitingFacts {
  global: { active: number; limit: number };
  /** Unused reserved slots of workloads other than this run's. */
  reservedForOthers: number;
  provider: { name: string; active: number; limit: number; heldUntil: number | null };
  workload: { name: string; active: number; max: number | null };
  expired: boolean;
  fleetExceeded: boolean;
  position: number | null;
  now: number;
}

/**
 * The reason a user should hear first: what lasts longest (a hold, the fleet
 * budget), then the run's own caps (provider, workload: the most specific),
 * then the global cap and its reserved slots. Several may hold at once; each
 * named one is a true blocker. When nothing stops it, admission has simply
 * not run since the last change: `next`.
 */
export function whyWaiting(f: WaitingFacts): Waiting {
  const base: Waiting = { reason: 'next', name: null, active: null, limit: null, reserved: null, until: null, position: f.position };
  if (f.provider.heldUntil !== null && f.provider.heldUntil > f.now) {
    return { ...base, reason: 'hold', name: f.provider.name, until: new Date(f.provider.heldUntil).toISOString() };
  }
  if (f.fleetExceeded) return { ...base, reason: 'fleet' };
  // A provider or workload cap at or above the global one (an unconfigured
  // one reports the global max) is full only when the global cap is: then
  // the global cap is what holds the run, and is the one to name.
  if (f.provider.limit < f.global.limit && f.provider.active >= f.provider.limit) {
    return { ...base, reason: 'provider', name: f.provider.name, active: f.provider.active, limit: f.provider.limit };
  }
  if (f.workload.max !== null && f.workload.max < f.global.limit && f.workload.active >= f.workload.max) {
    return { ...base, reason: 'workload', name: f.workload.name, active: f.workload.active, limit: f.workload.max };
  }
  const free = f.global.limit - f.global.active;
  if (free <= 0) return { ...base, reason: 'global', active: f.global.active, limit: f.global.limit };
  if (free - f.reservedForOthers <= 0) {
    return { ...base, reason: 'reserved', active: f.global.active, limit: f.global.limit, reserved: f.reservedForOthers };
  }
  if (f.expired) return { ...base, reason: 'expiring' };
  return base;
}

/**
 * The same answer from `stats` caps (CapUsage entries), for a client that
 * has no admission index: a run of `provider` in `workload`.
 */
export function waitingFromCaps(
  caps: readonly CapUsage[],
  run: { provider: string; workload: string; position: number | null },
  opts: { fleetExceeded: boolean; now: number; workloadMax?: number | null },
): Waiting {
  const byName = new Map(caps.map((c) => [c.cap, c]));
  const global = byName.get(capKey(GLOBAL_CAP)) ?? { active: 0, limit: Infinity };
  const p = byName.get(providerCap(run.provider));
  const w = byName.get(workloadCap(run.workload));
  let reservedForOthers = 0;
  for (const c of caps) {
    if (parseCap(c.cap)?.kind !== 'workload' || c === w) continue;
    reservedForOthers += Math.max(0, c.reserved - c.active);
  }
  return whyWaiting({
    global: { active: global.active, limit: global.limit },
    reservedForOthers,
    provider: { name: run.provider, active: p?.active ?? 0, limit: p?.limit ?? global.limit, heldUntil: p?.held_until ?? null },
    // A workload cap's limit is its max, or the global max when it has none: the global check covers that case.
    workload: { name: run.workload, active: w?.active ?? 0, max: opts.workloadMax !== undefined ? opts.workloadMax : (w?.limit ?? null) },
    expired: false,
    fleetExceeded: opts.fleetExceeded,
    position: run.position,
    now: opts.now,
  });
}

/** A hold that keeps a run its usage limit stopped (it has attempts): it resumes when the hold lifts. */
export function withResumes(w: Waiting, attempts: number): Waiting {
  return w.reason === 'hold' && attempts > 0 ? { ...w, resumes: true } : w;
}
