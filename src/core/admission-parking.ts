// Which waiters the admission index's decide() may look at next, and what
// is parked out of its way (admission-index.ts says why it is safe). The top
// heap orders the workloads not parked by (priority desc, best head); a
// parked workload or class sits on the list of what blocks it — its own max,
// the reserved-slot rule, its provider's cap, its provider's hold — and is
// woken only by an event that can lift that blocker. Pure: the index tells it
// what changed.

import {
  NOT_PARKED,
  PARKED_CAP,
  PARKED_HOLD,
  PARKED_RESERVE,
  placeWorkload,
  unused,
  workloadBefore,
  live,
  type Klass,
  type ProviderState,
  type WorkloadState,
} from './admission-records.js';
import { Heap } from './indexed-heap.js';

export class Parking {
  private readonly top = new Heap<WorkloadState>(workloadBefore, placeWorkload);
  private readonly reserveParked = new Set<WorkloadState>();
  private readonly holdParked = new Set<Klass>();
  /** Earliest hold end among hold-parked classes. */
  private holdParkedMin = Infinity;

  /** The workload whose best class decide() visits next; undefined when every one is parked or empty. */
  next(): WorkloadState | undefined {
    return this.top.peek();
  }

  /** The workload's best class changed (or it emptied): fix its place in the top heap. */
  workloadChanged(w: WorkloadState): void {
    if (w.parked !== NOT_PARKED) return;
    if (w.heap.size === 0) {
      if (w.tpos >= 0) this.top.removeAt(w.tpos);
    } else if (w.tpos >= 0) {
      this.top.update(w.tpos);
    } else {
      this.top.push(w);
    }
  }

  parkWorkload(w: WorkloadState, why: typeof PARKED_CAP | typeof PARKED_RESERVE): void {
    if (w.tpos >= 0) this.top.removeAt(w.tpos);
    w.parked = why;
    if (why === PARKED_RESERVE) this.reserveParked.add(w);
  }

  parkClass(c: Klass, why: typeof PARKED_CAP | typeof PARKED_HOLD): void {
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

  /** A hold of a parked class may have ended by `now`. */
  holdsDue(now: number): boolean {
    return this.holdParked.size > 0 && now >= this.holdParkedMin;
  }

  /** Wake every class parked on a hold (the holds changed, or one may have ended). */
  unparkHeld(): void {
    const held = [...this.holdParked];
    this.holdParked.clear();
    this.holdParkedMin = Infinity;
    for (const c of held) this.unparkClass(c);
  }

  /**
   * A slot of `p` and `w` came free (`free` global slots now, `unusedTotal`
   * reserved slots unused): wake only what this can unblock; anything woken
   * that is still blocked is simply parked again by the next decide().
   */
  released(p: ProviderState, w: WorkloadState, free: number, unusedTotal: number): void {
    if (p.capParked.size > 0 && p.active < p.limit) {
      const woken = [...p.capParked];
      p.capParked.clear();
      for (const c of woken) this.unparkClass(c);
    }
    if (w.parked === PARKED_CAP && (w.max === null || w.active < w.max)) this.unparkWorkload(w);
    if (this.reserveParked.size > 0) {
      for (const v of [...this.reserveParked]) {
        if (free - (unusedTotal - unused(v)) > 0) {
          this.reserveParked.delete(v);
          this.unparkWorkload(v);
        }
      }
    }
  }

  /** A class emptied: off the heaps and off whatever list parked it. */
  dropClass(c: Klass): void {
    if (c.hpos >= 0) c.w.heap.removeAt(c.hpos);
    if (c.parked === PARKED_CAP) c.p.capParked.delete(c);
    else if (c.parked === PARKED_HOLD) this.holdParked.delete(c);
    c.parked = NOT_PARKED;
  }

  /** A workload's record is dropped. */
  dropWorkload(w: WorkloadState): void {
    if (w.tpos >= 0) this.top.removeAt(w.tpos);
    this.reserveParked.delete(w);
  }

  /**
   * The policy changed, so any blocker may have: nothing stays parked. Every
   * workload's class heap is built again from its non-empty classes, and the
   * workloads with any go back on the top heap.
   */
  reset(providers: Iterable<ProviderState>, workloads: Iterable<WorkloadState>): void {
    for (const p of providers) p.capParked.clear();
    this.holdParked.clear();
    this.holdParkedMin = Infinity;
    this.reserveParked.clear();
    this.top.clear();
    for (const w of workloads) {
      w.parked = NOT_PARKED;
      w.heap.clear();
      for (const c of w.classes.values()) {
        c.parked = NOT_PARKED;
        if (live(c) > 0) w.heap.push(c);
      }
      this.workloadChanged(w);
    }
  }

  private unparkWorkload(w: WorkloadState): void {
    w.parked = NOT_PARKED;
    this.workloadChanged(w);
  }

  private unparkClass(c: Klass): void {
    c.parked = NOT_PARKED;
    if (live(c) === 0 || c.hpos >= 0) return;
    c.w.heap.push(c);
    this.workloadChanged(c.w);
  }
}
