// `import { connect } from 'orcr'`: the SDK's public surface.

// First, before any module that needs a newer Node.js is evaluated: on an old one, importing the SDK
// rejects with an Error that says which Node.js it found and which it needs (a library never exits).
import './node-guard.js';
import { Orcr, type ConnectOptions } from './client.js';

export { Orcr } from './client.js';
export type { ConnectOptions, KillResult, ListOptions, Run, RunRef, WaitResult } from './client.js';
export type { ApprovalTarget, Approvals, Cluster, LoopSpec, Loops, Providers, Queue, Server, Worktrees } from './families.js';
export { OrcrError, type OrcrErrorCode } from './errors.js';
export { NodeTooOld } from './node-guard.js';
export type { Duration, RunSpec } from './spec.js';
export type { EventItem } from './subscription.js';
export type { RunEvent } from '../core/events.js';
export type {
  ApprovalAnswered,
  ApprovalGot,
  ClusterState,
  ClusterStatus,
  FinishMode,
  FireOutcome,
  GcResult,
  LetGo,
  Method,
  Methods,
  Params,
  PublicApproval,
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
