// How supervision ends: `server stop --drain` (admit nothing more, wait for
// the running agents) or `--kill-agents` (kill them first), then the stop
// itself — agents keep running and are re-adopted by the next supervisor,
// their leases kept, their read offsets saved.

import { STOPPING, withDraining } from '../core/mode.js';
import { holdsSlot } from '../core/run-state.js';
import type { Run } from '../core/types.js';
import { processesGone } from '../runtime/launcher.js';
import type { Degrading } from './degrading.js';
import type { Kills } from './kills.js';
import type { Launching } from './launching.js';
import type { Lifecycle } from './lifecycle.js';
import type { LiveRuns } from './live-runs.js';
import type { Notifier } from './notify.js';
import type { RunInput } from './run-input.js';
import type { RunStore } from './run-store.js';
import type { Slots } from './slots.js';
import type { StartUp } from './start-up.js';
import type { Waits } from './waits.js';

export class Stopping {
  constructor(
    private readonly p: {
      store: RunStore;
      lifecycle: Pick<Lifecycle, 'mode' | 'writes' | 'background'>;
      kills: Pick<Kills, 'kill'>;
      input: Pick<RunInput, 'close'>;
      waits: Pick<Waits, 'stopAll'>;
      launching: Pick<Launching, 'close'>;
      slots: Pick<Slots, 'cluster'>;
      live: Pick<LiveRuns, 'uuids'>;
      notifier: Pick<Notifier, 'stop'>;
      degrading: Pick<Degrading, 'stop'>;
      startUp: Pick<StartUp, 'letGo'>;
      /** The fleet view's publisher and reader. */
      fleetView: { close(): Promise<void> };
    },
  ) {}

  /** Admit nothing more and wait for the running agents (killing them first with `kill`); resolves once no agent runs. */
  async drain(kill: boolean): Promise<void> {
    const { store, lifecycle, input } = this.p;
    lifecycle.mode = withDraining(lifecycle.mode);
    const running = (): Run[] => [...store.active()].filter((r) => holdsSlot(r.status));
    const killed = kill ? running().flatMap((r) => (r.pid !== null ? [{ pid: r.pid, start: r.pid_start }] : [])) : [];
    await new Promise<void>((resolve) => {
      const off = store.reader.onEvent((e) => {
        if (e.type === 'ended' && running().length === 0) {
          off();
          resolve();
        }
      });
      if (running().length === 0) {
        off();
        resolve();
        return;
      }
      if (kill)
        this.p.kills.kill(
          running().map((r) => r.uuid),
          false,
        );
      // An idle interactive agent would wait for input that will not come: let it finish.
      else for (const r of running()) if (r.status === 'idle') input.close(r);
    });
    // A run ends when its agent's exit is read, its wrapper a moment before its own: the stop answers once they are gone.
    await processesGone(killed, 5_000);
  }

  /** Stop supervising; agents keep running and are re-adopted by the next supervisor. */
  stop(): void {
    const { store, lifecycle, waits, launching, slots, live } = this.p;
    const wasDegraded = !lifecycle.writes();
    lifecycle.mode = STOPPING;
    this.p.degrading.stop();
    this.p.notifier.stop();
    waits.stopAll();
    launching.close();
    // Leases stay: the agents go on, and a supervisor back within lease_ttl keeps them.
    if (slots.cluster) lifecycle.background(slots.cluster.close());
    lifecycle.background(this.p.fleetView.close());
    if (wasDegraded) {
      this.p.startUp.letGo();
      store.close();
      return;
    }
    // Persist read offsets so a successor does not re-read applied output.
    const watched = new Set(live.uuids());
    store.transaction(() => {
      for (const run of [...store.active()]) if (watched.has(run.uuid)) store.save(run, null);
    });
    this.p.startUp.letGo();
    store.close();
  }
}
