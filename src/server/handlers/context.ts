// What a handler gets: its parsed parameters, and this context — the
// supervisor, the home, its own connection and the server's few controls.

import type { Home } from '../../config/home.js';
import type { MethodName, ParsedParamsOf, ResultOf } from '../../protocol/methods.js';
import type { Supervisor } from '../supervisor.js';

export interface HandlerContext {
  supervisor: Supervisor;
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
