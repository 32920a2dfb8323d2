// One request line from a client to its answer: refused before parsing when
// nested too deep, parsed, `hello` answered at once, every other method only
// after it, dispatched by the method table with its parameters parsed by the
// method's schema, writes refused while the journal cannot be written, and a
// failure answered with its code. Knows no method by name but `hello`.

import { z } from 'zod';
import { RemoteError } from '../protocol/errors.js';
import { isMethodName, parseParams, WRITES, type MethodName } from '../protocol/methods.js';
import { MAX_NESTING } from '../protocol/wire.js';
import { nestedDeeperThan } from '../text/json-depth.js';
import { reply, type Conn } from './conn.js';
import { leadingId } from './frames.js';
import type { Handler, HandlerContext, Handlers } from './handlers/index.js';
import type { Feed } from './subscriber-feed.js';

export interface RequestDeps {
  /** The mode (writes refused while degraded) and how a journal fault is absorbed. */
  feed: Pick<Feed, 'lifecycle' | 'absorbs'>;
  handlers: Handlers;
  log: (m: string) => void;
  /** What a handler is given for the connection it answers. */
  contextOf: (conn: Conn) => HandlerContext;
}

/** A request as it came: its id, method and params, or the refusal to answer when it is not one. */
type Parsed = { id: number | null; method: string; params: Record<string, unknown> } | { id: number | null; refusal: string };

function parseRequest(line: string): Parsed {
  // Refused before parsing: the parser, zod and every reader after them recurse.
  if (nestedDeeperThan(line, MAX_NESTING)) return { id: leadingId(line), refusal: `the request is nested more than ${MAX_NESTING} levels deep` };
  let msg: { id?: unknown; method?: unknown; params?: unknown };
  try {
    msg = JSON.parse(line);
  } catch {
    return { id: null, refusal: 'not JSON' };
  }
  const id = typeof msg?.id === 'number' ? msg.id : null;
  if (!msg || typeof msg !== 'object' || typeof msg.method !== 'string') return { id, refusal: 'a request needs "id" and "method"' };
  const params = (msg.params && typeof msg.params === 'object' ? msg.params : {}) as Record<string, unknown>;
  return { id, method: msg.method, params };
}

export async function handleRequest(deps: RequestDeps, conn: Conn, line: string): Promise<void> {
  const req = parseRequest(line);
  if ('refusal' in req) {
    reply(conn, req.id, { code: 'usage', message: req.refusal });
    return;
  }
  const { id, method, params } = req;
  const { lifecycle } = deps.feed;
  try {
    if (method === 'hello') {
      // At once, not after a turn: the next request may be in the same chunk.
      const result = deps.handlers.hello(parseParams('hello', params), deps.contextOf(conn));
      conn.flow.greet();
      reply(conn, id, null, result);
      return;
    }
    if (!conn.flow.greeted) throw new RemoteError('version', 'say hello first');
    if (!isMethodName(method)) throw new RemoteError('usage', `unknown method "${method}"`);
    if (lifecycle.degraded !== null && WRITES.has(method)) {
      throw new RemoteError('unavailable', `the journal cannot be written (${lifecycle.degraded}); orcr starts and changes nothing until it can`);
    }
    reply(conn, id, null, await dispatch(deps.handlers, method, params, deps.contextOf(conn)));
  } catch (e) {
    answerFailure(deps, conn, id, method, e);
  }
}

// Async even for a handler that answers at once: its answer, or its
// refusal of bad parameters, comes a turn later, after the answers of the
// requests before it in the same chunk, as clients that pipeline expect.
async function dispatch<M extends MethodName>(handlers: Handlers, method: M, raw: Record<string, unknown>, ctx: HandlerContext): Promise<unknown> {
  const handler = handlers[method] as Handler<M>;
  return handler(parseParams(method, raw), ctx);
}

function answerFailure(deps: RequestDeps, conn: Conn, id: number | null, method: string, e: unknown): void {
  if (deps.feed.absorbs(e)) reply(conn, id, { code: 'unavailable', message: `the journal cannot be written (${e.message}); nothing was changed` });
  else if (e instanceof RemoteError) reply(conn, id, { code: e.code, message: e.message });
  else if (e instanceof z.ZodError) {
    const issue = e.issues[0]!;
    reply(conn, id, { code: 'usage', message: `${issue.path.join('.') || 'params'}: ${issue.message}` });
  } else {
    deps.log(`internal error in ${method}: ${(e as Error).stack}`);
    reply(conn, id, { code: 'internal', message: (e as Error).message });
  }
}
