// The typed call every client makes: `call('run.kill', { refs })` answers
// what run.kill answers. The table itself is ./methods-interim.ts (to become
// src/protocol's); this is the one place the clients import it from.

import type { Method, Methods } from './methods-interim.js';

export type { Method, Methods } from './methods-interim.js';
export type * from './methods-interim.js';
export { METHOD_NAMES, REMOTE_ERROR_CODES } from './methods-interim.js';

export type Params<M extends Method> = Methods[M]['params'];
export type Result<M extends Method> = Methods[M]['result'];
/** The params argument: optional when every param is. */
export type ParamsArg<M extends Method> = {} extends Params<M> ? [params?: Params<M>] : [params: Params<M>];

/** Anything that makes typed calls: a connection (Client) or a session that reconnects. */
export interface Caller {
  call<M extends Method>(method: M, ...params: ParamsArg<M>): Promise<Result<M>>;
}
