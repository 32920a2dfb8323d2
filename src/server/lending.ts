// The deadlock guard of nested runs. A parent that waits on its own children
// while holding a slot would starve them under a small cap (with
// concurrency.max 1 it would wait for ever). So while a run is in `orcr wait`
// on nothing but its own descendants, its slot is lent: the limiter counts it
// out and the next waiter (its children first in line, being queued) may
// start; when the wait returns, the parent takes a slot back at once, even
// over the cap for a moment, since its process never stopped (as when a cap is
// lowered under running agents). Memory only: a restarted supervisor counts
// the parent in again, and the wait it re-sends lends the slot anew.

import type { EventInput } from '../core/events.js';
import { holdsSlot } from '../core/run-state.js';
import { isDescendant } from '../core/run-tree.js';
import type { Run } from '../core/types.js';
import type { Lease } from '../limiter/limiter.js';
import type { Parts } from './parts.js';

export class Lending {
  /** Parent uuid → its lent lease and how many of its waits lend it. */
  private readonly lent = new Map<string, { lease: Lease; waits: number }>();

  constructor(private readonly p: Parts) {}

  /** Is this run's slot lent now? */
  isLent(uuid: string): boolean {
    return this.lent.has(uuid);
  }

  /**
   * A wait by the run `caller` (its ORCR_RUN) on `uuids`: lends the caller's
   * slot if it holds one and every waited run is one of its descendants still
   * active. Returns what to call once the wait returns, however it returns.
   */
  forWait(caller: string | undefined, uuids: readonly string[]): () => void {
    const { store } = this.p;
    if (caller === undefined || uuids.length === 0) return () => undefined;
    const parent = store.get(caller);
    if (!parent || !holdsSlot(parent.status) || parent.kill_requested_at !== null) return () => undefined;
    const lookup = (u: string): Run | null => store.lookup(u);
    const waited = uuids.map(lookup);
    if (!waited.every((r) => r !== null && isDescendant(r, caller, lookup))) return () => undefined;
    if (!waited.some((r) => r!.status !== 'ended')) return () => undefined;
    const held = this.lent.get(caller);
    if (held) held.waits++;
    else {
      const lease = this.p.limiter.leaseOf(caller);
      if (!lease) return () => undefined;
      this.lent.set(caller, { lease, waits: 1 });
      this.p.background(this.p.limiter.release(lease.id));
      this.note(caller, { type: 'slot_lent', data: { waiting_on: uuids.length } });
      this.p.admission.schedule();
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.takeBack(caller);
    };
  }

  private takeBack(caller: string): void {
    const held = this.lent.get(caller);
    if (!held || --held.waits > 0) return;
    this.lent.delete(caller);
    if (this.p.stopping || this.p.degraded !== null) return;
    const run = this.p.store.get(caller);
    // Ended (or ending) meanwhile: nothing to take back.
    if (!run || !holdsSlot(run.status) || run.kill_requested_at !== null) return;
    this.p.background(this.p.limiter.adopt(held.lease));
    this.note(caller, { type: 'slot_taken_back', data: {} });
    this.p.admission.schedule();
  }

  /** Rebuilt from the journal (restart, degrade): every live run holds its slot again. */
  clear(): void {
    this.lent.clear();
  }

  private note(uuid: string, ev: EventInput): void {
    try {
      this.p.store.event(uuid, ev);
    } catch (e) {
      this.p.fail(e);
    }
  }
}
