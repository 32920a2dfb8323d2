// JSON-RPC 2.0 over stdio as MCP frames it: one message per line, no
// Content-Length. Requests are answered as they finish, not in order: a
// `wait` that takes minutes must not hold up a `show`.

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

export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;

export type Handler = (params: Record<string, unknown>) => Promise<unknown> | unknown;

/** Serve `methods` until the input ends; notifications (no id) go to `onNotification`, unanswered. */
export function serveJsonRpc(input: Readable, output: Writable, methods: Readonly<Record<string, Handler>>, onNotification: (method: string) => void = () => undefined): Promise<void> {
  const send = (msg: object): void => {
    output.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
  };
  const rl = createInterface({ input, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    let msg: { id?: Id | null; method?: unknown; params?: unknown };
    try {
      msg = JSON.parse(line);
    } catch {
      send({ id: null, error: { code: -32700, message: 'parse error: each line must be one JSON-RPC message' } });
      return;
    }
    const hasId = msg.id !== undefined && msg.id !== null;
    if (typeof msg.method !== 'string') {
      // A response to a request of ours: we make none.
      if (hasId && !('result' in msg || 'error' in msg)) send({ id: msg.id, error: { code: -32600, message: 'invalid request: no method' } });
      return;
    }
    if (!hasId) {
      onNotification(msg.method);
      return;
    }
    const handler = Object.hasOwn(methods, msg.method) ? methods[msg.method] : undefined;
    const params = (msg.params && typeof msg.params === 'object' ? msg.params : {}) as Record<string, unknown>;
    void (async () => {
      if (!handler) throw new RpcError(METHOD_NOT_FOUND, `method not found: ${msg.method}`);
      return handler(params);
    })().then(
      (result) => send({ id: msg.id, result }),
      (e: unknown) => send({ id: msg.id, error: e instanceof RpcError ? { code: e.code, message: e.message } : { code: -32603, message: (e as Error)?.message ?? String(e) } }),
    );
  });
  // The client is gone once its input ends: what is still in flight has no one to answer to.
  return new Promise((resolve) => rl.once('close', () => resolve()));
}
