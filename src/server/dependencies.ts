// Runs that wait for runs (`run --after`). A dependent is `queued` in the
// journal but kept out of the limiter while it waits: it holds no slot and
// stands in no cap's waiting line, so a graph of thousands costs admission
// nothing. When a run ends (the `dependents` effect) the runs waiting for it
// look again (core/dependencies' verdict): released to the limiter in their
// queue place, waiting on, or canceled, which ends them and so tells their own
// dependents in turn. A run continued or retried has not ended: its
// dependents keep waiting. Memory only: rebuilt from the journal at start-up.
// An input of another machine (`HOST:UUID`, run --after b:fix) is read as
// that machine last told (cluster-inputs.ts), which calls onEnded when it ends.

import { remoteInput } from '../core/cluster-commands.js';
import { dependencyVerdict, type DependencyVerdict, type InputState } from '../core/dependencies.js';
import type { Run } from '../core/types.js';
import type { Ending } from './ending.js';
import type { RunStore } from './run-store.js';

export class Dependencies {
  /** Input uuid → the dependents waiting for it (only inputs not ended when last looked at). */
  private readonly waitingOn = new Map<string, Set<string>>();
  /**
   * Dependents kept out of the limiter → how many of their inputs have not
   * ended: an input that ends well only counts down; the inputs are read
   * again (the verdict) once none is left, or when one ended otherwise, so a
   * fan-in of a thousand costs a read of its inputs once, not a thousand times.
   */
  private readonly held = new Map<string, number>();

  /** Other machines' inputs as last read there; until one is read, it has not ended. */
  private remote: (id: string) => InputState | { uuid: string; gone: true } | null = () => null;

  constructor(private readonly d: { store: RunStore; ending: Pick<Ending, 'end'> }) {}

  /** In a cluster: where other machines' inputs are read (cluster-inputs.ts). */
  readRemote(read: (id: string) => InputState | { uuid: string; gone: true } | null): void {
    this.remote = read;
  }

  /** The inputs of other machines some dependent waits for now. */
  remoteWaitedOn(): string[] {
    return [...this.waitingOn.keys()].filter((id) => remoteInput(id) !== null);
  }

  /** Is this run kept out of the limiter, waiting for its inputs? */
  holds(uuid: string): boolean {
    return this.held.has(uuid);
  }

  /** The dependents waiting for a run. */
  dependentsOf(uuid: string): string[] {
    return [...(this.waitingOn.get(uuid) ?? [])];
  }

  /** Each input as it stands now (active from memory, ended from the journal). */
  inputs(run: Run): (InputState | { uuid: string; gone: true })[] {
    const { store } = this.d;
    return run.after.map((u) => {
      if (remoteInput(u) !== null) return this.remote(u) ?? { uuid: u, name: u, status: 'queued' as const, exit_reason: null };
      const r = store.get(u) ?? store.reader.getRun(u);
      return r ? { uuid: r.uuid, name: r.name, status: r.status, exit_reason: r.exit_reason } : { uuid: u, gone: true as const };
    });
  }

  verdict(run: Run): DependencyVerdict {
    return dependencyVerdict(run.after_any, this.inputs(run));
  }

  /**
   * A run just queued (inside the unit of work that inserts it): false when
   * it may take its queue place at once; true when it waits (held) — or was
   * canceled here, its input having failed already.
   */
  admit(run: Run): boolean {
    if (!run.after.length) return false;
    const v = this.verdict(run);
    if (v.kind === 'ready') return false;
    if (v.kind === 'cancel') this.cancel(run.uuid, v.detail);
    else this.track(run.uuid, v.left);
    return true;
  }

  /** Start-up: every queued dependent found is held, to be looked at once the reconciliation is done (recheck). */
  load(active: readonly Run[]): ReadonlySet<string> {
    this.waitingOn.clear();
    this.held.clear();
    const held = new Set<string>();
    for (const run of active) {
      if (run.status !== 'queued' || !run.after.length) continue;
      const v = this.verdict(run);
      if (v.kind === 'ready') continue;
      held.add(run.uuid);
      // A canceled one too: recheck ends it, in the start-up's unit of work.
      this.track(run.uuid, v.kind === 'wait' ? v.left : []);
    }
    return held;
  }

  /** Every held dependent looks again (after start-up: inputs may have ended while no supervisor watched). */
  recheck(): void {
    for (const uuid of [...this.held.keys()]) this.look(uuid);
  }

  /** A run ended: what waits for it counts down, or looks again. */
  onEnded(uuid: string): void {
    // A dependent that ended itself (killed, a budget) waits for nothing now.
    if (this.held.has(uuid)) this.untrack(uuid, this.d.store.lookup(uuid)?.after ?? []);
    const waiting = this.waitingOn.get(uuid);
    if (!waiting) return;
    this.waitingOn.delete(uuid);
    const ended = this.d.store.lookup(uuid);
    for (const dep of waiting) {
      const left = this.held.get(dep);
      if (left === undefined) continue;
      this.held.set(dep, left - 1);
      // Ended well (or any end will do) with others still running: nothing to read yet.
      if (left > 1 && (ended?.exit_reason === 'completed' || this.d.store.get(dep)?.after_any === true)) continue;
      this.look(dep);
    }
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
      const left = run.after.filter((u) => u !== uuid);
      store.save({ ...run, after: left }, { type: 'after_dropped', data: { input: uuid, name, left } });
      this.look(dep);
    }
  }

  /** Held, waiting for `left` (the inputs not ended yet). */
  private track(uuid: string, left: readonly { uuid: string }[]): void {
    this.held.set(uuid, left.length);
    for (const input of left) {
      let s = this.waitingOn.get(input.uuid);
      if (!s) this.waitingOn.set(input.uuid, (s = new Set()));
      s.add(uuid);
    }
  }

  /** Not held any more, nor listed under any of its inputs. */
  private untrack(uuid: string, inputs: readonly string[]): void {
    this.held.delete(uuid);
    for (const input of inputs) this.waitingOn.get(input)?.delete(uuid);
  }

  /** Its inputs read again: it waits on (for those not ended), takes its queue place, or is canceled. */
  private look(uuid: string): void {
    const { store } = this.d;
    const run = store.get(uuid);
    if (!run || run.status !== 'queued') {
      // Ended meanwhile (killed, a budget): nothing waits here any more.
      this.untrack(uuid, run?.after ?? []);
      return;
    }
    const v = this.verdict(run);
    this.untrack(uuid, run.after);
    if (v.kind === 'wait') return this.track(uuid, v.left);
    if (v.kind === 'cancel') return this.cancel(uuid, v.detail);
    // Its queue place is its queue_seq: it goes in where it was queued, not behind what came since;
    // a max_wait counts from now (its wait for its inputs is not a wait for a slot). The requeue
    // effect takes it there, as the other gates allow (its account held: not yet).
    store.emit({ kind: 'requeue', uuid });
  }

  private cancel(uuid: string, detail: string): void {
    this.held.delete(uuid);
    this.d.ending.end(uuid, 'canceled', detail, null);
  }
}
