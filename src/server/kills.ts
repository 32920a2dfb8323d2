// What a person ends by hand: `orcr kill` (a run, its active descendants
// unless kept, what waits for it unless kept) and a takeover (`o` in the TUI:
// a person carries the run's session on in the agent's own CLI). The signals
// and the ends are the stops' and the ending's; this decides which runs and how.

import type { Run } from '../core/types.js';
import { RemoteError } from '../protocol/errors.js';
import type { Dependencies } from './dependencies.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';
import type { Stops } from './stops.js';

export class Kills {
  constructor(
    private readonly p: {
      store: RunStore;
      stops: Pick<Stops, 'stop' | 'kill' | 'stopBelow'>;
      dependencies: Pick<Dependencies, 'drop'>;
      live: Pick<LiveRuns, 'requestTakeover'>;
    },
  ) {}

  /**
   * Kill runs: a queued or never-spawned one is canceled at once; a live one
   * is signalled and ends when it exits. Its active descendants go with it,
   * unless `keepChildren` (they then run on, still its children). What waits
   * for it (`run --after`) is canceled once it ends, unless `keepDependents`:
   * then it waits for its other inputs only.
   */
  kill(uuids: string[], force: boolean, keepChildren = false, keepDependents = false): Run[] {
    const { store, stops, dependencies } = this.p;
    const out: Run[] = [];
    for (const uuid of uuids) {
      const run = store.get(uuid);
      if (!run) {
        const ended = store.lookup(uuid);
        if (ended) out.push(ended);
        continue;
      }
      if (!keepChildren) stops.stopBelow(uuid, 'killed', null, force);
      if (keepDependents) store.transaction(() => dependencies.drop(uuid));
      stops.kill(uuid, force);
      out.push(store.lookup(uuid)!);
    }
    return out;
  }

  /**
   * A person takes the run's session over. A working run is stopped when its
   * turn ends (`now`: at once); any other live one at once; an ended one is
   * left as it is (its session can still be resumed). Ends `taken_over`.
   */
  takeover(uuid: string, now: boolean): Run {
    const { store, stops, live } = this.p;
    const run = store.get(uuid);
    if (!run) {
      const ended = store.lookup(uuid);
      if (!ended) throw new RemoteError('not_found', `no run ${uuid}`);
      return ended;
    }
    if (run.status === 'queued') throw new RemoteError('usage', `${run.name} has not started: it has no session to take over`);
    if (run.status === 'working' && !now) {
      if (live.requestTakeover(uuid)) store.event(uuid, { type: 'takeover_requested', data: { at: 'turn_end' } });
      return run;
    }
    stops.stop(uuid, 'taken_over', now && run.status === 'working' ? 'stopped mid-turn' : null);
    return store.lookup(uuid)!;
  }
}
