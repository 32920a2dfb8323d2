// `import { connect } from 'orcr'`: the SDK's public surface.

import { Orcr, type ConnectOptions } from './client.js';

export { Orcr } from './client.js';
export type { ConnectOptions, KillResult, ListOptions, Run, RunRef, WaitResult } from './client.js';
export type { Cluster, LoopSpec, Loops, Providers, Queue, Server, Worktrees } from './families.js';
export { OrcrError, type OrcrErrorCode } from './errors.js';
export type { Duration, RunSpec } from './spec.js';
export type { EventItem } from './subscription.js';
export type { RunEvent } from '../core/events.js';
export type {
  ClusterState,
  ClusterStatus,
  FinishMode,
  FireOutcome,
  GcResult,
  LetGo,
  Method,
  Methods,
  Params,
  PublicLoop,
  PublicLoopRun,
  Result,
  RunFilter,
  ServerStatus,
  SpendReply,
  Stats,
} from '../client/methods.js';

/** Connect to the home's supervisor (starting one when none runs, as every `orcr` verb does). */
export function connect(opts: ConnectOptions = {}): Promise<Orcr> {
  return Orcr.connect(opts);
}
