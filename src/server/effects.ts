// The one interpreter of effects (core/effects). The run store hands it what
// each unit of work decided once that work has committed; it carries the
// effects out in order. An effect carried out may commit work that decides
// more: those are queued behind, never applied inside the one being carried
// out — so no room is re-entered by what it set going (an end inside an end).

import type { Dependencies } from './dependencies.js';
import type { Effect } from '../core/effects.js';
import { RemoteError } from '../protocol/errors.js';
import { toWaiter } from '../core/run-record.js';
import { setLongTimeout } from '../runtime/long-timer.js';
import type { AdmissionLoop } from './admission-loop.js';
import type { ApprovalDelivery } from './approval-delivery.js';
import type { Fleet } from './fleet.js';
import type { Guards } from './guards.js';
import type { Lifecycle } from './lifecycle.js';
import type { LiveRuns } from './live-runs.js';
import type { RunInput } from './run-input.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './slots.js';
import type { Stops } from './stops.js';
import type { Waits } from './waits.js';

export interface Carriers {
  store: RunStore;
  slots: Slots;
  lifecycle: Pick<Lifecycle, 'background' | 'fail'>;
  stops: Pick<Stops, 'stop' | 'kill' | 'stopBelow'>;
  live: Pick<LiveRuns, 'detach'>;
  guards: Pick<Guards, 'arm'>;
  input: Pick<RunInput, 'close' | 'send' | 'first' | 'deliver'>;
  admission: Pick<AdmissionLoop, 'schedule'>;
  waits: Pick<Waits, 'settle'>;
  fleet: Pick<Fleet, 'check' | 'loadUsage' | 'keepsOut'>;
  dependencies: Pick<Dependencies, 'onEnded'>;
  delivery: Pick<ApprovalDelivery, 'deliver'>;
}

export class Interpreter {
  private readonly queue: Effect[] = [];
  private applying = false;

  constructor(private readonly c: Carriers) {}

  /** Carry out effects (after their commit): now, or — while others are being carried out — behind them. */
  apply(effects: readonly Effect[]): void {
    this.queue.push(...effects);
    if (this.applying) return;
    this.applying = true;
    try {
      for (let e = this.queue.shift(); e !== undefined; e = this.queue.shift()) {
        try {
          this.carry(e);
        } catch (err) {
          // The work that decided it has committed: a failure here is one off the request path.
          this.c.lifecycle.fail(err);
        }
      }
    } finally {
      this.applying = false;
    }
  }

  private carry(e: Effect): void {
    const c = this.c;
    switch (e.kind) {
      case 'stop':
        return c.stops.stop(e.uuid, e.reason, e.detail);
      case 'kill':
        return c.stops.kill(e.uuid, e.force);
      case 'stop_below':
        return c.stops.stopBelow(e.uuid, e.reason, e.detail, e.force);
      case 'release':
        // Read now: a limiter rebuilt meanwhile (degrade) is the one to tell.
        c.lifecycle.background(c.slots.limiter.cancel(e.uuid));
        return c.live.detach(e.uuid);
      case 'requeue': {
        c.live.detach(e.uuid);
        const limiter = c.slots.limiter;
        const again = async (): Promise<void> => {
          const run = c.store.get(e.uuid);
          // Still waiting to be tried again, and not killed meanwhile; its account not held (it waits outside till then).
          if (run?.status !== 'queued' || c.fleet.keepsOut(run)) return;
          // From now: a max_wait counts this wait, not the first one.
          await c.slots.limiter.enqueue({ ...toWaiter(run), enqueued_at: Date.now(), name: run.name });
          c.store.emit({ kind: 'admit' });
        };
        const run = c.store.get(e.uuid);
        const wait = run?.retry_at ? run.retry_at - Date.now() : 0;
        c.lifecycle.background(
          limiter.cancel(e.uuid).then(async () => {
            // A retry's backoff: it takes its queue place once that has passed (a restart meanwhile takes it at once).
            if (wait > 0) setLongTimeout(() => c.lifecycle.background(again()), wait, { unref: true });
            else await again();
          }),
        );
        return;
      }
      case 'settle':
        return c.waits.settle(e.uuid);
      case 'dependents':
        return c.dependencies.onEnded(e.uuid);
      case 'admit':
        return c.admission.schedule();
      case 'guard':
        return c.guards.arm(e.uuid);
      case 'close_input': {
        const run = c.store.get(e.uuid);
        if (run) c.input.close(run);
        return;
      }
      case 'first_input':
        return c.input.first(e.uuid);
      case 'reply':
        c.input.deliver(e.uuid, e.line, () => {});
        return;
      case 'send':
        try {
          c.input.send(e.uuid, e.text);
        } catch (err) {
          // No longer idle (a user's send came first, it ended) or the fleet budget is spent: nothing to say to it; not a fault.
          if (err instanceof RemoteError) return;
          throw err;
        }
        return;
      case 'answer':
        return c.delivery.deliver(e.id);
      case 'hold':
        c.lifecycle.background(c.slots.limiter.hold(e.provider, e.until).then(() => c.store.emit({ kind: 'admit' })));
        return;
      case 'fleet':
        if (e.reload) c.fleet.loadUsage();
        return c.fleet.check();
    }
  }
}
