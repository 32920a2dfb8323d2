// The composition root: every room of the supervisor built once, in
// dependency order, each given only the few collaborators it uses. The late
// ties are made here and only here: the run store hands committed effects to
// the interpreter, live runs tell progress and exits what they hear, the
// lifecycle hands faults to the degrading room, and the notifier hears each
// committed event. No room holds another through a shared bag; the handlers
// get the rooms' narrow ports (`rooms`), the socket what it sends its
// subscribers (`feed`), and the facade (supervisor.ts) the lifecycle's rooms.

import type { Home } from '../config/home.js';
import type { Config } from '../config/load.js';
import type { Run } from '../core/types.js';
import { AdmissionLoop } from './admission-loop.js';
import { decidedInTime } from '../core/approvals.js';
import { ApprovalBook } from './approval-book.js';
import { ApprovalDeadlines } from './approval-deadlines.js';
import { ApprovalDecisions } from './approval-decisions.js';
import { ApprovalDelivery } from './approval-delivery.js';
import { ApprovalIntake } from './approval-intake.js';
import { Approvals } from './approvals.js';
import { monoNow, wallNow, type WallClock } from './clock.js';
import { ClusterJoin } from './cluster-join.js';
import { ConfigReload } from './config-reload.js';
import { Degrading } from './degrading.js';
import { Interpreter } from './effects.js';
import { Ending } from './ending.js';
import { Exits } from './exits.js';
import { Continuing } from './continuing.js';
import { Dependencies } from './dependencies.js';
import { Fleet } from './fleet.js';
import { localFaces } from './fleet-faces.js';
import { Guards } from './guards.js';
import type { Rooms } from './handlers/context.js';
import { Kills } from './kills.js';
import { Launching } from './launching.js';
import { Lending } from './lending.js';
import { Lifecycle } from './lifecycle.js';
import { LiveRuns } from './live-runs.js';
import { Loops } from './loops.js';
import { Notifier } from './notify.js';
import { Progress } from './progress.js';
import { Queries } from './queries.js';
import { Queueing } from './queueing.js';
import { Reads } from './reads.js';
import type { Reconciling } from './reconcile.js';
import { Retention } from './retention.js';
import { RunInput } from './run-input.js';
import { RunStore } from './run-store.js';
import { RunTree } from './run-tree.js';
import type { Settings } from './settings.js';
import { Slots } from './slots.js';
import { StartUp } from './start-up.js';
import { Stopping } from './stopping.js';
import { Stops } from './stops.js';
import type { Feed } from './subscriber-feed.js';
import { Waits } from './waits.js';
import { Worktrees } from './worktrees.js';

export function compose(home: Home, settings: Settings, log: (msg: string) => void, loopClock: WallClock = wallNow) {
  const config = settings.get;
  // The journal is opened by the run store and stays in it: every room writes through the store's unit of work.
  const store = RunStore.open(home, settings.config);
  const lifecycle = new Lifecycle(log);
  const slots = new Slots(settings.config);
  const live = new LiveRuns({ home, store, log });
  const book = new ApprovalBook({ store, now: monoNow });
  const ending = new Ending({ store, host: () => slots.host, approvals: book });
  const dependencies = new Dependencies({ store, ending });
  const continuing = new Continuing({ store, ending, approvals: book, config, host: () => slots.host, log });
  const lending = new Lending({ store, slots, lifecycle });
  const waits = new Waits({ store, continues: goesOn(book, continuing), lend: (caller, uuids) => lending.forWait(caller, uuids) });
  const fleet = new Fleet({ store, slots, config, lifecycle, ending, promptAfterHold: (run) => continuing.promptAfterHold(run) });
  const guards = new Guards({ store, live, config });
  const stops = new Stops({ store, live, ending, config });
  const tree = new RunTree({ home, store, live, config });
  const input = new RunInput({ home, store, live, fleet, lifecycle });
  const { intake, delivery, approvals } = requestRooms({ home, store, config, lifecycle, input, live, book, log });
  const progress = new Progress({ store, live, config, fleet, guards, tree, approvals: intake });
  const exits = new Exits({ store, live, progress, ending, continuing });
  const worktrees = new Worktrees({ home, store, config, lifecycle });
  const launching = new Launching({ home, store, log, lifecycle, worktrees, ending, live, input });
  const admission = new AdmissionLoop({ store, slots, lifecycle, fleet, ending, launching });
  const loops = new Loops({ store, lifecycle, launching, stops, live, now: loopClock });
  const retention = new Retention({ home, store, config, lifecycle });
  const queueing = new Queueing({ store, slots, config, lifecycle, fleet, tree, dependencies, worktreeDir: () => worktrees.dir });
  const interpreter = new Interpreter({ store, slots, lifecycle, stops, live, guards, input, admission, waits, fleet, dependencies, delivery });
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
  const kills = new Kills({ store, stops, dependencies, live });
  const queries = new Queries({ store, slots, fleet, dependencies, config, lifecycle, settings });
  const reads = new Reads(store);
  // Told after each commit, like the clients; the journal outlives a degrade, so this is subscribed once.
  const notifier = new Notifier({ log, view: (run) => queries.view(run), lookup: (uuid) => store.lookup(uuid) ?? null, now: Date.now });
  notifier.setConfig(settings.config.notify);
  store.reader.onEvent((event, row) => notifier.onEvent(event, row));
  // The lifecycle's rooms: start and let go, degrade and probe, reload config, drain and stop, join a cluster.
  // What start-up arms and lets go: timers, watches, helpers.
  const armed = { retention, loops, admission, fleet, live, approvals };
  const startUp = new StartUp({ store, lifecycle, reconciling, lending, queueing, continuing, dependencies, slots, ...armed });
  const degrading = new Degrading({ store, lifecycle, launching, slots, config, log, startUp });
  lifecycle.handle({ degrade: (reason) => degrading.degrade(reason), fail: (e) => degrading.fail(e) });
  const configReload = new ConfigReload({ settings, store, slots, fleet, notifier, log });
  const faces = localFaces({ store, queries, book });
  const clusterJoin = new ClusterJoin({ home, settings, store, slots, lifecycle, dependencies, fleet, log, faces });
  const stopping = new Stopping({ store, lifecycle, kills, input, waits, launching, slots, live, notifier, degrading, startUp, fleetView: clusterJoin });
  const rooms: Rooms = {
    reads,
    queries,
    queueing,
    kills,
    tree,
    input,
    waits,
    worktrees,
    retention,
    fleet,
    loops,
    approvals,
    lifecycle,
    settings,
    cluster: () => slots.cluster,
    fleetView: () => clusterJoin.view,
  };
  const feed: Feed = { reads, queries, lifecycle, absorbs: (e) => degrading.absorbs(e) };
  return { store, lifecycle, startUp, degrading, configReload, stopping, clusterJoin, slots, dependencies, rooms, feed };
}

/**
 * A blocked run that will go on by itself, which a wait waits through: a
 * one-shot agent on a usage limit it will be continued for, and a run on
 * requests that each have a deadline (a person or the deadline decides them).
 */
function goesOn(book: Pick<ApprovalBook, 'pending'>, continuing: Pick<Continuing, 'decide'>): (run: Run) => boolean {
  return (run) =>
    run.blocked_kind === 'approval'
      ? decidedInTime(book.pending(run.uuid))
      : !run.interactive && run.blocked_kind === 'limit' && continuing.decide(run, { reason: 'errored', detail: 'limit' }).kind === 'continue';
}

/** The rooms of agents' requests: taken from output, decided, answered, delivered, and decided by their deadlines. */
function requestRooms(d: {
  home: Home;
  store: RunStore;
  config: () => Config;
  lifecycle: Lifecycle;
  input: RunInput;
  live: LiveRuns;
  book: ApprovalBook;
  log: (msg: string) => void;
}) {
  const { home, store, lifecycle, log } = d;
  const decisions = new ApprovalDecisions({ store, input: d.input });
  const deadlines = new ApprovalDeadlines({ store, decisions, lifecycle });
  const intake = new ApprovalIntake({ home, store, config: d.config, book: d.book, decisions, deadlines, log });
  const delivery = new ApprovalDelivery({ home, store, input: d.input, lifecycle, log });
  const approvals = new Approvals({ home, store, decisions, deadlines, delivery, live: d.live });
  return { intake, delivery, approvals };
}

export type House = ReturnType<typeof compose>;
