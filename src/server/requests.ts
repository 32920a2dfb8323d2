// One request line from a client to its answer: refused before parsing when
// nested too deep, parsed, `hello` answered at once, every other method only
// after it, dispatched by the method table with its parameters parsed by the
// method's schema, writes refused while the journal cannot be written, and a
// failure answered with its code. Knows no method by name but `hello`. A call
// on another machine's runs is forwarded there (`forward`, cluster-calls.ts)
// once its params are parsed; a command from another machine comes through
// `answerCommand`, the same dispatch with the same checks and errors.

import { z } from 'zod';
import { RemoteError } from '../protocol/errors.js';
import type { ErrorBody } from '../protocol/errors.js';
import { isMethodName, METHODS, parseParams, WRITES, type MethodName } from '../protocol/methods.js';
import { MAX_NESTING } from '../protocol/wire.js';
import { nestedDeeperThan } from '../text/json-depth.js';
import { reply, type Conn } from './conn.js';
import { leadingId } from './frames.js';
import type { Handler, HandlerContext, Handlers } from './handlers/index.js';
import type { Feed } from './subscriber-feed.js';

/** A call carried out on another machine (its result), or one that stays here with its params rewritten (run --after HOST:RUN), or undefined: here as it is. */
export type Forwarded = Promise<{ result: unknown } | { params: Record<string, unknown> } | undefined>;

export interface RequestDeps {
  /** The mode (writes refused while degraded) and how a journal fault is absorbed. */
  feed: Pick<Feed, 'lifecycle' | 'absorbs'>;
  handlers: Handlers;
  log: (m: string) => void;
  /** What a handler is given for the connection it answers. */
  contextOf: (conn: Conn) => HandlerContext;
  /** A call on another machine's runs, carried there: its answer; undefined (at once) when the call is this machine's. */
  forward?: (method: MethodName, params: Record<string, unknown>, signal: AbortSignal) => Forwarded | undefined;
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
    const ctx = deps.contextOf(conn);
    reply(conn, id, null, await dispatch(deps, method, params, ctx, (p) => deps.forward?.(method, p, ctx.conn.signal)));
  } catch (e) {
    reply(conn, id, failureBody(deps, method, e));
  }
}

/**
 * A command another machine sent (cluster-inbox.ts): dispatched as a socket
 * request is — params parsed by the method's schema, writes refused while
 * the journal cannot be written, the same handler — and never forwarded on.
 */
export async function answerCommand(
  deps: Pick<RequestDeps, 'feed' | 'handlers' | 'log'>,
  method: MethodName,
  params: Record<string, unknown>,
  ctx: HandlerContext,
): Promise<{ result: unknown } | { error: ErrorBody }> {
  try {
    return { result: await dispatch(deps, method, params, ctx, () => undefined) };
  } catch (e) {
    return { error: failureBody(deps, method, e) };
  }
}

// Async even for a handler that answers at once: its answer, or its
// refusal of bad parameters, comes a turn later, after the answers of the
// requests before it in the same chunk, as clients that pipeline expect.
async function dispatch<M extends MethodName>(
  deps: Pick<RequestDeps, 'feed' | 'handlers'>,
  method: M,
  raw: Record<string, unknown>,
  ctx: HandlerContext,
  forward: (parsed: Record<string, unknown>) => Forwarded | undefined,
): Promise<unknown> {
  let params = parseParams(method, raw);
  // Before the journal's state is asked: another machine's journal is not this one's.
  const away = await forward(params);
  if (away && 'result' in away) return away.result;
  if (away) params = away.params as typeof params;
  // `--host` that no forward took: this machine's own name, or no cluster to find the machine in.
  const onHost = METHODS[method].remote?.host;
  const named = onHost === undefined ? undefined : (params as Record<string, unknown>)[onHost];
  if (named !== undefined && named !== ctx.cluster()?.host) {
    throw new RemoteError('usage', `${JSON.stringify(named)} names a machine of a cluster, and this supervisor is not in one (config.json has no "cluster")`);
  }
  const { degraded } = deps.feed.lifecycle;
  if (degraded !== null && WRITES.has(method)) {
    throw new RemoteError('unavailable', `the journal cannot be written (${degraded}); orcr starts and changes nothing until it can`);
  }
  const handler = deps.handlers[method] as Handler<M>;
  return handler(params, ctx);
}

function failureBody(deps: Pick<RequestDeps, 'feed' | 'log'>, method: string, e: unknown): ErrorBody {
  if (deps.feed.absorbs(e)) return { code: 'unavailable', message: `the journal cannot be written (${e.message}); nothing was changed` };
  if (e instanceof RemoteError) return { code: e.code, message: e.message };
  if (e instanceof z.ZodError) {
    const issue = e.issues[0]!;
    return { code: 'usage', message: `${issue.path.join('.') || 'params'}: ${issue.message}` };
  }
  deps.log(`internal error in ${method}: ${(e as Error).stack}`);
  return { code: 'internal', message: (e as Error).message };
}
