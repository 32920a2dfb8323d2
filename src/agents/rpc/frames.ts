// JSON-RPC as the two-way agent protocols speak it (Codex's app-server
// without the "jsonrpc" member, ACP with it): one message a line, told apart
// by its members — a request has a method and an id, a notification a method
// and no id, a response an id and a result or an error. Pure.

import { isObject, parseObject, type JsonObject } from '../util.js';

export type RpcId = string | number;

export type RpcFrame =
  | { type: 'request'; id: RpcId; method: string; params: unknown }
  | { type: 'notification'; method: string; params: unknown }
  | { type: 'result'; id: RpcId; result: unknown }
  | { type: 'error'; id: RpcId | null; code: number | null; message: string; data: unknown }
  /** JSON, but no message of the protocol: what is wrong with it. */
  | { type: 'invalid'; why: string; id: RpcId | null };

/** A line as a frame; null for a line that is not a JSON object at all (not the protocol: kept as output). */
export function readFrame(line: string): RpcFrame | null {
  const obj = parseObject(line);
  return obj ? frameOf(obj) : null;
}

function frameOf(obj: JsonObject): RpcFrame {
  const id = idOf(obj.id);
  const hasId = Object.hasOwn(obj, 'id') && obj.id !== null;
  if (typeof obj.method === 'string') {
    if (!hasId) return { type: 'notification', method: obj.method, params: obj.params };
    if (id === null) return { type: 'invalid', why: `a request whose id is no string or number (${typeof obj.id})`, id: null };
    return { type: 'request', id, method: obj.method, params: obj.params };
  }
  if (Object.hasOwn(obj, 'error')) {
    const e = obj.error;
    if (!isObject(e)) return { type: 'error', id, code: null, message: typeof e === 'string' ? e : 'an error without a message', data: null };
    return {
      type: 'error',
      id,
      code: typeof e.code === 'number' ? e.code : null,
      message: typeof e.message === 'string' ? e.message : 'an error without a message',
      data: e.data ?? null,
    };
  }
  if (Object.hasOwn(obj, 'result')) {
    if (id === null) return { type: 'invalid', why: 'a result without an id', id: null };
    return { type: 'result', id, result: obj.result };
  }
  return { type: 'invalid', why: 'neither a request, a notification nor a response', id };
}

function idOf(v: unknown): RpcId | null {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) ? v : null;
}

/**
 * An agent's request id as an approval's `ref` (the journal keeps strings):
 * its JSON, so `7` and `"7"` stay apart, after the number of the agent
 * process's attempt — an agent's ids are its process's own (Codex counts
 * from 0 in each), and a run's next attempt must not read as the last one's
 * request read again.
 */
export function refOf(id: RpcId, attempt: number): string {
  return `${attempt}:${JSON.stringify(id)}`;
}

/** The id an approval's `ref` names, or null for a ref that is none. */
export function idOfRef(ref: string): RpcId | null {
  const m = /^\d+:(.*)$/s.exec(ref);
  if (!m) return null;
  try {
    return idOf(JSON.parse(m[1]!));
  } catch {
    return null;
  }
}

/** The standard codes (JSON-RPC 2.0, section 5.1). */
export const RPC_ERRORS = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const;
