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
  /** A notification read from its line's text without parsing it (one whose head says all that matters), or null to parse it. */
  peek?(method: string, text: string): ExtendedSignal[] | null;
  /** The answer to this request id of orcr's needs no reading (it is read no further than its head). */
  ignoresResult?(id: string): boolean;
  /** An answer to this request id of orcr's read from its line's text without parsing it, or null to parse it. */
  peekResult?(id: string, text: string): ExtendedSignal[] | null;
  /** The process exited: what the dialect held back. */
  end?(): ExtendedSignal[];
}

/** A notification's head as the agents print it: its method, then its params (no id before them), with or without `"jsonrpc"` first. */
const NOTIFICATION_HEAD = /^\{(?:"jsonrpc":"2\.0",)?"method":"([^"\\]{1,100})","params":/;

/** An answer's head as the agents print it: a string id, then its result. */
const RESULT_HEAD = /^\{(?:"jsonrpc":"2\.0",)?"id":"([^"\\]{1,200})","result":/;

/** The longest piece of a broken line a protocol error quotes. */
const QUOTE = 80;

export function createRpcAdapter(dialect: RpcDialect): ExtendedAdapter {
  const refuse = (id: RpcId | null, code: number, message: string): Signal => ({
    kind: 'reply',
    line: dialect.write({ id, error: { code, message } }),
  });
  const broke = (message: string): Signal => ({ kind: 'protocol_error', message, fatal: false });

  function line(text: string): ExtendedSignal[] {
    // A notification orcr lets pass (Codex's message deltas: most of its lines) is known from its head, and not parsed.
    const head = NOTIFICATION_HEAD.exec(text);
    if (head) {
      if (!Object.hasOwn(dialect.notifications, head[1]!)) return [];
      const quick = dialect.peek?.(head[1]!, text);
      if (quick) return quick;
    }
    // So is an answer to one of orcr's requests whose content does not matter (a turn started: its notifications say the rest).
    const answered = head ? null : RESULT_HEAD.exec(text);
    if (answered) {
      if (dialect.ignoresResult?.(answered[1]!)) return [];
      const quick = dialect.peekResult?.(answered[1]!, text);
      if (quick) return quick;
    }
    const frame = readFrame(text);
    if (frame === null) {
      // Text that does not even try to be JSON is no frame: kept as output (a CLI's stray print).
      if (!text.trimStart().startsWith('{')) return [{ kind: 'output', line: text }];
      return [broke(`a frame that is not JSON (cut, or malformed): ${quote(text)}`), refuse(null, RPC_ERRORS.parse, 'Parse error')];
    }
    switch (frame.type) {
      case 'request': {
        const serve = Object.hasOwn(dialect.requests, frame.method) ? dialect.requests[frame.method]! : null;
        if (!serve)
          return [
            broke(`the agent asked for ${quote(frame.method)}, which orcr does not serve`),
            refuse(frame.id, RPC_ERRORS.methodNotFound, 'Method not found'),
          ];
        const read = serve(frame.id, frame.params);
        if (read) return read;
        return [broke(`a ${quote(frame.method)} request orcr cannot read`), refuse(frame.id, RPC_ERRORS.invalidParams, 'Invalid params')];
      }
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

/** A piece of what the agent sent, short and on one line, for a message a person reads. */
function quote(text: string): string {
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return flat.length > QUOTE ? `${flat.slice(0, QUOTE)}…` : flat;
}
