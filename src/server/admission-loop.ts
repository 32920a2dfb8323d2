// When runs start: one admission pass after each change (coalesced to one per
// turn of the event loop) and at the next time-based change (a max wait, a
// hold lifting). A pass lifts due holds, ends expired waiters, asks the
// limiter for leases, journals the promotions in one unit of work, and hands
// them to launching. It keeps no run state of its own.

import { transition } from '../core/run-state.js';
import { setLongTimeout, type LongTimeout } from '../runtime/long-timer.js';
import { monoNow } from './clock.js';
import type { Ending } from './ending.js';
import type { Fleet } from './fleet.js';
import type { Launching } from './launching.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './slots.js';

export class AdmissionLoop {
  private scheduled = false;
  /** A pass is awaiting the limiter; a change meanwhile runs another pass after it. */
  private running = false;
  private again = false;
  private deadline: LongTimeout | null = null;

  constructor(
    private readonly p: {
      store: RunStore;
      slots: Slots;
      lifecycle: Pick<Lifecycle, 'writes' | 'admits' | 'fail' | 'background'>;
      fleet: Pick<Fleet, 'lift' | 'nextAccountLift'>;
      ending: Pick<Ending, 'end'>;
      launching: Pick<Launching, 'launch' | 'holding'>;
    },
  ) {}

  schedule(): void {
    if (!this.p.lifecycle.writes()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run();
    });
  }

  private run(): void {
    this.running = true;
    this.admit()
      .catch((e: unknown) => this.p.lifecycle.fail(e))
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.schedule();
        }
      });
  }

  /** One pass. The limiter may be shared (a database): its grant is awaited, and a run ended meanwhile gives its lease back. */
  private async admit(): Promise<void> {
    const p = this.p;
    if (!p.lifecycle.writes()) return;
    const now = monoNow();
    p.fleet.lift(now);
    const late = p.slots.limiter.expired(now);
    if (late.length > 0) {
      p.store.transaction(() => {
        for (const uuid of late) p.ending.end(uuid, 'expired', 'max_wait', null);
      });
    }
    // Paused or draining, or the OS refusing launches (launching lifts it): runs wait (and may still expire); nothing starts.
    if (!p.lifecycle.admits() || p.launching.holding()) {
      this.armDeadline(now);
      return;
    }
    // The limiter counts the leases at once; if the journal write below
    // fails, degrade() rebuilds it from the journal.
    const limiter = p.slots.limiter;
    const leases = await limiter.grant(now);
    if (!p.lifecycle.writes() || limiter !== p.slots.limiter) return;
    if (leases.length > 0) {
      // Group commit: every promotion of this pass in one unit of work, before any spawn.
      const starting = p.store.transaction(() =>
        leases.flatMap((lease) => {
          const run = p.store.get(lease.uuid);
          // Ended while the grant was made (acquire is cancel-safe): give the slot back.
          if (!run || run.status !== 'queued') {
            p.store.afterCommit(() => p.lifecycle.background(limiter.release(lease.id)));
            return [];
          }
          const next = transition(run, 'starting', now, { lease_id: lease.id });
          // In a cluster the lease is news of its own (which machine, which id); alone it is just the promotion.
          const host = p.slots.host;
          p.store.save(
            next,
            host !== null
              ? [
                  { type: 'starting', data: { from: 'queued' } },
                  { type: 'lease_acquired', data: { lease: lease.id, host } },
                ]
              : { type: 'starting', data: { from: 'queued' } },
          );
          return [next];
        }),
      );
      p.launching.launch(starting);
    }
    this.armDeadline(now);
  }

  private armDeadline(now: number): void {
    this.deadline?.clear();
    this.deadline = null;
    // An account hold's end too: its runs wait outside the limiter, which does not know of it.
    const ends = [this.p.slots.limiter.nextDeadline(now), this.p.fleet.nextAccountLift(now)].filter((t): t is number => t !== null);
    const at = ends.length === 0 ? null : Math.min(...ends);
    if (at !== null) this.deadline = setLongTimeout(() => this.schedule(), at - monoNow(), { unref: true });
  }

  stop(): void {
    this.deadline?.clear();
    this.deadline = null;
  }
}
