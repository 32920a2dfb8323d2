// What the admission index (admission-index.ts) keeps: a record per queued
// run (Entry), per class of waiters (one provider in one workload, a FIFO),
// per provider and per workload, with the orders its heaps keep them in;
// how a provider's or workload's record is made and set from the policy; and
// the max_wait deadlines, per workload a heap of its waiters by enqueued_at,
// walked for what has expired and what expires next. Pure: no I/O, `now`
// passed in.

import { effectiveReserved, providerLimit, workloadPolicy, type AdmissionPolicy, type SlotHolder, type Waiter } from './admission.js';
import { Heap } from './indexed-heap.js';

export interface Entry {
  readonly waiter: Waiter;
  readonly seq: number;
  /** Arrival order: breaks queue_seq ties as the caller's array order would. */
  readonly ord: number;
  readonly cls: Klass;
  /** Position in the workload's deadline heap, -1 if not in it. */
  dpos: number;
}

export const NOT_PARKED = 0;
/** Workload: its own max reached. Class: its provider's cap reached. */
export const PARKED_CAP = 1;
/** Workload: the reserved-slot rule leaves it no global slot. */
export const PARKED_RESERVE = 2;
/** Class: its provider is on hold. */
export const PARKED_HOLD = 3;

export interface ProviderState {
  readonly name: string;
  active: number;
  limit: number;
  /** Epoch ms until which the provider is held; NaN = no hold. */
  hold: number;
  classes: number;
  /** Classes parked because this provider's cap is full. */
  readonly capParked: Set<Klass>;
}

export interface WorkloadState {
  readonly name: string;
  active: number;
  queued: number;
  priority: number;
  max: number | null;
  /** effectiveReserved() if the workload is listed in the policy, else 0. */
  reserved: number;
  maxWait: number | null;
  inPolicy: boolean;
  readonly classes: Map<string, Klass>;
  /** Unparked non-empty classes by head. */
  readonly heap: Heap<Klass>;
  /** Position in the top heap, -1 if not in it. */
  tpos: number;
  parked: number;
  /** Waiters by enqueued_at, kept only while maxWait !== null. */
  deadlines: Heap<Entry> | null;
}

export interface Klass {
  readonly p: ProviderState;
  readonly w: WorkloadState;
  /** Live entries are q[head..], sorted by (seq, ord). */
  q: Entry[];
  head: number;
  /** Within one decide() call only: expired entries passed over at the head. */
  skip: number;
  /** Position in w.heap, -1 if not in it. */
  hpos: number;
  parked: number;
}

export interface HolderRec {
  readonly holder: SlotHolder;
  readonly p: ProviderState;
  readonly w: WorkloadState;
}

export const entryBefore = (x: Entry, y: Entry): boolean => x.seq < y.seq || (x.seq === y.seq && x.ord < y.ord);
// Called only on a class in its workload's heap, which has a live entry past `skip`.
const cursor = (c: Klass): Entry => c.q[c.head + c.skip]!;
const classBefore = (x: Klass, y: Klass): boolean => entryBefore(cursor(x), cursor(y));
export const workloadBefore = (x: WorkloadState, y: WorkloadState): boolean =>
  x.priority > y.priority || (x.priority === y.priority && classBefore(x.heap.a[0]!, y.heap.a[0]!));
const deadlineBefore = (x: Entry, y: Entry): boolean => x.waiter.enqueued_at < y.waiter.enqueued_at;
const placeClass = (c: Klass, i: number): void => {
  c.hpos = i;
};
export const placeWorkload = (w: WorkloadState, i: number): void => {
  w.tpos = i;
};
const placeDeadline = (e: Entry, i: number): void => {
  e.dpos = i;
};
export const unused = (w: WorkloadState): number => (w.reserved > w.active ? w.reserved - w.active : 0);
export const live = (c: Klass): number => c.q.length - c.head;

/** Index of e in its class FIFO, or where it would go: the number of live entries before it, plus head. */
export function searchClass(c: Klass, e: Entry): number {
  let lo = c.head;
  let hi = c.q.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entryBefore(c.q[mid]!, e)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function newProvider(policy: AdmissionPolicy, name: string, hold: number): ProviderState {
  return { name, active: 0, limit: providerLimit(policy, name), hold, classes: 0, capParked: new Set() };
}

/** A workload's record with no settings yet: configureWorkload gives them. */
export function newWorkload(name: string): WorkloadState {
  return {
    name,
    active: 0,
    queued: 0,
    priority: 0,
    max: null,
    reserved: 0,
    maxWait: null,
    inPolicy: false,
    classes: new Map(),
    heap: new Heap<Klass>(classBefore, placeClass),
    tpos: -1,
    parked: NOT_PARKED,
    deadlines: null,
  };
}

/** Derive a workload's settings from the policy (its deadline heap included). Does not touch the index's unused total. */
export function configureWorkload(policy: AdmissionPolicy, w: WorkloadState): void {
  const wp = workloadPolicy(policy, w.name);
  w.inPolicy = Object.hasOwn(policy.workloads, w.name);
  w.priority = wp.priority;
  w.max = wp.max;
  w.reserved = w.inPolicy ? Math.max(0, effectiveReserved(wp)) : 0;
  w.maxWait = wp.max_wait_ms;
  if (w.maxWait === null) {
    w.deadlines = null;
  } else if (w.deadlines === null) {
    const h = new Heap<Entry>(deadlineBefore, placeDeadline);
    for (const c of w.classes.values()) {
      for (let i = c.head; i < c.q.length; i++) if (!Number.isNaN(c.q[i]!.waiter.enqueued_at)) h.push(c.q[i]!);
    }
    w.deadlines = h;
  }
}

/**
 * Walk a workload's deadline heap from the root down each branch to its
 * first entry that `past` refuses (`edge`): in heap order by enqueued_at,
 * nothing below that one is past either.
 */
function walkPast(h: Heap<Entry>, past: (e: Entry) => boolean, onPast: (e: Entry) => void, edge?: (e: Entry) => void): void {
  const stack = [0];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (i >= h.a.length) continue;
    const e = h.a[i]!;
    if (!past(e)) {
      edge?.(e);
      continue;
    }
    onPast(e);
    stack.push(2 * i + 1, 2 * i + 2);
  }
}

/** The waiters past their workload's max_wait at `now`, in queue order. O(expired · log) plus one visit per workload with a max_wait. */
export function expiredEntries(workloads: Iterable<WorkloadState>, now: number): Entry[] {
  const found: Entry[] = [];
  for (const w of workloads) {
    const h = w.deadlines;
    const m = w.maxWait;
    if (h === null || m === null || h.size === 0) continue;
    walkPast(
      h,
      (e) => now - e.waiter.enqueued_at > m,
      (e) => found.push(e),
    );
  }
  found.sort((x, y) => (entryBefore(x, y) ? -1 : 1));
  return found;
}

/** The first moment after `now` at which a waiter passes its max_wait; Infinity for none. O(waiters already past theirs · log). */
export function nextExpiry(workloads: Iterable<WorkloadState>, now: number): number {
  let next = Infinity;
  for (const w of workloads) {
    const h = w.deadlines;
    const m = w.maxWait;
    if (h === null || m === null || h.size === 0) continue;
    const at = (e: Entry): number => e.waiter.enqueued_at + m + 1;
    walkPast(
      h,
      (e) => !(at(e) > now),
      () => undefined,
      (e) => {
        if (at(e) < next) next = at(e);
      },
    );
  }
  return next;
}
