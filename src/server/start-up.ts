// The supervisor set going, and let go. At start (and again once a degraded
// journal is writable): memory rebuilt from the journal (reconcile.ts), what
// changed while no supervisor watched repaired in one unit of work, then the
// timers and helpers armed. letGo lets every one of them go again (a degrade,
// a stop); the journal is not touched.

import { holdsSlot } from '../core/run-state.js';
import { recovered, withDraining, withPaused } from '../core/mode.js';
import type { AdmissionLoop } from './admission-loop.js';
import type { Continuing } from './continuing.js';
import type { Dependencies } from './dependencies.js';
import type { Fleet } from './fleet.js';
import type { Lending } from './lending.js';
import type { Lifecycle } from './lifecycle.js';
import type { LiveRuns } from './live-runs.js';
import type { Loops } from './loops.js';
import type { Queueing } from './queueing.js';
import { rebuild, reconcile, type Reconciling } from './reconcile.js';
import type { Retention } from './retention.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './slots.js';

export class StartUp {
  constructor(
    private readonly p: {
      store: RunStore;
      lifecycle: Pick<Lifecycle, 'mode' | 'background'>;
      reconciling: Reconciling;
      lending: Pick<Lending, 'clear'>;
      queueing: Pick<Queueing, 'pausedInJournal'>;
      continuing: Pick<Continuing, 'watch' | 'stop'>;
      dependencies: Pick<Dependencies, 'recheck'>;
      slots: Pick<Slots, 'cluster'>;
      retention: Pick<Retention, 'start' | 'stop'>;
      loops: Pick<Loops, 'start' | 'stop'>;
      admission: Pick<AdmissionLoop, 'stop'>;
      fleet: Pick<Fleet, 'stop'>;
      live: Pick<LiveRuns, 'detachAll'>;
    },
  ) {}

  /**
   * Rebuild memory from the journal and repair what changed while no
   * supervisor watched. `draining`: admit nothing from the start (a
   * supervisor started only to kill the agents left running).
   */
  start(opts: { draining?: boolean } = {}): void {
    const { store, lifecycle, lending, slots, retention, loops, continuing } = this.p;
    const active = rebuild(this.p.reconciling);
    lending.clear();
    // Kept through a rebuild after a degrade: a drain asked for before goes on.
    lifecycle.mode = withPaused(recovered(lifecycle.mode), this.p.queueing.pausedInJournal());
    if (opts.draining === true) lifecycle.mode = withDraining(lifecycle.mode);
    store.event(null, { type: 'supervisor_started', data: { pid: process.pid, active: active.length } });
    // One unit of work for the whole reconciliation: a thousand re-adopted
    // runs would otherwise be a thousand commits between start and ready.
    store.transaction(() => {
      for (const run of active) if (holdsSlot(run.status)) reconcile(this.p.reconciling, run);
    });
    // Runs waiting between attempts: their --timeout still runs out while they wait.
    for (const run of active) continuing.watch(run);
    // Dependents whose inputs ended while no supervisor watched go on (or are canceled) now.
    store.transaction(() => this.p.dependencies.recheck());
    // A shared limiter learns this journal's runs once it can be reached.
    if (slots.cluster) lifecycle.background(slots.cluster.start());
    retention.start();
    loops.start();
    store.emit({ kind: 'admit' });
  }

  /** Every watch, timer and helper let go; the journal untouched. */
  letGo(): void {
    const { retention, loops, admission, fleet, live, continuing } = this.p;
    retention.stop();
    loops.stop();
    admission.stop();
    continuing.stop();
    fleet.stop();
    live.detachAll();
  }
}
