// An incremental admission index: the same decisions as decide() in
// admission.ts, kept up to date event by event instead of recomputed from the
// whole queue on every call.
//
// Still pure in the sense of admission.ts (no I/O, no timers, `now` passed
// in), but stateful. For any history of calls, index.decide(now) returns
// exactly what decide(index.snapshot(now)) would, in the same order, and then
// moves those runs from the waiters to the holders itself.
//
// How:
//  - Waiters live in classes, one per (provider, workload), each a FIFO in
//    (queue_seq, arrival) order. All members of a class are equally eligible
//    except for their own max_wait expiry, so a decision only looks at heads.
//  - Each workload keeps a small heap of its classes by head; a top heap
//    orders workloads by (priority desc, head queue_seq asc). Its minimum is
//    the next waiter decide() would visit, among classes not known blocked.
//  - Within one decide() call caps only fill up, so a blocker stays a blocker
//    for the rest of the call. Across calls a blocked class/workload is
//    *parked*: taken out of the heaps and put on the list of what blocks it
//    (a workload on its own max or on the reserved-slot rule, a class on its
//    provider's cap or hold). It is put back only by an event that can lift
//    that blocker (a release of that provider/workload, any release for the
//    reserved-slot rule, setPolicy, setHolds, the clock passing a hold). So a
//    parked entry is always still blocked and skipping it is what decide()
//    does; a decision costs O((promoted + newly parked + expired skipped) ·
//    log classes), and O(1) when the global cap is full.
//  - Per workload with a max_wait_ms, a heap of its waiters by enqueued_at
//    makes expired() and nextDeadline() cost O(expired · log) rather than O(queue).

import {
  effectiveReserved,
  providerLimit,
  workloadPolicy,
  type AdmissionInput,
  type AdmissionPolicy,
  type SlotHolder,
  type Waiter,
} from './admission.js';
import { whyWaiting, type Waiting } from './waiting.js';

// ---------- an indexed binary min-heap (items know their own position) ----------

class Heap<T> {
  readonly a: T[] = [];

  constructor(
    private readonly before: (x: T, y: T) => boolean,
    private readonly place: (x: T, i: number) => void,
  ) {}

  get size(): number {
    return this.a.length;
  }

  peek(): T | undefined {
    return this.a[0];
  }

  push(x: T): void {
    this.a.push(x);
    this.place(x, this.a.length - 1);
    this.up(this.a.length - 1);
  }

  /** Remove the item at position i. */
  removeAt(i: number): void {
    const a = this.a;
    const gone = a[i];
    const last = a.pop()!;
    if (i < a.length) {
      a[i] = last;
      this.place(last, i);
      this.update(i);
    }
    this.place(gone, -1);
  }

  /** The item at i changed its key (either way). */
  update(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  clear(): void {
    for (const x of this.a) this.place(x, -1);
    this.a.length = 0;
  }

  private up(i: number): boolean {
    const a = this.a;
    const x = a[i];
    const start = i;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = a[parent];
      if (!this.before(x, p)) break;
      a[i] = p;
      this.place(p, i);
      i = parent;
    }
    if (i === start) return false;
    a[i] = x;
    this.place(x, i);
    return true;
  }

  private down(i: number): void {
    const a = this.a;
    const n = a.length;
    const x = a[i];
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.before(a[r], a[l]) ? r : l;
      if (!this.before(a[c], x)) break;
      a[i] = a[c];
      this.place(a[i], i);
      i = c;
    }
    a[i] = x;
    this.place(x, i);
  }
}

// ---------- state ----------

interface Entry {
  readonly waiter: Waiter;
  readonly seq: number;
  /** Arrival order: breaks queue_seq ties as the caller's array order would. */
  readonly ord: number;
  readonly cls: Klass;
  /** Position in the workload's deadline heap, -1 if not in it. */
  dpos: number;
}

const NOT_PARKED = 0;
/** Workload: its own max reached. Class: its provider's cap reached. */
const PARKED_CAP = 1;
/** Workload: the reserved-slot rule leaves it no global slot. */
const PARKED_RESERVE = 2;
/** Class: its provider is on hold. */
const PARKED_HOLD = 3;

interface ProviderState {
  readonly name: string;
  active: number;
  limit: number;
  /** Epoch ms until which the provider is held; NaN = no hold. */
  hold: number;
  classes: number;
  /** Classes parked because this provider's cap is full. */
  readonly capParked: Set<Klass>;
}

interface WorkloadState {
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

interface Klass {
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

interface HolderRec {
  readonly holder: SlotHolder;
  readonly p: ProviderState;
  readonly w: WorkloadState;
}

const entryBefore = (x: Entry, y: Entry): boolean => x.seq < y.seq || (x.seq === y.seq && x.ord < y.ord);
const cursor = (c: Klass): Entry => c.q[c.head + c.skip];
const classBefore = (x: Klass, y: Klass): boolean => entryBefore(cursor(x), cursor(y));
const workloadBefore = (x: WorkloadState, y: WorkloadState): boolean =>
  x.priority > y.priority || (x.priority === y.priority && classBefore(x.heap.a[0], y.heap.a[0]));
const deadlineBefore = (x: Entry, y: Entry): boolean => x.waiter.enqueued_at < y.waiter.enqueued_at;
const placeClass = (c: Klass, i: number): void => {
  c.hpos = i;
};
const placeWorkload = (w: WorkloadState, i: number): void => {
  w.tpos = i;
};
const placeDeadline = (e: Entry, i: number): void => {
  e.dpos = i;
};
const unused = (w: WorkloadState): number => (w.reserved > w.active ? w.reserved - w.active : 0);
const live = (c: Klass): number => c.q.length - c.head;

/** Index of e in its class FIFO, or where it would go: the number of live entries before it, plus head. */
function searchClass(c: Klass, e: Entry): number {
  let lo = c.head;
  let hi = c.q.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entryBefore(c.q[mid], e)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class AdmissionIndex {
  private pol: AdmissionPolicy;
  private holdsObj: Record<string, number> = {};
  private readonly providers = new Map<string, ProviderState>();
  private readonly workloads = new Map<string, WorkloadState>();
  private readonly entries = new Map<string, Entry>();
  private readonly holding = new Map<string, HolderRec>();
  private readonly top = new Heap<WorkloadState>(workloadBefore, placeWorkload);
  /** Σ over reserving workloads of their unused reservation. */
  private unusedTotal = 0;
  private readonly reserveParked = new Set<WorkloadState>();
  private readonly holdParked = new Set<Klass>();
  /** Earliest hold end among hold-parked classes. */
  private holdParkedMin = Infinity;
  private ordCounter = 0;
  /** Highest queue_seq that arrived; while arrivals ascend, `entries` (a Map) iterates in queue order. */
  private lastSeq = -Infinity;
  private inOrder = true;

  constructor(policy: AdmissionPolicy, holds: Readonly<Record<string, number>> = {}) {
    this.pol = policy;
    this.applyPolicy();
    this.setHolds(holds);
  }

  // ---------- configuration ----------

  get policy(): AdmissionPolicy {
    return this.pol;
  }

  /** Replace the policy. Caps may drop below current usage: nothing is preempted. O(classes · log classes + workloads with a new max_wait). */
  setPolicy(policy: AdmissionPolicy): void {
    this.pol = policy;
    this.applyPolicy();
  }

  /** Replace the provider holds (provider -> epoch ms until which it is held). */
  setHolds(holds: Readonly<Record<string, number>>): void {
    // Null prototype: a provider named "__proto__" must be an own key here too.
    const copy: Record<string, number> = Object.create(null) as Record<string, number>;
    for (const name of Object.keys(holds)) copy[name] = holds[name];
    this.holdsObj = copy;
    for (const p of this.providers.values()) p.hold = this.holdOf(p.name);
    this.unparkHeld();
  }

  // ---------- queue ----------

  /**
   * Add a queued run. Arrivals are expected in ascending queue_seq (O(log classes));
   * an earlier queue_seq (e.g. undoing a promotion) is inserted in place, O(class size).
   * Throws if the uuid is already queued or holding a slot.
   */
  enqueue(waiter: Waiter): void {
    const uuid = waiter.uuid;
    if (this.entries.has(uuid)) throw new Error(`admission index: ${uuid} is already queued`);
    if (this.holding.has(uuid)) throw new Error(`admission index: ${uuid} already holds a slot`);
    const w = this.workloadState(waiter.workload);
    const p = this.providerState(waiter.provider);
    let c = w.classes.get(p.name);
    if (c === undefined) {
      c = { p, w, q: [], head: 0, skip: 0, hpos: -1, parked: NOT_PARKED };
      w.classes.set(p.name, c);
      p.classes++;
    }
    const e: Entry = { waiter, seq: waiter.queue_seq, ord: ++this.ordCounter, cls: c, dpos: -1 };
    const q = c.q;
    let newHead: boolean;
    if (q.length === c.head || !(e.seq < q[q.length - 1].seq)) {
      newHead = q.length === c.head;
      q.push(e);
    } else {
      const at = searchClass(c, e);
      newHead = at === c.head;
      q.splice(at, 0, e);
    }
    if (this.entries.size === 0) {
      this.inOrder = true;
      this.lastSeq = e.seq;
    } else if (e.seq < this.lastSeq) {
      this.inOrder = false;
    } else {
      this.lastSeq = e.seq;
    }
    this.entries.set(uuid, e);
    w.queued++;
    if (w.deadlines !== null && !Number.isNaN(waiter.enqueued_at)) w.deadlines.push(e);
    if (newHead && c.parked === NOT_PARKED) {
      if (c.hpos < 0) w.heap.push(c);
      else w.heap.update(c.hpos);
      this.workloadChanged(w);
    }
  }

  /** Drop a queued run (canceled, expired). False if it was not queued. */
  remove(uuid: string): boolean {
    const e = this.entries.get(uuid);
    if (e === undefined) return false;
    this.take(e);
    return true;
  }

  // ---------- slot holders ----------

  /**
   * Count a run as holding a slot (promoted elsewhere, or re-adopted at start).
   * A queued run with this uuid leaves the queue; a holder with this uuid is replaced.
   */
  acquire(holder: SlotHolder): void {
    if (this.holding.has(holder.uuid)) this.release(holder.uuid);
    const e = this.entries.get(holder.uuid);
    if (e !== undefined) this.take(e);
    this.addHolder({ uuid: holder.uuid, provider: holder.provider, workload: holder.workload });
  }

  /** Free a run's slot. False if it held none. */
  release(uuid: string): boolean {
    const h = this.holding.get(uuid);
    if (h === undefined) return false;
    this.holding.delete(uuid);
    const { p, w } = h;
    this.count(p, w, -1);
    // Wake only what this release can unblock; anything woken that is still
    // blocked is simply parked again by the next decide().
    if (p.capParked.size > 0 && p.active < p.limit) {
      const woken = [...p.capParked];
      p.capParked.clear();
      for (const c of woken) this.unparkClass(c);
    }
    if (w.parked === PARKED_CAP && (w.max === null || w.active < w.max)) this.unparkWorkload(w);
    if (this.reserveParked.size > 0) {
      const free = this.pol.max - this.holding.size;
      for (const v of [...this.reserveParked]) {
        if (free - (this.unusedTotal - unused(v)) > 0) {
          this.reserveParked.delete(v);
          this.unparkWorkload(v);
        }
      }
    }
    this.dropIfUnused(p, w);
    return true;
  }

  // ---------- decisions ----------

  /**
   * Exactly decide(this.snapshot(now)): uuids to promote, in start order. They
   * are moved from the waiters to the holders before this returns.
   */
  decide(now: number): string[] {
    return this.decideWaiters(now).map((w) => w.uuid);
  }

  /** decide(), with each promoted run's waiter record (its provider and workload). */
  decideWaiters(now: number): Waiter[] {
    const out: Waiter[] = [];
    if (this.entries.size === 0) return out;
    const max = this.pol.max;
    // A lowered global cap (active >= max) promotes nothing; it never preempts.
    if (max - this.holding.size <= 0) return out;
    if (this.holdParked.size > 0 && now >= this.holdParkedMin) this.unparkHeld();

    let touched: Klass[] | null = null; // classes with skip > 0 this call
    for (;;) {
      const free = max - this.holding.size;
      if (free <= 0) break;
      const w = this.top.peek();
      if (w === undefined) break;
      // The reserved-slot rule and the workload max block the whole workload.
      if (free - (this.unusedTotal - unused(w)) <= 0) {
        this.parkWorkload(w, PARKED_RESERVE);
        continue;
      }
      if (w.max !== null && w.active >= w.max) {
        this.parkWorkload(w, PARKED_CAP);
        continue;
      }
      const c = w.heap.a[0];
      const p = c.p;
      if (p.active >= p.limit) {
        this.parkClass(c, PARKED_CAP);
        continue;
      }
      if (now < p.hold) {
        this.parkClass(c, PARKED_HOLD);
        continue;
      }
      const e = c.q[c.head + c.skip];
      if (w.maxWait !== null && now - e.waiter.enqueued_at > w.maxWait) {
        // Due to end `expired`, not to start: pass over it for this call only.
        if (c.skip === 0) (touched ??= []).push(c);
        c.skip++;
        if (c.head + c.skip >= c.q.length) {
          w.heap.removeAt(c.hpos); // only expired entries left: out of this call
        } else {
          w.heap.update(c.hpos);
        }
        this.workloadChanged(w);
        continue;
      }
      out.push(e.waiter);
      // Count it first so that taking it out of the queue never drops the
      // provider/workload state it is about to use.
      this.addHolder({ uuid: e.waiter.uuid, provider: e.waiter.provider, workload: e.waiter.workload });
      this.take(e);
    }

    // Expired entries stay queued: give their classes their real heads back.
    // Each key only decreases here and is fixed at once, so both heaps stay valid.
    if (touched !== null) {
      for (const c of touched) {
        c.skip = 0;
        if (c.parked !== NOT_PARKED || live(c) === 0) continue;
        if (c.hpos >= 0) c.w.heap.update(c.hpos);
        else c.w.heap.push(c);
        this.workloadChanged(c.w);
      }
    }
    return out;
  }

  /**
   * Exactly expired(this.snapshot(now)), in queue order. Does not remove them:
   * call remove() for each. O(expired · log) plus one visit per workload with a max_wait.
   */
  expired(now: number): string[] {
    const found: Entry[] = [];
    for (const w of this.workloads.values()) {
      const h = w.deadlines;
      const m = w.maxWait;
      if (h === null || m === null || h.size === 0) continue;
      // Heap order by enqueued_at: below an unexpired entry nothing is expired.
      const stack = [0];
      while (stack.length > 0) {
        const i = stack.pop()!;
        if (i >= h.a.length) continue;
        const e = h.a[i];
        if (!(now - e.waiter.enqueued_at > m)) continue;
        found.push(e);
        stack.push(2 * i + 1, 2 * i + 2);
      }
    }
    found.sort((x, y) => (entryBefore(x, y) ? -1 : 1));
    return found.map((e) => e.waiter.uuid);
  }

  /**
   * Exactly nextDeadline(this.snapshot(now)). O(waiters already past their
   * deadline · log + holds): cheap as long as expired waiters are removed.
   */
  nextDeadline(now: number): number | null {
    let next = Infinity;
    for (const w of this.workloads.values()) {
      const h = w.deadlines;
      const m = w.maxWait;
      if (h === null || m === null || h.size === 0) continue;
      const stack = [0];
      while (stack.length > 0) {
        const i = stack.pop()!;
        if (i >= h.a.length) continue;
        const at = h.a[i].waiter.enqueued_at + m + 1;
        if (at > now) {
          if (at < next) next = at;
          continue; // everything below is at least as late
        }
        stack.push(2 * i + 1, 2 * i + 2);
      }
    }
    for (const provider of Object.keys(this.holdsObj)) {
      const until = this.holdsObj[provider];
      if (until > now && until < next) next = until;
    }
    return next === Infinity ? null : next;
  }

  // ---------- views ----------

  /** Number of queued runs (for canEnqueue). */
  get queued(): number {
    return this.entries.size;
  }

  /** Number of slot holders. */
  get active(): number {
    return this.holding.size;
  }

  isQueued(uuid: string): boolean {
    return this.entries.has(uuid);
  }

  isHolding(uuid: string): boolean {
    return this.holding.has(uuid);
  }

  /** Queued runs in queue order (queue_seq, then arrival). O(queue), O(queue · log) once after an out-of-order arrival. */
  waiting(): Waiter[] {
    if (!this.inOrder) {
      const sorted = [...this.entries.values()].sort((x, y) => (entryBefore(x, y) ? -1 : 1));
      this.entries.clear();
      for (const e of sorted) this.entries.set(e.waiter.uuid, e);
      this.inOrder = true;
    }
    const out: Waiter[] = new Array(this.entries.size);
    let i = 0;
    for (const e of this.entries.values()) out[i++] = e.waiter;
    return out;
  }

  /** Slot holders, oldest acquisition first. */
  holders(): SlotHolder[] {
    const out: SlotHolder[] = new Array(this.holding.size);
    let i = 0;
    for (const h of this.holding.values()) out[i++] = h.holder;
    return out;
  }

  /**
   * 1-based position in admission order (priority desc, then queue_seq) —
   * the order decide() visits waiters, ignoring caps and holds — or null if
   * not queued. O(classes · log class size).
   */
  queuePosition(uuid: string): number | null {
    const e = this.entries.get(uuid);
    if (e === undefined) return null;
    const prio = e.cls.w.priority;
    let pos = 1;
    for (const w of this.workloads.values()) {
      if (w.priority > prio) pos += w.queued;
      else if (w.priority === prio) for (const c of w.classes.values()) pos += searchClass(c, e) - c.head;
    }
    return pos;
  }

  /** queuePosition() of every queued run at once. O(queue + priorities · log). */
  positions(): Map<string, number> {
    const byPrio = new Map<number, Waiter[]>();
    for (const wt of this.waiting()) {
      const prio = this.workloads.get(wt.workload)!.priority;
      let list = byPrio.get(prio);
      if (list === undefined) byPrio.set(prio, (list = []));
      list.push(wt);
    }
    const out = new Map<string, number>();
    let pos = 0;
    for (const prio of [...byPrio.keys()].sort((a, b) => b - a)) for (const wt of byPrio.get(prio)!) out.set(wt.uuid, ++pos);
    return out;
  }

  /** What holds a queued run back (whyWaiting over this index's counts), or null if it is not queued. O(classes · log). */
  waitingFor(uuid: string, now: number, fleetExceeded: boolean): Waiting | null {
    const e = this.entries.get(uuid);
    if (e === undefined) return null;
    const { p, w } = e.cls;
    return whyWaiting({
      global: { active: this.holding.size, limit: this.pol.max },
      reservedForOthers: this.unusedTotal - unused(w),
      provider: { name: p.name, active: p.active, limit: p.limit, heldUntil: Number.isNaN(p.hold) ? null : p.hold },
      workload: { name: w.name, active: w.active, max: w.max },
      expired: w.maxWait !== null && now - e.waiter.enqueued_at > w.maxWait,
      fleetExceeded,
      position: this.queuePosition(uuid),
      now,
    });
  }

  /** The state as the pure engine's input: capUsage(index.snapshot(now)) etc. O(queue + holders). */
  snapshot(now: number): AdmissionInput {
    return { policy: this.pol, holders: this.holders(), waiters: this.waiting(), holds: { ...this.holdsObj }, now };
  }

  // ---------- internals ----------

  private holdOf(provider: string): number {
    return Object.hasOwn(this.holdsObj, provider) ? this.holdsObj[provider] : NaN;
  }

  private providerState(name: string): ProviderState {
    let p = this.providers.get(name);
    if (p === undefined) {
      p = { name, active: 0, limit: providerLimit(this.pol, name), hold: this.holdOf(name), classes: 0, capParked: new Set() };
      this.providers.set(name, p);
    }
    return p;
  }

  private workloadState(name: string): WorkloadState {
    let w = this.workloads.get(name);
    if (w === undefined) {
      w = {
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
      this.workloads.set(name, w);
      this.configureWorkload(w);
    }
    return w;
  }

  /** Derive a workload's settings from the policy (its deadline heap included). Does not touch unusedTotal. */
  private configureWorkload(w: WorkloadState): void {
    const wp = workloadPolicy(this.pol, w.name);
    w.inPolicy = Object.hasOwn(this.pol.workloads, w.name);
    w.priority = wp.priority;
    w.max = wp.max;
    w.reserved = w.inPolicy ? Math.max(0, effectiveReserved(wp)) : 0;
    w.maxWait = wp.max_wait_ms;
    if (w.maxWait === null) {
      w.deadlines = null;
    } else if (w.deadlines === null) {
      const h = new Heap<Entry>(deadlineBefore, placeDeadline);
      for (const c of w.classes.values()) {
        for (let i = c.head; i < c.q.length; i++) if (!Number.isNaN(c.q[i].waiter.enqueued_at)) h.push(c.q[i]);
      }
      w.deadlines = h;
    }
  }

  private applyPolicy(): void {
    const pol = this.pol;
    for (const name of Object.keys(pol.workloads)) this.workloadState(name);
    for (const p of this.providers.values()) {
      p.limit = providerLimit(pol, p.name);
      p.capParked.clear();
    }
    this.holdParked.clear();
    this.holdParkedMin = Infinity;
    this.reserveParked.clear();
    this.top.clear();
    this.unusedTotal = 0;
    for (const w of [...this.workloads.values()]) {
      this.configureWorkload(w);
      this.unusedTotal += unused(w);
      w.parked = NOT_PARKED;
      w.heap.clear();
      for (const c of w.classes.values()) {
        c.parked = NOT_PARKED;
        if (live(c) > 0) w.heap.push(c);
      }
      if (w.heap.size > 0) this.top.push(w);
      else this.dropWorkloadIfUnused(w);
    }
    for (const p of [...this.providers.values()]) this.dropProviderIfUnused(p);
  }

  /** Take a queued entry out of the queue (promotion, removal). */
  private take(e: Entry): void {
    const c = e.cls;
    const w = c.w;
    this.entries.delete(e.waiter.uuid);
    w.queued--;
    if (w.deadlines !== null && e.dpos >= 0) w.deadlines.removeAt(e.dpos);
    const at = c.q[c.head] === e ? c.head : searchClass(c, e);
    const keyChanged = at === c.head + c.skip;
    if (at === c.head) {
      c.q[c.head] = undefined as unknown as Entry;
      c.head++;
      if (c.head === c.q.length) {
        c.q = [];
        c.head = 0;
      } else if (c.head >= 1024 && c.head * 2 >= c.q.length) {
        c.q = c.q.slice(c.head);
        c.head = 0;
      }
    } else {
      c.q.splice(at, 1);
    }
    if (live(c) === 0) {
      this.dropClass(c);
    } else if (keyChanged && c.hpos >= 0) {
      if (c.head + c.skip >= c.q.length) w.heap.removeAt(c.hpos);
      else w.heap.update(c.hpos);
      this.workloadChanged(w);
    }
  }

  private addHolder(holder: SlotHolder): void {
    const p = this.providerState(holder.provider);
    const w = this.workloadState(holder.workload);
    this.holding.set(holder.uuid, { holder, p, w });
    this.count(p, w, 1);
  }

  private count(p: ProviderState, w: WorkloadState, d: number): void {
    p.active += d;
    const before = unused(w);
    w.active += d;
    this.unusedTotal += unused(w) - before;
  }

  /** The workload's best class changed (or it emptied): fix its place in the top heap. */
  private workloadChanged(w: WorkloadState): void {
    if (w.parked !== NOT_PARKED) return;
    if (w.heap.size === 0) {
      if (w.tpos >= 0) this.top.removeAt(w.tpos);
    } else if (w.tpos >= 0) {
      this.top.update(w.tpos);
    } else {
      this.top.push(w);
    }
  }

  private parkWorkload(w: WorkloadState, why: number): void {
    if (w.tpos >= 0) this.top.removeAt(w.tpos);
    w.parked = why;
    if (why === PARKED_RESERVE) this.reserveParked.add(w);
  }

  private unparkWorkload(w: WorkloadState): void {
    w.parked = NOT_PARKED;
    this.workloadChanged(w);
  }

  private parkClass(c: Klass, why: number): void {
    const w = c.w;
    if (c.hpos >= 0) w.heap.removeAt(c.hpos);
    c.parked = why;
    if (why === PARKED_CAP) {
      c.p.capParked.add(c);
    } else {
      this.holdParked.add(c);
      if (c.p.hold < this.holdParkedMin) this.holdParkedMin = c.p.hold;
    }
    this.workloadChanged(w);
  }

  private unparkClass(c: Klass): void {
    c.parked = NOT_PARKED;
    if (live(c) === 0 || c.hpos >= 0) return;
    c.w.heap.push(c);
    this.workloadChanged(c.w);
  }

  private unparkHeld(): void {
    const held = [...this.holdParked];
    this.holdParked.clear();
    this.holdParkedMin = Infinity;
    for (const c of held) this.unparkClass(c);
  }

  private dropClass(c: Klass): void {
    const w = c.w;
    if (c.hpos >= 0) w.heap.removeAt(c.hpos);
    if (c.parked === PARKED_CAP) c.p.capParked.delete(c);
    else if (c.parked === PARKED_HOLD) this.holdParked.delete(c);
    c.parked = NOT_PARKED;
    w.classes.delete(c.p.name);
    c.p.classes--;
    this.workloadChanged(w);
    this.dropIfUnused(c.p, w);
  }

  private dropIfUnused(p: ProviderState, w: WorkloadState): void {
    this.dropProviderIfUnused(p);
    this.dropWorkloadIfUnused(w);
  }

  // Per-name state lives while the name is configured, queued or holding, so
  // a long-running supervisor does not accumulate every name it ever saw.
  private dropProviderIfUnused(p: ProviderState): void {
    if (p.active === 0 && p.classes === 0 && this.providers.get(p.name) === p) this.providers.delete(p.name);
  }

  private dropWorkloadIfUnused(w: WorkloadState): void {
    if (w.active !== 0 || w.classes.size !== 0 || w.inPolicy || this.workloads.get(w.name) !== w) return;
    if (w.tpos >= 0) this.top.removeAt(w.tpos);
    this.reserveParked.delete(w);
    this.workloads.delete(w.name);
  }
}
