// The reading half every JSON-RPC agent protocol shares: its lines told
// apart (frames.ts), each handed to the dialect's own reader of that kind —
// the answers to orcr's requests, the agent's requests (an approval), its
// notifications — and what breaks the protocol made known to the run:
// a line that is no JSON-RPC message, an answer to no request orcr made, a
// request orcr does not serve (answered with the JSON-RPC error the spec
// names, so the agent does not wait for it). The dialect (codex-app.ts,
// acp.ts) says what each message means; nothing here knows a method.

import type { ExtendedSignal, Signal } from '../signals.js';
import { RPC_ERRORS, readFrame, type RpcId } from './frames.js';
import { guarded, type JsonObject } from '../util.js';
import type { ExtendedAdapter } from '../signals.js';

/** What one frame became: signals, or null when the dialect does not know it (the adapter says so). */
type Read = ExtendedSignal[] | null;

export interface RpcDialect {
  /** One message as the line the agent reads (with or without `"jsonrpc": "2.0"`), newline included. */
  write(message: JsonObject): string;
  /** An answer to one of orcr's requests; null: orcr made no request of that id. */
  result(id: RpcId, result: unknown): Read;
  /** An error answer to one of orcr's requests (`id` null: the agent could not read one); null: none of orcr's. */
  error(id: RpcId | null, e: { code: number | null; message: string; data: unknown }): Read;
  /** The agent's requests orcr serves, by method; a handler's null: its params cannot be read (answered invalid params). */
  requests: Readonly<Record<string, (id: RpcId, params: unknown) => Read>>;
  /** The agent's notifications orcr reads, by method; any other is let pass (the spec lets a client ignore them). */
  notifications: Readonly<Record<string, (params: unknown) => Read>>;
  /** A notification read from its line's text without parsing it (one whose head says all that matters), or null to parse it; its params begin at `at`. */
  peek?(method: string, text: string, at: number): ExtendedSignal[] | null;
  /** The answer to this request id of orcr's needs no reading (it is read no further than its head). */
  ignoresResult?(id: string): boolean;
  /** An answer to this request id of orcr's read from its line's text without parsing it, or null to parse it. */
  peekResult?(id: string, text: string): ExtendedSignal[] | null;
  /** The process exited: what the dialect held back. */
  end?(): ExtendedSignal[];
}

/**
 * A notification's head as the agents print it: its method, then its params
 * (no id before them), with or without `"jsonrpc"` first. Its strings are
 * JSON strings as they stand (no escape, no control character), so the head
 * and an object after it that parses are the message itself (valueEnd).
 */
const NOTIFICATION_HEAD = /^\{(?:"jsonrpc":"2\.0",)?"method":"([^"\\\u0000-\u001f]+)","params":/;

/** A request's head as ACP's agents print it: its id (a number or a string), its method, then its params. */
const REQUEST_HEAD = /^\{(?:"jsonrpc":"2\.0",)?"id":(?:(0|[1-9]\d{0,14})|"([^"\\\u0000-\u001f]+)"),"method":"([^"\\\u0000-\u001f]+)","params":/;

/** An answer's head as the agents print it: a string id, then its result. */
const RESULT_HEAD = /^\{(?:"jsonrpc":"2\.0",)?"id":"([^"\\\u0000-\u001f]+)","result":/;

/** The longest piece of a broken line a protocol error quotes. */
const QUOTE = 80;

export function createRpcAdapter(dialect: RpcDialect): ExtendedAdapter {
  const refuse = (id: RpcId | null, code: number, message: string): Signal => ({
    kind: 'reply',
    line: dialect.write({ id, error: { code, message } }),
  });
  const broke = (message: string): Signal => ({ kind: 'protocol_error', message, fatal: false });

  /**
   * A line read from its head, not parsed whole: a notification orcr lets
   * pass (Codex's message deltas: most of its lines), one the dialect reads
   * from its head, an answer whose content does not matter (a turn started:
   * its notifications say the rest) — or their params or result alone parsed,
   * the envelope known already. Only where nothing but plain members follows
   * them (no id: a request may print its id last); null: read it whole.
   */
  function fromHead(text: string): ExtendedSignal[] | null {
    const head = NOTIFICATION_HEAD.exec(text);
    const answered = head ? null : RESULT_HEAD.exec(text);
    const asked = head || answered ? null : REQUEST_HEAD.exec(text);
    const at = (head ?? answered ?? asked)?.[0].length;
    const end = at === undefined ? -1 : valueEnd(text, at);
    if (end < 0) return null;
    if (head) {
      const method = head[1]!;
      if (!Object.hasOwn(dialect.notifications, method)) return [];
      const quick = dialect.peek?.(method, text, at!);
      if (quick) return quick;
      const params = parsed(text, at!, end);
      return params === NONE ? null : (dialect.notifications[method]!(params) ?? []);
    }
    if (asked) {
      const params = parsed(text, at!, end);
      return params === NONE ? null : request(asked[1] !== undefined ? Number(asked[1]) : asked[2]!, asked[3]!, params);
    }
    const id = answered![1]!;
    if (dialect.ignoresResult?.(id)) return [];
    const quick = dialect.peekResult?.(id, text);
    if (quick) return quick;
    const result = parsed(text, at!, end);
    if (result === NONE) return null;
    return dialect.result(id, result) ?? [broke(`an answer to no request of orcr's (id ${quote(JSON.stringify(id))})`)];
  }

  /** One of the agent's requests: served by the dialect, or answered with the error the spec names so the agent does not wait. */
  function request(id: RpcId, method: string, params: unknown): ExtendedSignal[] {
    const serve = Object.hasOwn(dialect.requests, method) ? dialect.requests[method]! : null;
    if (!serve) return [broke(`the agent asked for ${quote(method)}, which orcr does not serve`), refuse(id, RPC_ERRORS.methodNotFound, 'Method not found')];
    return serve(id, params) ?? [broke(`a ${quote(method)} request orcr cannot read`), refuse(id, RPC_ERRORS.invalidParams, 'Invalid params')];
  }

  function line(text: string): ExtendedSignal[] {
    const quick = fromHead(text);
    if (quick) return quick;
    const frame = readFrame(text);
    if (frame === null) {
      // Text that does not even try to be JSON is no frame: kept as output (a CLI's stray print).
      if (!text.trimStart().startsWith('{')) return [{ kind: 'output', line: text }];
      return [broke(`a frame that is not JSON (cut, or malformed): ${quote(text)}`), refuse(null, RPC_ERRORS.parse, 'Parse error')];
    }
    switch (frame.type) {
      case 'request':
        return request(frame.id, frame.method, frame.params);
      case 'notification': {
        const take = Object.hasOwn(dialect.notifications, frame.method) ? dialect.notifications[frame.method]! : null;
        return take?.(frame.params) ?? [];
      }
      case 'result':
        return dialect.result(frame.id, frame.result) ?? [broke(`an answer to no request of orcr's (id ${quote(JSON.stringify(frame.id))})`)];
      case 'error':
        return (
          dialect.error(frame.id, frame) ?? [broke(`an error answer to no request of orcr's (id ${quote(JSON.stringify(frame.id))}): ${quote(frame.message)}`)]
        );
      case 'invalid':
        return [broke(`a frame that is no JSON-RPC message (${frame.why}): ${quote(text)}`), refuse(frame.id, RPC_ERRORS.invalidRequest, 'Invalid Request')];
    }
  }

  return guarded<ExtendedSignal, ExtendedAdapter>({ line, end: () => dialect.end?.() ?? [] });
}

const NONE = Symbol('none');

/**
 * What may follow a message's params or result, its last object: members
 * with plain values (Codex's `emittedAtMs`), none of JSON-RPC's own (an id
 * there makes the message a request; an error, an error answer), then the
 * message's end. Sticky: tried from the last `}` but the final one.
 */
const TAIL =
  /(?:,"(?!(?:id|method|params|result|error)")[^"\\{}[\]\u0000-\u001f]+":(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|"[^"\\{}[\]\u0000-\u001f]*"))*\}$/y;

/**
 * Where the object that begins at `at` (the params or result the head
 * named) ends, when only TAIL follows it; -1 when the line may hold more (an
 * id after the params, an object after them, a cut line): read it whole.
 */
function valueEnd(text: string, at: number): number {
  const last = text.length - 1;
  if (text.charCodeAt(at) !== 0x7b /* { */ || text.charCodeAt(last) !== 0x7d /* } */) return -1;
  const end = text.lastIndexOf('}', last - 1);
  if (end < at) return -1;
  if (end === last - 1) return end;
  TAIL.lastIndex = end + 1;
  return TAIL.test(text) ? end : -1;
}

/** The object from `at` to `end`, or NONE when it does not parse (a cut or malformed line: read whole, it says what is wrong). */
function parsed(text: string, at: number, end: number): unknown {
  try {
    return JSON.parse(text.slice(at, end + 1)) as unknown;
  } catch {
    return NONE;
  }
}

/** A piece of what the agent sent, short and on one line, for a message a person reads. */
function quote(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return flat.length > QUOTE ? `${flat.slice(0, QUOTE)}…` : flat;
}
