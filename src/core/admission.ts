// The admission engine: which queued runs may take a slot now.
//
// Pure functions over plain data so the supervisor can call them after every
// change (and a future multi-host backend can reuse them) without timers or
// I/O; `now` is always passed in. Everything is O(holders + waiters) per call:
// decide() runs on every enqueue/end, with queues of thousands.

import { capKey, GLOBAL_CAP, providerCap, workloadCap } from './caps.js';

export interface WorkloadPolicy {
  reserved: number;
  priority: number;
  max: number | null;
  max_wait_ms: number | null;
}

export interface AdmissionPolicy {
  /** Global cap (concurrency.max). */
  max: number;
  /** Provider caps; an unlisted provider is bounded by the global cap only. */
  providers: Readonly<Record<string, number>>;
  /** An unlisted workload = {reserved 0, priority 0, max null, max_wait_ms null}. */
  workloads: Readonly<Record<string, WorkloadPolicy>>;
  /** null = unbounded. */
  max_queued: number | null;
}

export interface SlotHolder {
  uuid: string;
  provider: string;
  workload: string;
}

export interface Waiter {
  uuid: string;
  provider: string;
  workload: string;
  queue_seq: number;
  enqueued_at: number;
  /** The run's name, for listings (a cluster shows `host:name`); admission ignores it. */
  name?: string;
}

export interface AdmissionInput {
  policy: AdmissionPolicy;
  /** Runs holding a slot (starting/working/idle/blocked). */
  holders: readonly SlotHolder[];
  /** Queued runs, in ascending queue_seq order (the caller guarantees it). */
  waiters: readonly Waiter[];
  /** provider -> epoch ms until which that provider is on hold (no promotions while now < until). */
  holds?: Readonly<Record<string, number>>;
  now: number;
}

export interface CapUsage {
  /** The cap as the wire names it (core/caps: capKey): "global" | "provider:NAME" | "workload:NAME". */
  cap: string;
  limit: number;
  active: number;
  holders: string[];
  queued: number;
  oldest_wait_ms: number;
  /** Slots set aside inside this cap: Σ reservations for global, the workload's own for a workload, 0 for a provider. */
  reserved: number;
  /** First up to 5 waiter uuids in admission order. */
  waiting: string[];
  /** Provider caps only: when the current hold lifts, null if none is in force. */
  held_until: number | null;
  /** Workload caps only: the workload's priority (admission order), null for the others. */
  priority: number | null;
}

const DEFAULT_WORKLOAD: WorkloadPolicy = Object.freeze({ reserved: 0, priority: 0, max: null, max_wait_ms: null });
const WAITING_SHOWN = 5;

// Object.hasOwn, not `in`/indexing: workload and provider names are user text,
// and "constructor" or "__proto__" must not resolve to Object.prototype members.
export function workloadPolicy(policy: AdmissionPolicy, workload: string): WorkloadPolicy {
  return Object.hasOwn(policy.workloads, workload) ? policy.workloads[workload]! : DEFAULT_WORKLOAD;
}

export function providerLimit(policy: AdmissionPolicy, provider: string): number {
  return Object.hasOwn(policy.providers, provider) ? policy.providers[provider]! : policy.max;
}

/**
 * Reservation that can actually be used: a workload can never fill more than
 * its own max, so reserving beyond it would idle global slots forever.
 */
export function effectiveReserved(wp: WorkloadPolicy): number {
  const r = Math.max(0, wp.reserved);
  return wp.max === null ? r : Math.min(r, Math.max(0, wp.max));
}

function heldUntil(input: AdmissionInput, provider: string): number | null {
  const holds = input.holds;
  if (holds === undefined || !Object.hasOwn(holds, provider)) return null;
  const until = holds[provider]!;
  return input.now < until ? until : null;
}

// Strictly greater: a run that has waited exactly max_wait_ms may still start.
function isExpired(wp: WorkloadPolicy, w: Waiter, now: number): boolean {
  return wp.max_wait_ms !== null && now - w.enqueued_at > wp.max_wait_ms;
}

interface Counts {
  total: number;
  byProvider: Map<string, number>;
  byWorkload: Map<string, number>;
}

function countHolders(holders: readonly SlotHolder[]): Counts {
  const byProvider = new Map<string, number>();
  const byWorkload = new Map<string, number>();
  for (const h of holders) {
    byProvider.set(h.provider, (byProvider.get(h.provider) ?? 0) + 1);
    byWorkload.set(h.workload, (byWorkload.get(h.workload) ?? 0) + 1);
  }
  return { total: holders.length, byProvider, byWorkload };
}

/**
 * Waiters grouped by descending priority, each group still in queue_seq order.
 * Priorities come from the policy (a handful), so the waiters are never sorted;
 * the common single-priority case reuses the caller's array untouched.
 */
function admissionOrder(policy: AdmissionPolicy, waiters: readonly Waiter[]): (readonly Waiter[])[] {
  const distinct = new Set<number>([DEFAULT_WORKLOAD.priority]);
  for (const name of Object.keys(policy.workloads)) distinct.add(policy.workloads[name]!.priority);
  if (distinct.size === 1) return [waiters];
  const priorities = [...distinct].sort((a, b) => b - a);
  const buckets = new Map<number, Waiter[]>(priorities.map((p) => [p, []]));
  for (const w of waiters) buckets.get(workloadPolicy(policy, w.workload).priority)!.push(w);
  return priorities.map((p) => buckets.get(p)!);
}

/** uuids to promote, in the order they should start. */
export function decide(input: AdmissionInput): string[] {
  const { policy, waiters, now } = input;
  const promoted: string[] = [];
  if (waiters.length === 0) return promoted;
  const { byProvider, byWorkload } = countHolders(input.holders);
  let total = input.holders.length;
  // A lowered global cap (active >= max) promotes nothing; it never preempts.
  if (policy.max - total <= 0) return promoted;

  // Unused reservations of every workload: slots the global cap must keep idle
  // for their owners. Kept as a running total so each candidate costs O(1).
  const reserved = new Map<string, number>();
  let unusedTotal = 0;
  for (const name of Object.keys(policy.workloads)) {
    const r = effectiveReserved(policy.workloads[name]!);
    if (r <= 0) continue;
    reserved.set(name, r);
    unusedTotal += Math.max(0, r - (byWorkload.get(name) ?? 0));
  }

  for (const group of admissionOrder(policy, waiters)) {
    for (const w of group) {
      const free = policy.max - total;
      if (free <= 0) return promoted; // nobody else can start, whatever their caps
      const wp = workloadPolicy(policy, w.workload);
      const activeW = byWorkload.get(w.workload) ?? 0;
      const unusedOwn = Math.max(0, (reserved.get(w.workload) ?? 0) - activeW);
      // Every check below only skips this waiter: a run held back by its own
      // provider/workload/hold must not hold back anyone behind it.
      if (free - (unusedTotal - unusedOwn) <= 0) continue;
      if (wp.max !== null && activeW >= wp.max) continue;
      const activeP = byProvider.get(w.provider) ?? 0;
      if (activeP >= providerLimit(policy, w.provider)) continue;
      if (heldUntil(input, w.provider) !== null) continue;
      // Already past its max wait: it is due to end `expired`, not to start.
      if (isExpired(wp, w, now)) continue;

      promoted.push(w.uuid);
      // Count the promotion at once so later candidates in this same call see it.
      total++;
      byWorkload.set(w.workload, activeW + 1);
      byProvider.set(w.provider, activeP + 1);
      if (unusedOwn > 0) unusedTotal--;
    }
  }
  return promoted;
}

/** Queued runs whose workload max_wait_ms has been exceeded (now - enqueued_at > max_wait_ms): they end `expired`. */
export function expired(input: AdmissionInput): string[] {
  const out: string[] = [];
  for (const w of input.waiters) {
    if (isExpired(workloadPolicy(input.policy, w.workload), w, input.now)) out.push(w.uuid);
  }
  return out;
}

/**
 * Earliest future epoch ms at which something time-based changes (a waiter's
 * max_wait expiry, a hold lifting), or null. The supervisor arms one timer for it.
 */
export function nextDeadline(input: AdmissionInput): number | null {
  const { now } = input;
  let next = Infinity;
  for (const w of input.waiters) {
    const maxWait = workloadPolicy(input.policy, w.workload).max_wait_ms;
    if (maxWait === null) continue;
    // Expiry is strictly-greater, so the first expired instant is one ms past the limit.
    const at = w.enqueued_at + maxWait + 1;
    if (at > now && at < next) next = at;
  }
  if (input.holds !== undefined) {
    for (const provider of Object.keys(input.holds)) {
      const until = input.holds[provider]!;
      if (until > now && until < next) next = until;
    }
  }
  return next === Infinity ? null : next;
}

/** May one more run be queued? (max_queued) */
export function canEnqueue(policy: AdmissionPolicy, queuedCount: number): boolean {
  return policy.max_queued === null || queuedCount < policy.max_queued;
}

/**
 * One entry per cap: global, every provider that appears in the
 * policy/holders/waiters, every workload likewise (each group sorted by name,
 * so `orcr stats` is stable). Unconfigured provider/workload caps report the
 * global max as their limit, since that is what bounds them.
 */
export function capUsage(input: AdmissionInput): CapUsage[] {
  const { policy, now } = input;
  const entry = (cap: string, limit: number, reserved: number, held_until: number | null, priority: number | null = null): CapUsage => ({
    cap,
    limit,
    active: 0,
    holders: [],
    queued: 0,
    oldest_wait_ms: 0,
    reserved,
    waiting: [],
    held_until,
    priority,
  });

  const providerNames = new Set<string>(Object.keys(policy.providers));
  const workloadNames = new Set<string>(Object.keys(policy.workloads));
  for (const r of [...input.holders, ...input.waiters]) {
    providerNames.add(r.provider);
    workloadNames.add(r.workload);
  }

  let reservedTotal = 0;
  const workloads = new Map<string, CapUsage>();
  for (const name of [...workloadNames].sort()) {
    const wp = workloadPolicy(policy, name);
    const r = effectiveReserved(wp);
    reservedTotal += r;
    workloads.set(name, entry(workloadCap(name), wp.max ?? policy.max, r, null, wp.priority));
  }
  const providers = new Map<string, CapUsage>();
  for (const name of [...providerNames].sort()) {
    providers.set(name, entry(providerCap(name), providerLimit(policy, name), 0, heldUntil(input, name)));
  }
  const global = entry(capKey(GLOBAL_CAP), policy.max, reservedTotal, null);

  for (const h of input.holders) {
    for (const c of [global, providers.get(h.provider)!, workloads.get(h.workload)!]) {
      c.active++;
      c.holders.push(h.uuid);
    }
  }
  for (const group of admissionOrder(policy, input.waiters)) {
    for (const w of group) {
      const waited = Math.max(0, now - w.enqueued_at);
      for (const c of [global, providers.get(w.provider)!, workloads.get(w.workload)!]) {
        c.queued++;
        if (waited > c.oldest_wait_ms) c.oldest_wait_ms = waited;
        if (c.waiting.length < WAITING_SHOWN) c.waiting.push(w.uuid);
      }
    }
  }
  return [global, ...providers.values(), ...workloads.values()];
}
