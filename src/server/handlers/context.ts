// What a handler gets: its parsed parameters, and this context — the rooms it
// may reach, each through a narrow port (compose.ts hands them over: nothing
// forwards), the home, its own connection and the server's few controls.

import type { Home } from '../../config/home.js';
import type { Approvals } from '../approvals.js';
import type { MethodName, ParsedParamsOf, ResultOf } from '../../protocol/methods.js';
import type { ClusterLink } from '../cluster-link.js';
import type { Fleet } from '../fleet.js';
import type { FleetView } from '../fleet-view.js';
import type { Kills } from '../kills.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Loops } from '../loops.js';
import type { Queries } from '../queries.js';
import type { Queueing } from '../queueing.js';
import type { Reads } from '../reads.js';
import type { Retention } from '../retention.js';
import type { RunInput } from '../run-input.js';
import type { RunTree } from '../run-tree.js';
import type { Settings } from '../settings.js';
import type { Waits } from '../waits.js';
import type { Worktrees } from '../worktrees.js';

/** The supervisor's rooms as the handlers see them. */
export interface Rooms {
  /** Runs and events as clients page through them, and the snapshot. */
  reads: Pick<Reads, 'listRuns' | 'snapshot' | 'eventsSince' | 'lastSeq' | 'firstSeq'>;
  /** Public views, references, selections, counts, stats and spend. */
  queries: Pick<Queries, 'view' | 'resolve' | 'select' | 'counts' | 'stats' | 'spend' | 'eventNames'>;
  queueing: Pick<Queueing, 'enqueue' | 'rerun' | 'pause'>;
  kills: Pick<Kills, 'kill' | 'takeover'>;
  tree: Pick<RunTree, 'activeDescendants' | 'waitAllTargets'>;
  input: Pick<RunInput, 'send'>;
  waits: Pick<Waits, 'wait' | 'open'>;
  worktrees: Pick<Worktrees, 'collect' | 'prune' | 'finish' | 'diff'>;
  retention: Pick<Retention, 'gc' | 'keepMs'>;
  fleet: Pick<Fleet, 'resume'>;
  loops: Pick<Loops, 'create' | 'list' | 'show' | 'setPaused' | 'remove' | 'events' | 'fire' | 'stopRuns' | 'runs'>;
  /** Agents' requests: the pending ones, one with its input, answers. */
  approvals: Pick<Approvals, 'list' | 'get' | 'answer'>;
  lifecycle: Pick<Lifecycle, 'startedAt' | 'degraded'>;
  settings: Pick<Settings, 'error' | 'clusterPending' | 'config'>;
  /** This machine's membership of a cluster, or null on its own. */
  cluster(): Pick<ClusterLink, 'name' | 'host' | 'state' | 'machines' | 'forget'> | null;
  /** The fleet's runs on every machine, as the cluster's database tells: a member's or a viewer's; null on its own. */
  fleetView(): Pick<FleetView, 'runs' | 'run'> | null;
}

export interface HandlerContext extends Rooms {
  home: Home;
  /** The calling connection. */
  conn: {
    /** Aborted when the client goes away: its waits are dropped with it. */
    signal: AbortSignal;
    /** From now on the connection is sent events (and, with `rows`, rows that changed without one). */
    subscribe(rows: boolean): void;
  };
  server: {
    /** Connections open now. */
    clients(): number;
    /** Stop after this reply: at once (`leave`), or after a drain (killing the agents with `kill_agents`). */
    stop(mode: 'leave' | 'drain' | 'kill_agents'): void;
  };
}

export type Handler<M extends MethodName> = (params: ParsedParamsOf<M>, ctx: HandlerContext) => ResultOf<M> | Promise<ResultOf<M>>;

/** `hello` answers at once: the requests after it in the same chunk must find the connection greeted. */
type SyncHandler<M extends MethodName> = (params: ParsedParamsOf<M>, ctx: HandlerContext) => ResultOf<M>;

/** One handler per method of the table: a method without one, or a handler of the wrong type, does not compile. */
export type Handlers = { [M in MethodName]: M extends 'hello' ? SyncHandler<M> : Handler<M> };

/** A family's handlers: some methods of the table, each with its own types. */
export type HandlerFamily<M extends MethodName> = { [K in M]: Handlers[K] };
