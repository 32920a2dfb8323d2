// JSON-RPC 2.0 over stdio as MCP frames it: one message per line, no
// Content-Length. Requests are answered as they finish, not in order: a
// `wait` that takes minutes must not hold up a `show`. Whatever a line holds,
// it is answered as the spec says and never ends the server: a line that is
// no request object is an Invalid Request; a batch (an array) is answered as
// one where the protocol version has them (MCP 2025-03-26 only) and refused
// elsewhere; `notifications/cancelled` stops a request, which then gets no
// answer.

import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

type Id = string | number;

/** A failure the client caused, answered as a JSON-RPC error (anything else thrown is -32603). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
const INTERNAL_ERROR = -32603;

/** What a handler gets besides its params. */
export interface CallContext {
  /** Aborted when the client cancels the request (notifications/cancelled) or its input ends. */
  signal: AbortSignal;
  /** The request's params._meta.progressToken, if the client wants progress. */
  progressToken: Id | undefined;
  /** The request came in a batch. */
  inBatch: boolean;
  /** Send the client a notification. */
  notify(method: string, params: Record<string, unknown>): void;
}

export type Handler = (params: Record<string, unknown>, ctx: CallContext) => Promise<unknown> | unknown;

export interface ServeOptions {
  /** Notifications (no id) other than notifications/cancelled; unanswered. */
  onNotification?: (method: string, params: Record<string, unknown>) => void;
  /** Whether a batch is answered now (the negotiated protocol version has them). */
  batches?: () => boolean;
  /** Requests that cannot be cancelled (the spec: initialize). */
  uncancellable?: readonly string[];
}

type Response = { jsonrpc: '2.0'; id: Id | null; result?: unknown; error?: { code: number; message: string } };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is Id => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
const failure = (id: Id | null, code: number, message: string): Response => ({ jsonrpc: '2.0', id, error: { code, message } });

/** A message that is a request or a notification, as `check` reads it. */
interface Message {
  /** Null for a notification. */
  id: Id | null;
  method: string;
  params: Record<string, unknown>;
}

/** The message checked: a request or notification, or the response it gets (null: none is due). */
function check(msg: unknown): Message | { response: Response | null } {
  const refuse = (id: Id | null, code: number, message: string): { response: Response } => ({ response: failure(id, code, message) });
  if (!isObject(msg)) return refuse(null, INVALID_REQUEST, 'invalid request: a message is a JSON-RPC object ({"jsonrpc":"2.0","method":…})');
  const hasId = 'id' in msg;
  if (hasId && !isId(msg.id)) return refuse(null, INVALID_REQUEST, 'invalid request: "id" must be a string or a number');
  const id = hasId ? (msg.id as Id) : null;
  if (msg.jsonrpc !== '2.0') return refuse(id, INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"');
  if (typeof msg.method !== 'string') {
    // A response to a request of ours: we make none.
    if ('result' in msg || 'error' in msg) return { response: null };
    return refuse(id, INVALID_REQUEST, 'invalid request: no "method"');
  }
  if ('params' in msg && msg.params !== undefined && typeof msg.params !== 'object')
    return refuse(id, INVALID_REQUEST, 'invalid request: "params" must be an object');
  if (Array.isArray(msg.params)) return hasId ? refuse(id, INVALID_PARAMS, 'invalid params: give them by name, as an object') : { response: null };
  return { id, method: msg.method, params: (msg.params ?? {}) as Record<string, unknown> };
}

class JsonRpcServer {
  /** Requests in flight by id, with how to stop them. */
  readonly inFlight = new Map<Id, { method: string; stop: AbortController }>();

  constructor(
    private readonly output: Writable,
    private readonly methods: Readonly<Record<string, Handler>>,
    private readonly opts: ServeOptions,
  ) {}

  write(msg: unknown): void {
    this.output.write(JSON.stringify(msg) + '\n');
  }

  private readonly notify = (method: string, params: Record<string, unknown>): void => this.write({ jsonrpc: '2.0', method, params });

  /** One line of input: a message or a batch of them, each answered as the spec says. */
  line(line: string): void {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.write(failure(null, PARSE_ERROR, 'parse error: each line must be one JSON-RPC message'));
      return;
    }
    if (!Array.isArray(msg)) void this.handle(msg, false).then((r) => r && this.write(r));
    else this.batch(msg);
  }

  private batch(msgs: unknown[]): void {
    if (!(this.opts.batches?.() ?? false)) {
      this.write(
        failure(
          null,
          INVALID_REQUEST,
          'invalid request: a batch (an array) is not part of this protocol version (MCP has batches in 2025-03-26 only): send one message per line',
        ),
      );
      return;
    }
    if (msgs.length === 0) {
      this.write(failure(null, INVALID_REQUEST, 'invalid request: an empty batch'));
      return;
    }
    // One answer for the batch, once all of it is done; none when nothing in it is due one.
    void Promise.all(msgs.map((m) => this.handle(m, true))).then((rs) => {
      const answers = rs.filter((r): r is Response => r !== null);
      if (answers.length > 0) this.write(answers);
    });
  }

  /** One message: its response, or null when none is due (a notification, a response, a cancelled request). */
  private async handle(raw: unknown, inBatch: boolean): Promise<Response | null> {
    const msg = check(raw);
    if ('response' in msg) return msg.response;
    const { id, method, params } = msg;
    if (id === null) {
      this.notification(method, params);
      return null;
    }
    const handler = Object.hasOwn(this.methods, method) ? this.methods[method] : undefined;
    if (!handler) return failure(id, METHOD_NOT_FOUND, `method not found: ${method}`);
    const stop = new AbortController();
    this.inFlight.set(id, { method, stop });
    const meta = params._meta;
    const token = isObject(meta) && isId(meta.progressToken) ? meta.progressToken : undefined;
    try {
      const result = await handler(params, { signal: stop.signal, progressToken: token, inBatch, notify: this.notify });
      return stop.signal.aborted ? null : { jsonrpc: '2.0', id, result };
    } catch (e) {
      if (stop.signal.aborted) return null;
      return e instanceof RpcError ? failure(id, e.code, e.message) : failure(id, INTERNAL_ERROR, (e as Error)?.message ?? String(e));
    } finally {
      if (this.inFlight.get(id)?.stop === stop) this.inFlight.delete(id);
    }
  }

  private notification(method: string, params: Record<string, unknown>): void {
    if (method !== 'notifications/cancelled') {
      this.opts.onNotification?.(method, params);
      return;
    }
    const target = isId(params.requestId) ? this.inFlight.get(params.requestId) : undefined;
    // A request that is done, unknown or may not be cancelled: nothing to do (the spec: ignore it).
    if (target && !(this.opts.uncancellable ?? []).includes(target.method)) target.stop.abort(new RpcError(INTERNAL_ERROR, 'cancelled by the client'));
  }
}

/** Serve `methods` until the input ends. */
export function serveJsonRpc(input: Readable, output: Writable, methods: Readonly<Record<string, Handler>>, opts: ServeOptions = {}): Promise<void> {
  const server = new JsonRpcServer(output, methods, opts);
  const rl = createInterface({ input, crlfDelay: Infinity });
  rl.on('line', (line) => server.line(line));
  // The client is gone once its input ends: what is still in flight has no one to answer to.
  return new Promise((resolve) =>
    rl.once('close', () => {
      for (const { stop } of server.inFlight.values()) stop.abort(new RpcError(INTERNAL_ERROR, 'the client went away'));
      resolve();
    }),
  );
}
