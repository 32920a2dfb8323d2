// An ACP agent (Agent Client Protocol: JSON-RPC 2.0 lines; `gemini --acp`)
// → signals. orcr is its client: its requests' ids say what they were for
// (ids.ts). The session's answer opens it (`opened`: orcr then sends the
// first prompt); a prompt's answer (its stopReason) ends the turn; the
// `session/update` notifications between are the turn's work — the agent's
// words (chunks, gathered into one message until a tool call or the turn's
// end), its tool calls (once each), and, where the agent reports them, the
// session's cost (`usage_update`) and a turn's tokens (the prompt answer's
// `usage`). A loaded session replays its history as updates before its
// answer: those are not work of this run's, and are let pass.

import { turnFailure } from '../failure.js';
import { createRpcAdapter, type RpcDialect } from '../rpc/adapter.js';
import { refOf } from '../rpc/frames.js';
import type { AdapterOptions, ExtendedAdapter, ExtendedSignal, Signal } from '../signals.js';
import { createTurnTracker } from '../turns.js';
import { isObject, num, str, withModelTurns, type JsonObject } from '../util.js';
import { PERMISSION, permission, toolOf } from './asks.js';
import { ownRequest } from './ids.js';

export function createAcpAdapter(options: AdapterOptions = {}): ExtendedAdapter {
  return withModelTurns(createRpcAdapter(dialect(options)), options);
}

/** Its stop reasons that are a turn done as asked; the others (refusal, cancelled, the agent's own ceilings) are not. */
const DONE = new Set(['end_turn']);

function dialect(options: AdapterOptions): RpcDialect {
  const now = options.now ?? Date.now;
  const attempt = options.attempt ?? 0;
  const turns = createTurnTracker();
  const words = wordsOf();
  const seenCalls = new Set<string>();
  // Read by an earlier supervisor already, or not yet: a loaded session's replay comes before its answer.
  let open = options.opened === true;

  function opened(session: string | undefined): ExtendedSignal[] {
    if (!session) return [{ kind: 'protocol_error', message: 'the agent opened a session without an id', fatal: true }];
    open = true;
    return [{ kind: 'opened', session_id: session }, ...turns.alive({ session_id: session })];
  }

  function update(params: unknown): ExtendedSignal[] {
    if (!open || !isObject(params) || !isObject(params.update)) return [];
    const u = params.update;
    switch (str(u.sessionUpdate)) {
      case 'agent_message_chunk':
        words.add(u.content);
        return turns.start();
      case 'agent_thought_chunk':
      case 'plan':
      case 'tool_call_update':
        return turns.start();
      case 'tool_call':
        return [...turns.start(), ...words.flush(), ...toolCall(u, seenCalls)];
      case 'usage_update':
        return usageUpdate(u);
      default:
        return [];
    }
  }

  function turnEnded(result: unknown): ExtendedSignal[] {
    const r = isObject(result) ? result : {};
    const out: ExtendedSignal[] = [...turns.start(), ...words.flush(), ...turnUsage(r.usage)];
    const reason = str(r.stopReason) ?? 'end_turn';
    out.push(DONE.has(reason) ? { kind: 'result', ok: true } : { kind: 'result', ok: false, detail: reason === 'cancelled' ? 'interrupted' : reason });
    return [...out, ...turns.end()];
  }

  return {
    write: (message) => JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n',
    result(id, result) {
      const own = ownRequest(id);
      if (own === null) return null;
      if (own.kind === 'open') return opened(isObject(result) ? str(result.sessionId) : undefined);
      if (own.kind === 'load') return opened(own.session);
      if (own.kind === 'turn') return turnEnded(result);
      return [];
    },
    error(id, e) {
      const own = id === null ? null : ownRequest(id);
      if (own === null)
        return id === null ? [{ kind: 'protocol_error', message: `the agent could not read a line of orcr's: ${e.message}`, fatal: false }] : null;
      if (own.kind === 'turn') return [...turns.start(), ...words.flush(), ...turnFailure(errorText(e), now()), ...turns.end()];
      const what = own.kind === 'load' ? `load session ${own.session}` : own.kind === 'open' ? 'open a session' : 'start';
      return [{ kind: 'protocol_error', message: `the agent refused to ${what}: ${e.message}`, fatal: true }];
    },
    requests: { [PERMISSION]: (id, params) => wrap(turns.start(), words.flush(), permission(refOf(id, attempt), params)) },
    notifications: { 'session/update': update },
  };
}

/** The agent's message, in chunks until something else happens: one text signal, one model turn. */
function wordsOf(): { add(content: unknown): void; flush(): ExtendedSignal[] } {
  let text = '';
  return {
    add(content) {
      if (isObject(content) && content.type === 'text' && typeof content.text === 'string') text += content.text;
    },
    flush() {
      const t = text.trim();
      text = '';
      return t ? [{ kind: 'text', text: t }, { kind: 'model_turn' }] : [];
    },
  };
}

/** A tool call, once per id (its updates and a repeat of it are the same call). */
function toolCall(u: JsonObject, seen: Set<string>): ExtendedSignal[] {
  const id = str(u.toolCallId);
  if (id !== undefined) {
    if (seen.has(id)) return [];
    seen.add(id);
  }
  return [{ kind: 'tool', name: toolOf(u), input: u.rawInput ?? { title: u.title ?? null } }, { kind: 'model_turn' }];
}

/** The session's cumulative cost, when the agent reports one in dollars. */
function usageUpdate(u: JsonObject): Signal[] {
  const cost = isObject(u.cost) ? u.cost : null;
  if (!cost || typeof cost.amount !== 'number' || (cost.currency !== undefined && cost.currency !== 'USD')) return [];
  return [{ kind: 'usage', input: 0, output: 0, cached: 0, cost_usd_total: cost.amount }];
}

/** A turn's tokens, when the prompt's answer carries them. */
function turnUsage(usage: unknown): Signal[] {
  if (!isObject(usage)) return [];
  const cached = num(usage.cachedReadTokens);
  const input = Math.max(0, num(usage.inputTokens) - cached);
  const output = num(usage.outputTokens);
  return input || output || cached ? [{ kind: 'usage', input, output, cached }] : [];
}

/** An error's words, with what its data says (an API's own message is often there). */
function errorText(e: { message: string; data: unknown }): string {
  const data = typeof e.data === 'string' ? e.data : isObject(e.data) ? (str(e.data.message) ?? str(e.data.details) ?? JSON.stringify(e.data)) : null;
  return data && !e.message.includes(data) ? `${e.message}: ${data}` : e.message;
}

function wrap(before: ExtendedSignal[], words: ExtendedSignal[], sig: Signal | null): ExtendedSignal[] | null {
  return sig ? [...before, ...words, sig] : null;
}
