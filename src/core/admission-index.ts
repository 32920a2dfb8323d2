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
//
// The records (entries, classes, providers, workloads, their orders, the
// deadline walks) are in admission-records.ts; the top heap and what is
// parked, with what wakes it, in admission-parking.ts.

import { providerLimit, type AdmissionInput, type AdmissionPolicy, type SlotHolder, type Waiter } from './admission.js';
import {
  configureWorkload,
  entryBefore,
  expiredEntries,
  live,
  newProvider,
  newWorkload,
  nextExpiry,
  NOT_PARKED,
  PARKED_CAP,
  PARKED_HOLD,
  PARKED_RESERVE,
  searchClass,
  unused,
  type Entry,
  type HolderRec,
  type Klass,
  type ProviderState,
  type WorkloadState,
} from './admission-records.js';
import { Parking } from './admission-parking.js';
import { whyWaiting, type Waiting } from './waiting.js';

export class AdmissionIndex {
  private pol: AdmissionPolicy;
  private holdsObj: Record<string, number> = {};
  private readonly providers = new Map<string, ProviderState>();
  private readonly workloads = new Map<string, WorkloadState>();
  private readonly entries = new Map<string, Entry>();
  private readonly holding = new Map<string, HolderRec>();
  private readonly parking = new Parking();
  /** Σ over reserving workloads of their unused reservation. */
  private unusedTotal = 0;
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
    for (const name of Object.keys(holds)) copy[name] = holds[name]!;
    this.holdsObj = copy;
    for (const p of this.providers.values()) p.hold = this.holdOf(p.name);
    this.parking.unparkHeld();
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
    if (q.length === c.head || !(e.seq < q[q.length - 1]!.seq)) {
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
      this.parking.workloadChanged(w);
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
    this.parking.released(p, w, this.pol.max - this.holding.size, this.unusedTotal);
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
    if (this.parking.holdsDue(now)) this.parking.unparkHeld();

    let touched: Klass[] | null = null; // classes with skip > 0 this call
    for (;;) {
      const free = max - this.holding.size;
      if (free <= 0) break;
      const w = this.parking.next();
      if (w === undefined) break;
      // The reserved-slot rule and the workload max block the whole workload.
      if (free - (this.unusedTotal - unused(w)) <= 0) {
        this.parking.parkWorkload(w, PARKED_RESERVE);
        continue;
      }
      if (w.max !== null && w.active >= w.max) {
        this.parking.parkWorkload(w, PARKED_CAP);
        continue;
      }
      // A workload is in the top heap only while its class heap is not empty,
      // and a class is in that heap only while it has a live entry past `skip`.
      const c = w.heap.a[0]!;
      const p = c.p;
      if (p.active >= p.limit) {
        this.parking.parkClass(c, PARKED_CAP);
        continue;
      }
      if (now < p.hold) {
        this.parking.parkClass(c, PARKED_HOLD);
        continue;
      }
      const e = c.q[c.head + c.skip]!;
      if (w.maxWait !== null && now - e.waiter.enqueued_at > w.maxWait) {
        // Due to end `expired`, not to start: pass over it for this call only.
        if (c.skip === 0) (touched ??= []).push(c);
        c.skip++;
        if (c.head + c.skip >= c.q.length) {
          w.heap.removeAt(c.hpos); // only expired entries left: out of this call
        } else {
          w.heap.update(c.hpos);
        }
        this.parking.workloadChanged(w);
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
        this.parking.workloadChanged(c.w);
      }
    }
    return out;
  }

  /**
   * Exactly expired(this.snapshot(now)), in queue order. Does not remove them:
   * call remove() for each. O(expired · log) plus one visit per workload with a max_wait.
   */
  expired(now: number): string[] {
    return expiredEntries(this.workloads.values(), now).map((e) => e.waiter.uuid);
  }

  /**
   * Exactly nextDeadline(this.snapshot(now)). O(waiters already past their
   * deadline · log + holds): cheap as long as expired waiters are removed.
   */
  nextDeadline(now: number): number | null {
    let next = nextExpiry(this.workloads.values(), now);
    for (const provider of Object.keys(this.holdsObj)) {
      const until = this.holdsObj[provider]!;
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
    return Object.hasOwn(this.holdsObj, provider) ? this.holdsObj[provider]! : NaN;
  }

  private providerState(name: string): ProviderState {
    let p = this.providers.get(name);
    if (p === undefined) {
      p = newProvider(this.pol, name, this.holdOf(name));
      this.providers.set(name, p);
    }
    return p;
  }

  private workloadState(name: string): WorkloadState {
    let w = this.workloads.get(name);
    if (w === undefined) {
      w = newWorkload(name);
      this.workloads.set(name, w);
      configureWorkload(this.pol, w);
    }
    return w;
  }

  private applyPolicy(): void {
    const pol = this.pol;
    for (const name of Object.keys(pol.workloads)) this.workloadState(name);
    for (const p of this.providers.values()) p.limit = providerLimit(pol, p.name);
    this.unusedTotal = 0;
    for (const w of this.workloads.values()) {
      configureWorkload(pol, w);
      this.unusedTotal += unused(w);
    }
    this.parking.reset(this.providers.values(), this.workloads.values());
    for (const w of [...this.workloads.values()]) if (w.heap.size === 0) this.dropWorkloadIfUnused(w);
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
      this.parking.workloadChanged(w);
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

  private dropClass(c: Klass): void {
    const w = c.w;
    this.parking.dropClass(c);
    w.classes.delete(c.p.name);
    c.p.classes--;
    this.parking.workloadChanged(w);
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
    this.parking.dropWorkload(w);
    this.workloads.delete(w.name);
  }
}
