// The composition root: every room of the supervisor built once, in
// dependency order, each given only the few collaborators it uses. Three
// late ties are made here and only here: the run store hands committed
// effects to the interpreter, live runs tell progress and exits what they
// hear, and the lifecycle hands faults to the facade. No room holds another
// through a shared bag; the facade (supervisor.ts) keeps what it exposes.

import { clusterEditProblem } from '../config/cluster-edit.js';
import type { Config } from '../config/load.js';
import type { Home } from '../config/home.js';
import { AdmissionLoop } from './admission-loop.js';
import { wallNow, type WallClock } from './clock.js';
import { Interpreter } from './effects.js';
import { Ending } from './ending.js';
import { Exits } from './exits.js';
import { Continuing } from './continuing.js';
import { Dependencies } from './dependencies.js';
import { Fleet } from './fleet.js';
import { Guards } from './guards.js';
import { Launching } from './launching.js';
import { Lending } from './lending.js';
import { Lifecycle } from './lifecycle.js';
import { LiveRuns } from './live-runs.js';
import { Loops } from './loops.js';
import { Progress } from './progress.js';
import { Queueing } from './queueing.js';
import type { Reconciling } from './reconcile.js';
import { Retention } from './retention.js';
import { RunInput } from './run-input.js';
import { RunStore } from './run-store.js';
import { RunTree } from './run-tree.js';
import { Slots } from './slots.js';
import { Stops } from './stops.js';
import { Waits } from './waits.js';
import { Worktrees } from './worktrees.js';

/** The config in force: replaced whole on a reload, read by the rooms at call time. */
export class Settings {
  /** config.json as last read: the config in force, unless an edit of it was refused (a cluster edit waits for a restart). */
  onDisk: Config;
  constructor(public config: Config) {
    this.onDisk = config;
  }
  readonly get = (): Config => this.config;
  /** Why config.json's "cluster" is not the one in force (an edit waiting for the next start), or null. */
  clusterPending(): string | null {
    return clusterEditProblem(this.config.cluster, this.onDisk.cluster);
  }
}

export function compose(home: Home, settings: Settings, log: (msg: string) => void, loopClock: WallClock = wallNow) {
  const config = settings.get;
  // The journal is opened by the run store and stays in it: every room writes through the store's unit of work.
  const store = RunStore.open(home, settings.config);
  const lifecycle = new Lifecycle(log);
  const slots = new Slots(settings.config);
  const live = new LiveRuns({ home, store, log });
  const ending = new Ending({ store, host: () => slots.host });
  const dependencies = new Dependencies({ store, ending });
  const continuing = new Continuing({ store, ending, config, host: () => slots.host, log });
  // A one-shot agent blocked on a usage limit exits and is continued: a wait goes on through it.
  const waits = new Waits({
    store,
    continues: (run) => !run.interactive && run.blocked_kind === 'limit' && continuing.decide(run, { reason: 'errored', detail: 'limit' }).kind === 'continue',
  });
  const fleet = new Fleet({ store, slots, config, lifecycle, ending, promptAfterHold: (run) => continuing.promptAfterHold(run) });
  const guards = new Guards({ store, live, config });
  const stops = new Stops({ store, live, ending, config });
  const tree = new RunTree({ home, store, live, config });
  const input = new RunInput({ home, store, live, fleet, lifecycle });
  const progress = new Progress({ store, live, config, fleet, guards, tree });
  const exits = new Exits({ store, live, progress, ending, continuing });
  const worktrees = new Worktrees({ home, store, config, lifecycle });
  const launching = new Launching({ home, store, log, lifecycle, worktrees, ending, live, input });
  const admission = new AdmissionLoop({ store, slots, lifecycle, fleet, ending, launching });
  const lending = new Lending({ store, slots, lifecycle });
  const loops = new Loops({ store, lifecycle, launching, stops, live, now: loopClock });
  const retention = new Retention({ home, store, config, lifecycle });
  const queueing = new Queueing({ store, slots, config, lifecycle, fleet, tree, dependencies, worktreeDir: () => worktrees.dir });
  const interpreter = new Interpreter({ store, slots, lifecycle, stops, live, guards, input, admission, waits, fleet, dependencies });
  store.onEffects((effects) => interpreter.apply(effects));
  live.listen({
    onLines: (uuid, lines) => progress.onLines(uuid, lines),
    onExit: (uuid, code, vanished) => exits.onExit(uuid, code, vanished),
    // A wrapper that could not fork its agent: launched again, unless the run was meant to stop anyway.
    onUnstarted: (uuid) => {
      if (!launching.relaunch(uuid)) exits.onExit(uuid, null, true);
    },
  });
  const reconciling: Reconciling = { home, store, slots, config, fleet, live, stops, exits, launching, dependencies };
  return {
    store,
    lifecycle,
    slots,
    live,
    fleet,
    continuing,
    dependencies,
    stops,
    tree,
    input,
    worktrees,
    launching,
    admission,
    lending,
    loops,
    retention,
    queueing,
    waits,
    reconciling,
  };
}

export type House = ReturnType<typeof compose>;
