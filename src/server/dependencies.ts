// Runs that wait for runs (`run --after`). A dependent is `queued` in the
// journal but kept out of the limiter while it waits: it holds no slot and
// stands in no cap's waiting line, so a graph of thousands costs admission
// nothing. When a run ends (the `dependents` effect) the runs waiting for it
// look again (core/dependencies' verdict): released to the limiter in their
// queue place, waiting on, or canceled, which ends them and so tells their own
// dependents in turn. A run continued or retried has not ended: its
// dependents keep waiting. Memory only: rebuilt from the journal at start-up.

import { dependencyVerdict, type DependencyVerdict, type InputState } from '../core/dependencies.js';
import { toWaiter } from '../core/run-record.js';
import type { Run } from '../core/types.js';
import type { Ending } from './ending.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './slots.js';

export class Dependencies {
  /** Input uuid → the dependents waiting for it. */
  private readonly waitingOn = new Map<string, Set<string>>();
  /** Dependents kept out of the limiter. */
  private readonly held = new Set<string>();

  constructor(private readonly d: { store: RunStore; slots: Slots; lifecycle: Pick<Lifecycle, 'background'>; ending: Pick<Ending, 'end'> }) {}

  /** Is this run kept out of the limiter, waiting for its inputs? */
  holds(uuid: string): boolean {
    return this.held.has(uuid);
  }

  /** How many runs wait, kept out of the limiter. */
  get waiting(): number {
    return this.held.size;
  }

  /** The dependents waiting for a run. */
  dependentsOf(uuid: string): string[] {
    return [...(this.waitingOn.get(uuid) ?? [])];
  }

  /** Each input as it stands now (active from memory, ended from the journal). */
  inputs(run: Run): (InputState | { uuid: string; gone: true })[] {
    const { store } = this.d;
    return (run.after ?? []).map((u) => {
      const r = store.get(u) ?? store.journal.getRun(u);
      return r ? { uuid: r.uuid, name: r.name, status: r.status, exit_reason: r.exit_reason } : { uuid: u, gone: true as const };
    });
  }

  verdict(run: Run): DependencyVerdict {
    return dependencyVerdict(run.after_any === true, this.inputs(run));
  }

  /**
   * A run just queued (inside the unit of work that inserts it): false when
   * it may take its queue place at once; true when it waits (held) — or was
   * canceled here, its input having failed already.
   */
  admit(run: Run): boolean {
    if (!run.after?.length) return false;
    const v = this.verdict(run);
    if (v.kind === 'ready') return false;
    this.track(run);
    if (v.kind === 'cancel') this.cancel(run.uuid, v.detail);
    return true;
  }

  /** Start-up: every queued dependent found is held, to be looked at once the reconciliation is done (recheck). */
  load(active: readonly Run[]): Set<string> {
    this.waitingOn.clear();
    this.held.clear();
    for (const run of active) if (run.status === 'queued' && run.after?.length && this.verdict(run).kind !== 'ready') this.track(run);
    return this.held;
  }

  /** Every held dependent looks again (after start-up: inputs may have ended while no supervisor watched). */
  recheck(): void {
    for (const uuid of [...this.held]) this.look(uuid);
  }

  /** A run ended: what waits for it looks again. */
  onEnded(uuid: string): void {
    if (this.held.has(uuid)) {
      // A dependent that ended itself (killed, a budget) waits for nothing now.
      const run = this.d.store.lookup(uuid);
      if (run) this.untrack(run);
      this.held.delete(uuid);
    }
    const waiting = this.waitingOn.get(uuid);
    if (!waiting) return;
    this.waitingOn.delete(uuid);
    for (const dep of waiting) this.look(dep);
  }

  /**
   * `kill --keep-dependents`: what waits for this run waits for it no more —
   * each goes on waiting for its other inputs (or takes its queue place when
   * it has none left) instead of being canceled when it ends.
   */
  drop(uuid: string): void {
    const { store } = this.d;
    const waiting = this.waitingOn.get(uuid);
    if (!waiting) return;
    this.waitingOn.delete(uuid);
    const name = store.lookup(uuid)?.name ?? uuid;
    for (const dep of waiting) {
      const run = store.get(dep);
      if (!run || run.status !== 'queued') continue;
      const left = (run.after ?? []).filter((u) => u !== uuid);
      store.save({ ...run, after: left }, { type: 'after_dropped', data: { input: uuid, name, left } });
      this.look(dep);
    }
  }

  private track(run: Run): void {
    this.held.add(run.uuid);
    for (const input of run.after ?? []) {
      let s = this.waitingOn.get(input);
      if (!s) this.waitingOn.set(input, (s = new Set()));
      s.add(run.uuid);
    }
  }

  private untrack(run: Run): void {
    this.held.delete(run.uuid);
    for (const input of run.after ?? []) this.waitingOn.get(input)?.delete(run.uuid);
  }

  private look(uuid: string): void {
    const { store, slots, lifecycle } = this.d;
    const run = store.get(uuid);
    if (!run || run.status !== 'queued') {
      // Ended meanwhile (killed, a budget): nothing waits here any more.
      if (run) this.untrack(run);
      else this.held.delete(uuid);
      return;
    }
    const v = this.verdict(run);
    if (v.kind === 'wait') return;
    this.untrack(run);
    if (v.kind === 'cancel') return this.cancel(uuid, v.detail);
    // Its queue place is its queue_seq: it goes in where it was queued, not behind what came since;
    // a max_wait counts from now (its wait for its inputs is not a wait for a slot).
    const limiter = slots.limiter;
    lifecycle.background(limiter.enqueue({ ...toWaiter(run), enqueued_at: Date.now(), name: run.name }).then(() => store.emit({ kind: 'admit' })));
  }

  private cancel(uuid: string, detail: string): void {
    this.held.delete(uuid);
    this.d.ending.end(uuid, 'canceled', detail, null);
  }
}
