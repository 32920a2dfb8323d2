// The typed call every client makes: `call('run.kill', { refs })` answers
// what run.kill answers, read from the protocol's one method table
// (src/protocol/methods.ts) in the shape the clients' call sites use; no
// call site carries a type argument of its own.

import type { MethodName, ParamsOf, ResultOf } from '../protocol/methods.js';

export type { PublicLoop, PublicLoopRun, PublicRun } from '../protocol/views.js';
export type {
  ClusterState,
  ClusterStatus,
  FinishMode,
  FireOutcome,
  GcResult,
  KillResult,
  LetGo,
  ServerStatus,
  Settled,
  SpendReply,
  Stats,
} from '../protocol/results.js';
export { ERROR_CODES as REMOTE_ERROR_CODES } from '../protocol/errors.js';
export { METHOD_NAMES } from '../protocol/methods.js';

export type Method = MethodName;
/** Every method the supervisor's socket serves: the params a client sends, and its result. */
export type Methods = { [M in MethodName]: { params: ParamsOf<M>; result: ResultOf<M> } };

export type RunFilter = ParamsOf<'run.select'>;

export type Params<M extends Method> = Methods[M]['params'];
export type Result<M extends Method> = Methods[M]['result'];
/** The params argument: optional when every param is. */
export type ParamsArg<M extends Method> = {} extends Params<M> ? [params?: Params<M>] : [params: Params<M>];

/** Anything that makes typed calls: a connection (Client) or a session that reconnects. */
export interface Caller {
  call<M extends Method>(method: M, ...params: ParamsArg<M>): Promise<Result<M>>;
}
