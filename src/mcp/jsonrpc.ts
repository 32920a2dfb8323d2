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

export type Id = string | number;

/** A failure the client caused, answered as a JSON-RPC error (anything else thrown is -32603). */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

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

/** Serve `methods` until the input ends. */
export function serveJsonRpc(input: Readable, output: Writable, methods: Readonly<Record<string, Handler>>, opts: ServeOptions = {}): Promise<void> {
  const write = (msg: unknown): void => {
    output.write(JSON.stringify(msg) + '\n');
  };
  const notify = (method: string, params: Record<string, unknown>): void => write({ jsonrpc: '2.0', method, params });
  /** Requests in flight by id, with how to stop them. */
  const inFlight = new Map<Id, { method: string; stop: AbortController }>();

  /** One message: its response, or null when none is due (a notification, a response, a cancelled request). */
  async function handle(msg: unknown, inBatch: boolean): Promise<Response | null> {
    if (!isObject(msg)) return failure(null, INVALID_REQUEST, 'invalid request: a message is a JSON-RPC object ({"jsonrpc":"2.0","method":…})');
    const hasId = 'id' in msg;
    if (hasId && !isId(msg.id)) return failure(null, INVALID_REQUEST, 'invalid request: "id" must be a string or a number');
    const id = hasId ? (msg.id as Id) : null;
    if (msg.jsonrpc !== '2.0') return failure(id, INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"');
    if (typeof msg.method !== 'string') {
      // A response to a request of ours: we make none.
      if ('result' in msg || 'error' in msg) return null;
      return failure(id, INVALID_REQUEST, 'invalid request: no "method"');
    }
    if ('params' in msg && msg.params !== undefined && typeof msg.params !== 'object')
      return failure(id, INVALID_REQUEST, 'invalid request: "params" must be an object');
    if (Array.isArray(msg.params)) return hasId ? failure(id, INVALID_PARAMS, 'invalid params: give them by name, as an object') : null;
    const params = (msg.params ?? {}) as Record<string, unknown>;
    if (!hasId) {
      if (msg.method === 'notifications/cancelled') {
        const target = isId(params.requestId) ? inFlight.get(params.requestId) : undefined;
        // A request that is done, unknown or may not be cancelled: nothing to do (the spec: ignore it).
        if (target && !(opts.uncancellable ?? []).includes(target.method)) target.stop.abort(new RpcError(INTERNAL_ERROR, 'cancelled by the client'));
      } else opts.onNotification?.(msg.method, params);
      return null;
    }
    const handler = Object.hasOwn(methods, msg.method) ? methods[msg.method] : undefined;
    if (!handler) return failure(id, METHOD_NOT_FOUND, `method not found: ${msg.method}`);
    const stop = new AbortController();
    inFlight.set(id!, { method: msg.method, stop });
    const meta = params._meta;
    const token = isObject(meta) && isId(meta.progressToken) ? meta.progressToken : undefined;
    try {
      const result = await handler(params, { signal: stop.signal, progressToken: token, inBatch, notify });
      return stop.signal.aborted ? null : { jsonrpc: '2.0', id, result };
    } catch (e) {
      if (stop.signal.aborted) return null;
      return e instanceof RpcError ? failure(id, e.code, e.message) : failure(id, INTERNAL_ERROR, (e as Error)?.message ?? String(e));
    } finally {
      if (inFlight.get(id!)?.stop === stop) inFlight.delete(id!);
    }
  }

  const rl = createInterface({ input, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      write(failure(null, PARSE_ERROR, 'parse error: each line must be one JSON-RPC message'));
      return;
    }
    if (!Array.isArray(msg)) {
      void handle(msg, false).then((r) => r && write(r));
      return;
    }
    if (!(opts.batches?.() ?? false)) {
      write(
        failure(
          null,
          INVALID_REQUEST,
          'invalid request: a batch (an array) is not part of this protocol version (MCP has batches in 2025-03-26 only): send one message per line',
        ),
      );
      return;
    }
    if (msg.length === 0) {
      write(failure(null, INVALID_REQUEST, 'invalid request: an empty batch'));
      return;
    }
    // One answer for the batch, once all of it is done; none when nothing in it is due one.
    void Promise.all(msg.map((m) => handle(m, true))).then((rs) => {
      const answers = rs.filter((r): r is Response => r !== null);
      if (answers.length > 0) write(answers);
    });
  });
  // The client is gone once its input ends: what is still in flight has no one to answer to.
  return new Promise((resolve) =>
    rl.once('close', () => {
      for (const { stop } of inFlight.values()) stop.abort(new RpcError(INTERNAL_ERROR, 'the client went away'));
      resolve();
    }),
  );
}
