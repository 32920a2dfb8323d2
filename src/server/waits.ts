// `orcr wait`: each call's runs, settled one by one as they change, until all
// are settled, its timeout runs out, or its client goes away. A run settles at
// `idle` (turn_complete, on a turn started after the wait began for input it
// was sent), `blocked`, or `ended` (its exit reason); a run being killed only
// at its end, a run a usage limit will continue only at the end of its last
// attempt. Reads runs; changes none.

import type { SettleToken, Settled } from '../protocol/results.js';
import type { Run } from '../core/types.js';
import { setLongTimeout, type LongTimeout } from '../runtime/long-timer.js';
import type { RunStore } from './run-store.js';
import { RemoteError } from '../protocol/errors.js';

interface Wait {
  uuids: string[];
  /** Per run, the input a settle must have seen (a wait after a send waits for that turn). */
  minInput: Map<string, number>;
  pending: Set<string>;
  done: Map<string, Settled>;
  resolve: (settled: Settled[]) => void;
  reject: (e: Error) => void;
  timer: LongTimeout | null;
}

function settleToken(run: Run, minInput: number): SettleToken | null {
  if (run.status === 'ended') return run.exit_reason ?? 'ended';
  // A run asked to die is on its way to `ended`: its idle or blocked is the
  // moment before, and a wait answered with it would tell `kill; wait` that
  // a run it just killed completed its turn.
  if (run.kill_requested_at !== null) return null;
  if (run.input_seq < minInput) return null;
  if (run.status === 'idle') return 'turn_complete';
  if (run.status === 'blocked') return 'blocked';
  return null;
}

export class Waits {
  /** The open waits that expect each run: a change looks at its own waits only. */
  private readonly byRun = new Map<string, Set<Wait>>();
  private readonly all = new Set<Wait>();

  /**
   * @param p.continues  a run blocked now will be continued, not ended (a one-shot agent on a usage limit it
   *                     will be queued again for): its `blocked` is a moment of the run, not where it settles
   * @param p.lend       a wait by a run (its ORCR_RUN) on its own descendants lends them its slot meanwhile
   *                     (lending.ts): returns what gives it back
   */
  constructor(
    private readonly p: {
      store: Pick<RunStore, 'get' | 'lookup'>;
      continues?: (run: Run) => boolean;
      lend?: (caller: string | undefined, uuids: readonly string[]) => () => void;
    },
  ) {}

  /** How many waits are open (server.status). */
  get open(): number {
    return this.all.size;
  }

  /**
   * Settles when every run has; with a timeout, the unsettled ones come back
   * `pending`. An aborted wait is dropped. `caller`: the waiting client's
   * ORCR_RUN, whose slot is lent while it waits on its own descendants.
   */
  wait(uuids: string[], timeoutMs: number | null, signal?: AbortSignal, caller?: string): Promise<Settled[]> {
    const giveBack = this.p.lend?.(caller, uuids) ?? (() => undefined);
    return this.settled(uuids, timeoutMs, signal).finally(giveBack);
  }

  private settled(uuids: string[], timeoutMs: number | null, signal?: AbortSignal): Promise<Settled[]> {
    // Nothing to wait for (`wait --all` on an idle fleet): settled at once.
    if (uuids.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      const minInput = new Map<string, number>();
      for (const u of uuids) minInput.set(u, this.p.store.get(u)?.input_seq ?? 0);
      const w: Wait = { uuids, minInput, pending: new Set(uuids), done: new Map(), resolve, reject, timer: null };
      this.all.add(w);
      for (const u of uuids) {
        let set = this.byRun.get(u);
        if (!set) this.byRun.set(u, (set = new Set()));
        set.add(w);
      }
      if (timeoutMs !== null) {
        w.timer = setLongTimeout(() => {
          this.drop(w);
          resolve(uuids.map((u) => w.done.get(u) ?? { uuid: u, name: this.p.store.lookup(u)?.name ?? u, token: 'pending' }));
        }, timeoutMs);
      }
      signal?.addEventListener('abort', () => {
        this.drop(w);
        // Nobody reads this answer: its connection is gone.
        reject(new RemoteError('stopped', 'the waiting client went away'));
      });
      for (const u of uuids) this.settleIn(w, u);
    });
  }

  /** A run changed: settle it in every wait that expects it. */
  settle(uuid: string): void {
    const set = this.byRun.get(uuid);
    if (set) for (const w of [...set]) this.settleIn(w, uuid);
  }

  /** Shutting down: every open wait is told so. */
  stopAll(): void {
    for (const w of [...this.all]) {
      this.drop(w);
      w.reject(new RemoteError('stopped', 'the supervisor was stopped (orcr server stop); the runs go on'));
    }
  }

  get size(): number {
    return this.all.size;
  }

  private settleIn(w: Wait, uuid: string): void {
    if (!w.pending.has(uuid)) return;
    const run = this.p.store.lookup(uuid);
    const token = run ? settleToken(run, w.minInput.get(uuid)!) : 'not_found';
    if (token === null) return;
    if (token === 'blocked' && run && this.p.continues?.(run)) return;
    w.pending.delete(uuid);
    w.done.set(uuid, { uuid, name: run?.name ?? uuid, token });
    this.byRun.get(uuid)?.delete(w);
    if (w.pending.size === 0) {
      this.drop(w);
      w.resolve(w.uuids.map((u) => w.done.get(u)!));
    }
  }

  private drop(w: Wait): void {
    w.timer?.clear();
    this.all.delete(w);
    for (const u of w.pending) {
      const set = this.byRun.get(u);
      set?.delete(w);
      if (set?.size === 0) this.byRun.delete(u);
    }
    for (const u of w.uuids) if (this.byRun.get(u)?.size === 0) this.byRun.delete(u);
  }
}
