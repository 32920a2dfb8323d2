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
import { isObject, mentionsLogin, num, str, withModelTurns, type JsonObject } from '../util.js';
import { PERMISSION, permission, toolOf } from './asks.js';
import { ownRequest } from './ids.js';

export function createAcpAdapter(options: AdapterOptions = {}): ExtendedAdapter {
  return withModelTurns(createRpcAdapter(dialect(options)), options);
}

/**
 * An update's kind, where an agent prints it: first in the update, right
 * after the session's id at the head of the params; a tool call's id right
 * after it. Sticky: read from where the params begin (a bounded repeat, as
 * `{1,200}`, costs this regex eight times as much).
 */
const UPDATE_KIND = /\{"sessionId":"[^"\\]+","update":\{"sessionUpdate":"(\w+)"(?:,"toolCallId":"([^"\\]+)")?/y;
/** The rest of a message chunk as Gemini prints it, read from where its kind ends: its text, a JSON string, and the line's end. */
const CHUNK_TEXT = /,"content":\{"type":"text","text":("(?:[^"\\]|\\.)*")\}\}\}\}$/y;
/** A new session's answer as Gemini prints it: its id first. */
const NEW_SESSION = /^\{"jsonrpc":"2\.0","id":"orcr:open","result":\{"sessionId":"([^"\\]+)"/;
/** Updates whose kind is all orcr reads of them. */
const HEAD_ONLY = new Set(['available_commands_update', 'current_mode_update', 'agent_thought_chunk']);

/** Its stop reasons that are a turn done as asked; the others (refusal, cancelled, the agent's own ceilings) are not. */
const DONE = new Set(['end_turn']);

function dialect(options: AdapterOptions): RpcDialect {
  const now = options.now ?? Date.now;
  const attempt = options.attempt ?? 0;
  const turns = createTurnTracker();
  const words = wordsOf();
  const calls = callsOf();
  // Read by an earlier supervisor already, or not yet: a loaded session's replay begins before its answer.
  let open = options.opened === true;
  // And goes on after it (Gemini 0.61): its updates are let pass until the agent shows work of its own.
  let replaying = false;
  // When this process opened or loaded its session (unknown to a later supervisor's reader): a limit's hold goes past that minute.
  let openedAt: number | null = null;

  function opened(session: string | undefined, loaded: boolean): ExtendedSignal[] {
    if (!session) return [{ kind: 'protocol_error', message: 'the agent opened a session without an id', fatal: true }];
    open = true;
    openedAt = now();
    replaying = loaded;
    return [{ kind: 'opened', session_id: session, resume_after: loadableFrom(openedAt) }, ...turns.alive({ session_id: session })];
  }

  function update(params: unknown): ExtendedSignal[] {
    if (!open || !isObject(params) || !isObject(params.update)) return [];
    const u = params.update;
    if (replaying) {
      replaying = !endsReplay(u);
      if (replaying) return [];
    }
    return readUpdate(u, turns, words, calls);
  }

  return {
    write: (message) => JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n',
    result(id, result) {
      const own = ownRequest(id);
      if (own === null) return null;
      if (own.kind === 'open') return opened(isObject(result) ? str(result.sessionId) : undefined, false);
      if (own.kind === 'load') return opened(own.session, true);
      if (own.kind !== 'turn') return [];
      replaying = false;
      return turnEnded(result, turns, words);
    },
    error(id, e) {
      const own = id === null ? null : ownRequest(id);
      if (own === null)
        return id === null ? [{ kind: 'protocol_error', message: `the agent could not read a line of orcr's: ${e.message}`, fatal: false }] : null;
      if (own.kind === 'turn') {
        const failure = pastTheMinute(turnFailure(errorText(e), now(), namedByCode(e.code)), openedAt ?? now(), now());
        return [...turns.start(), ...words.flush(), ...failure, ...turns.end()];
      }
      // Gemini says why only in the error's data ("Internal error", data.details "No previous sessions found…").
      return refused(own, errorText(e));
    },
    requests: {
      [PERMISSION]: (id, params) => {
        calls.asked(params);
        return wrap(turns.start(), words.flush(), permission(refOf(id, attempt), params));
      },
    },
    notifications: { 'session/update': update },
    // Updates that say no more than their kind (a list of commands, a thought, the mode) are read from the line's head
    // alone; so, out of a replay, are a counted call's later updates and a chunk of words (workFromHead).
    peek(method, text, at) {
      const head = updateHead(method, text, at);
      const kind = head?.[1];
      if (kind === undefined || !open) return null;
      const work = replaying ? null : workFromHead(head!, text, turns, words, calls);
      if (work || !HEAD_ONLY.has(kind)) return work;
      if (replaying) replaying = !endsReplay({ sessionUpdate: kind });
      return replaying || kind !== 'agent_thought_chunk' ? [] : turns.start();
    },
    // initialize's answer (its auth methods, the agent's capabilities) changes nothing orcr does.
    ignoresResult: (id) => id === 'orcr:init',
    // A new session's answer is long (its modes, its models); its id comes first.
    peekResult(id, text) {
      const session = id === 'orcr:open' ? NEW_SESSION.exec(text)?.[1] : undefined;
      return session === undefined ? null : opened(session, false);
    },
  };
}

/** A `session/update`'s kind (and call id) read from its params' head, which begins at `at`. */
function updateHead(method: string, text: string, at: number): RegExpExecArray | null {
  if (method !== 'session/update') return null;
  UPDATE_KIND.lastIndex = at;
  return UPDATE_KIND.exec(text);
}

/** A later update of a call already counted (a third of a working session's lines), or a chunk of the agent's words (its text alone parsed), read from the line's head; null: parse it. */
function workFromHead(
  head: RegExpExecArray,
  text: string,
  turns: ReturnType<typeof createTurnTracker>,
  words: ReturnType<typeof wordsOf>,
  calls: ReturnType<typeof callsOf>,
): ExtendedSignal[] | null {
  const [, kind, call] = head;
  if (kind === 'tool_call_update') return call !== undefined && calls.counted(call) ? turns.start() : null;
  if (kind !== 'agent_message_chunk') return null;
  CHUNK_TEXT.lastIndex = head.index + head[0].length;
  const chunk = CHUNK_TEXT.exec(text)?.[1];
  if (chunk === undefined) return null;
  words.add({ type: 'text', text: JSON.parse(chunk) as string });
  return turns.start();
}

/** One update of the session's work: the agent's words, its thoughts and plans, its tool calls, its cost. */
function readUpdate(
  u: JsonObject,
  turns: ReturnType<typeof createTurnTracker>,
  words: ReturnType<typeof wordsOf>,
  calls: ReturnType<typeof callsOf>,
): ExtendedSignal[] {
  switch (str(u.sessionUpdate)) {
    case 'agent_message_chunk':
      words.add(u.content);
      return turns.start();
    case 'agent_thought_chunk':
    case 'plan':
      return turns.start();
    case 'tool_call':
    case 'tool_call_update':
      return [...turns.start(), ...calls.seen(u, words)];
    case 'usage_update':
      return usageUpdate(u);
    default:
      return [];
  }
}

/** A prompt answered: its turn ends, with its tokens where the answer carries them, done as asked or not (its stop reason). */
function turnEnded(result: unknown, turns: ReturnType<typeof createTurnTracker>, words: ReturnType<typeof wordsOf>): ExtendedSignal[] {
  const r = isObject(result) ? result : {};
  const out: ExtendedSignal[] = [...turns.start(), ...words.flush(), ...turnUsage(r)];
  const reason = str(r.stopReason) ?? 'end_turn';
  out.push(DONE.has(reason) ? { kind: 'result', ok: true } : { kind: 'result', ok: false, detail: reason === 'cancelled' ? 'interrupted' : reason });
  return [...out, ...turns.end()];
}

/** The agent would not open or load its session (or start): the run cannot go on; a login it lacks is said as one (the TUI's, ps's "login"). */
function refused(own: Exclude<ReturnType<typeof ownRequest>, null>, message: string): Signal[] {
  const what = own.kind === 'load' ? `load session ${own.session}` : own.kind === 'open' ? 'open a session' : 'start';
  const login: Signal[] = mentionsLogin(message) || /api key/i.test(message) ? [{ kind: 'blocked', blocked: 'login', message }] : [];
  return [...login, { kind: 'protocol_error', message: `the agent refused to ${what}: ${message}`, fatal: true }];
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

/**
 * Tool calls, each counted once by id: at its `tool_call`, or, for one the
 * agent asked permission for first (Gemini announces it no other way), at
 * its first update that says it runs or ran, as the request described it.
 */
function callsOf(): {
  asked(params: unknown): void;
  seen(u: JsonObject, words: ReturnType<typeof wordsOf>): ExtendedSignal[];
  counted(id: string): boolean;
} {
  const counted = new Set<string>();
  const pending = new Map<string, JsonObject>();
  return {
    counted: (id) => counted.has(id),
    asked(params) {
      const call = isObject(params) && isObject(params.toolCall) ? params.toolCall : null;
      const id = call ? str(call.toolCallId) : undefined;
      if (call && id !== undefined && !counted.has(id)) pending.set(id, call);
    },
    seen(u, words) {
      const id = str(u.toolCallId);
      if (id !== undefined && counted.has(id)) return [];
      const asked = id !== undefined ? pending.get(id) : undefined;
      // An update of a call never announced nor asked about (or one that did not run): nothing to count.
      if (u.sessionUpdate === 'tool_call_update' && (!asked || (u.status !== 'in_progress' && u.status !== 'completed'))) return [];
      if (id !== undefined) {
        counted.add(id);
        pending.delete(id);
      }
      const call = asked ? { ...asked, ...u } : u;
      return [...words.flush(), { kind: 'tool', name: toolOf(call), input: call.rawInput ?? { title: call.title ?? null } }, { kind: 'model_turn' }];
    },
  };
}

/** An update no loaded session's replay carries: the agent at work (a thought, a call under way) or done setting up (its commands). */
function endsReplay(u: JsonObject): boolean {
  const kind = str(u.sessionUpdate);
  if (kind === 'available_commands_update' || kind === 'agent_thought_chunk' || kind === 'plan') return true;
  return (kind === 'tool_call' || kind === 'tool_call_update') && (u.status === 'pending' || u.status === 'in_progress');
}

/**
 * When another process may load a session this one opened (or loaded) at
 * `openedAt`: a later UTC minute, a second's margin. Gemini CLI 0.61 names a
 * session's file by that minute — a load in the same minute writes over the
 * saved history and is refused (test/real README, "Gemini CLI --acp", 14).
 * A retry that resumes waits for it (core/attempts); a limit is held so long.
 */
function loadableFrom(openedAt: number): number {
  return Math.floor(openedAt / 60_000) * 60_000 + 61_000;
}

/** A limit held until the session may be loaded (loadableFrom): a stated retry that is later already stands; a limit that states none is held as long as configured. */
function pastTheMinute(signals: Signal[], openedAt: number, now: number): Signal[] {
  const wait = Math.ceil((loadableFrom(openedAt) - now) / 1000);
  return signals.map((s) =>
    s.kind === 'blocked' && s.blocked === 'limit' && s.retry_after_s !== undefined && s.retry_after_s < wait ? { ...s, retry_after_s: wait } : s,
  );
}

/** A turn's error named by its code, where an agent gives its API's HTTP status (Gemini): a limit, or the API's trouble. */
function namedByCode(code: number | null): 'limit' | 'api_error' | null {
  if (code === 429) return 'limit';
  return code !== null && code >= 500 && code < 600 ? 'api_error' : null;
}

/** The session's cumulative cost, when the agent reports one in dollars. */
function usageUpdate(u: JsonObject): Signal[] {
  const cost = isObject(u.cost) ? u.cost : null;
  if (!cost || typeof cost.amount !== 'number' || (cost.currency !== undefined && cost.currency !== 'USD')) return [];
  return [{ kind: 'usage', input: 0, output: 0, cached: 0, cost_usd_total: cost.amount }];
}

/**
 * A turn's tokens, where the prompt's answer carries them: ACP's `usage`, or
 * Gemini's `_meta.quota.token_count` (its input includes cached tokens; it
 * names none apart).
 */
function turnUsage(result: JsonObject): Signal[] {
  let input = 0;
  let output = 0;
  let cached = 0;
  if (isObject(result.usage)) {
    cached = num(result.usage.cachedReadTokens);
    input = Math.max(0, num(result.usage.inputTokens) - cached);
    output = num(result.usage.outputTokens);
  } else {
    const meta = isObject(result._meta) && isObject(result._meta.quota) && isObject(result._meta.quota.token_count) ? result._meta.quota.token_count : null;
    if (meta) {
      input = num(meta.input_tokens);
      output = num(meta.output_tokens);
    }
  }
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
