// Codex's app-server (`codex app-server`, JSON-RPC lines without the
// "jsonrpc" member) → signals. orcr is its client: its requests carry ids
// that say what they were for (ids.ts), so an answer read again after a
// restart means the same thing. The thread's answer opens the session
// (`opened`: orcr then starts the first turn); a turn's notifications are
// its work; its token usage is the thread's running total
// (`thread/tokenUsage/updated`, diffed as exec's); a failed turn names its
// cause as exec's does (codex.ts' turnFailure), a usage limit by Codex's own
// `codexErrorInfo` too. Its requests before it acts are asks.ts'.

import { createCumulativeCounter } from '../cumulative.js';
import { turnFailure } from '../failure.js';
import { createRpcAdapter, type RpcDialect } from '../rpc/adapter.js';
import { refOf } from '../rpc/frames.js';
import type { AdapterOptions, ExtendedAdapter, ExtendedSignal, Signal } from '../signals.js';
import { createTurnTracker } from '../turns.js';
import { isObject, num, str, withModelTurns, type JsonObject } from '../util.js';
import { COMMAND_APPROVAL, FILE_APPROVAL, USER_INPUT, commandApproval, fileApproval, userInput } from './asks.js';
import { OWN, ownRequest } from './ids.js';

export function createCodexAppAdapter(options: AdapterOptions = {}): ExtendedAdapter {
  return withModelTurns(createRpcAdapter(dialect(options.now ?? Date.now, options.attempt ?? 0)), options);
}

function dialect(now: () => number, attempt: number): RpcDialect {
  const turns = createTurnTracker();
  const usage = createCumulativeCounter();
  /** This process has begun a turn (a resumed thread's total, restated before it, is no new usage). */
  let begun = false;
  /** When the account's spent window resets (epoch ms), as Codex last said: a limit's end where its words name none. */
  let resetAt: number | null = null;
  /** The last error Codex gave up on (`willRetry: false`), for the turn it fails. */
  let lastError: { message: string; named: Named } | null = null;

  const item = itemReader(turns);

  function completed(params: unknown): ExtendedSignal[] {
    const turn = isObject(params) && isObject(params.turn) ? params.turn : {};
    const out: ExtendedSignal[] = turns.start();
    const status = str(turn.status);
    if (status === 'completed') out.push({ kind: 'result', ok: true });
    else if (status === 'interrupted') out.push({ kind: 'result', ok: false, detail: 'interrupted' });
    else {
      const error = isObject(turn.error) ? turn.error : null;
      const message = (error && str(error.message)) ?? lastError?.message;
      out.push(...withReset(turnFailure(message, now(), (error && named(error)) ?? lastError?.named ?? null), resetAt, now()));
    }
    lastError = null;
    out.push(...turns.end());
    return out;
  }

  return {
    write: (message) => JSON.stringify(message) + '\n',
    ...heads(turns),
    result(id, result) {
      const own = ownRequest(id);
      if (own === null) return null;
      if (own.kind === OWN.open) return opened(result, turns);
      return [];
    },
    error(id, e) {
      const own = id === null ? null : ownRequest(id);
      if (own === null) return id === null ? [{ kind: 'protocol_error', message: `Codex could not read a line of orcr's: ${e.message}`, fatal: false }] : null;
      if (own.kind === OWN.turn) return [...turns.start(), ...turnFailure(e.message, now()), ...turns.end()];
      return [{ kind: 'protocol_error', message: `Codex refused to ${own.kind === OWN.open ? 'open its thread' : 'start'}: ${e.message}`, fatal: true }];
    },
    requests: {
      [COMMAND_APPROVAL]: (id, params) => wrap(turns.start(), commandApproval(refOf(id, attempt), params)),
      [FILE_APPROVAL]: (id, params) => wrap(turns.start(), fileApproval(refOf(id, attempt), params, item.changes)),
      [USER_INPUT]: (id, params) => wrap(turns.start(), userInput(refOf(id, attempt), params)),
    },
    notifications: {
      'turn/started': () => {
        begun = true;
        return turns.begin();
      },
      'item/started': (p) => item.read(p, false),
      'item/completed': (p) => item.read(p, true),
      // Before this process's first turn, a total is the resumed thread's, restated: counted by the attempts before.
      'thread/tokenUsage/updated': (p) => {
        const counted = tokenUsage(p, usage);
        return begun ? counted : [];
      },
      'turn/completed': completed,
      'account/rateLimits/updated'(p) {
        const read = rateLimits(p);
        resetAt = read.spentUntil;
        return read.signals;
      },
      error(p) {
        const e = isObject(p) && isObject(p.error) ? p.error : null;
        const message = (e && str(e.message)) ?? 'error';
        if (isObject(p) && p.willRetry === true) return [...turns.ensureAlive(), { kind: 'agent_retry', error: message }];
        // Given up on: the turn it fails names it.
        lastError = { message, named: e && named(e) };
        return [];
      },
    },
  };
}

/**
 * What is read from a line's head alone: most items are counted only as they
 * finish, and some not at all — their start (a patch's aside) and those
 * finishing say no more than that the turn is on; the answers to orcr's
 * requests but the thread's need no reading.
 */
function heads(turns: ReturnType<typeof createTurnTracker>): Pick<RpcDialect, 'peek' | 'ignoresResult'> {
  return {
    peek(method, text, at) {
      if (method !== 'item/started' && method !== 'item/completed') return null;
      ITEM_TYPE.lastIndex = at;
      const type = ITEM_TYPE.exec(text)?.[1];
      if (type === undefined) return null;
      return (method === 'item/started' && type !== 'fileChange') || UNCOUNTED_ITEMS.has(type) ? turns.start() : null;
    },
    ignoresResult: (id) => {
      const own = ownRequest(id);
      return own !== null && own.kind !== OWN.open;
    },
  };
}

/**
 * Items as they start and finish: each finished one counted once (by id), a
 * patch's files kept from its start until it is done (its request names
 * only the item).
 */
function itemReader(turns: ReturnType<typeof createTurnTracker>): {
  read(params: unknown, done: boolean): ExtendedSignal[];
  changes(itemId: string): unknown[] | null;
} {
  const seen = new Set<string>();
  const changes = new Map<string, unknown[]>();
  return {
    changes: (itemId) => changes.get(itemId) ?? null,
    read(params, done) {
      const it = isObject(params) && isObject(params.item) ? params.item : null;
      if (!it) return [];
      const out: ExtendedSignal[] = turns.start();
      const id = str(it.id);
      if (!done) {
        if (id !== undefined && it.type === 'fileChange' && Array.isArray(it.changes)) changes.set(id, it.changes);
        return out;
      }
      if (id !== undefined) {
        if (seen.has(id)) return out;
        seen.add(id);
        changes.delete(id);
      }
      const sig = itemSignal(it);
      if (sig) out.push(sig, { kind: 'model_turn' });
      return out;
    },
  };
}

/** The thread's answer opens the session; orcr then starts the first turn. */
function opened(result: unknown, turns: ReturnType<typeof createTurnTracker>): ExtendedSignal[] {
  const thread = isObject(result) && isObject(result.thread) ? str(result.thread.id) : undefined;
  if (!thread) return [{ kind: 'protocol_error', message: 'Codex opened a thread without an id', fatal: true }];
  return [{ kind: 'opened', session_id: thread }, ...turns.alive({ session_id: thread })];
}

/** Codex's windows (primary, secondary) as quota signals, and when a spent one resets. */
function rateLimits(params: unknown): { signals: Signal[]; spentUntil: number | null } {
  const limits = isObject(params) && isObject(params.rateLimits) ? params.rateLimits : {};
  const signals: Signal[] = [];
  let spentUntil: number | null = null;
  for (const w of [limits.primary, limits.secondary]) {
    if (!isObject(w) || typeof w.usedPercent !== 'number') continue;
    const mins = num(w.windowDurationMins);
    const resets = typeof w.resetsAt === 'number' ? w.resetsAt * 1000 : undefined;
    const spent = w.usedPercent >= 100;
    const sig: Signal = { kind: 'quota', window: WINDOWS[mins] ?? `${mins}m`, status: spent ? 'rejected' : 'allowed', utilization: w.usedPercent / 100 };
    if (resets !== undefined) sig.resets_at = resets;
    signals.push(sig);
    if (spent && resets !== undefined) spentUntil = Math.max(spentUntil ?? 0, resets);
  }
  return { signals, spentUntil };
}

/** Claude Code's names of the usage windows, by their length in minutes. */
const WINDOWS: Readonly<Record<number, string>> = { 300: 'five_hour', 10080: 'seven_day' };

/** A limit whose words name no end ends when Codex said its spent window resets. */
function withReset(signals: Signal[], resetAt: number | null, now: number): Signal[] {
  if (resetAt === null || resetAt <= now) return signals;
  return signals.map((s) =>
    s.kind === 'blocked' && s.blocked === 'limit' && s.retry_after_s === undefined ? { ...s, retry_after_s: Math.ceil((resetAt - now) / 1000) } : s,
  );
}

function wrap(before: ExtendedSignal[], sig: Signal | null): ExtendedSignal[] | null {
  return sig ? [...before, sig] : null;
}

/** An item's type, where Codex prints it: first in the item, at the head of the line. */
const ITEM_TYPE = /\{"item":\{"type":"(\w+)"/y;
/** Items that are no work of the model's to count: the user's own message, its reasoning, its plans. */
const UNCOUNTED_ITEMS = new Set(['userMessage', 'reasoning', 'plan', 'contextCompaction', 'enteredReviewMode', 'exitedReviewMode']);

type Named = 'limit' | 'api_error' | null;

/** A cause Codex names apart from its words (`codexErrorInfo`): a usage limit, or the API's trouble after its own retries. */
function named(error: JsonObject): Named {
  const info = error.codexErrorInfo;
  const key = typeof info === 'string' ? info : isObject(info) ? Object.keys(info)[0] : undefined;
  if (key === 'usageLimitExceeded') return 'limit';
  if (key === 'internalServerError' || key === 'serverOverloaded' || key === 'responseStreamDisconnected' || key === 'responseStreamConnectionFailed')
    return 'api_error';
  return null;
}

/** The thread's running total as an increment (Codex's input includes its cached input, as exec's does). */
function tokenUsage(params: unknown, usage: ReturnType<typeof createCumulativeCounter>): Signal[] {
  const total = isObject(params) && isObject(params.tokenUsage) && isObject(params.tokenUsage.total) ? params.tokenUsage.total : null;
  if (!total) return [];
  const cached = num(total.cachedInputTokens);
  const delta = usage.next({ input: Math.max(0, num(total.inputTokens) - cached), output: num(total.outputTokens), cached });
  return delta.input || delta.output || delta.cached ? [{ kind: 'usage', ...delta }] : [];
}

/** A finished item as exec's adapter names it: shell, apply_patch, an MCP tool, a web search, the agent's words. */
function itemSignal(it: JsonObject): Signal | null {
  switch (str(it.type)) {
    case 'agentMessage': {
      const text = str(it.text);
      return text ? { kind: 'text', text } : null;
    }
    case 'commandExecution':
      return { kind: 'tool', name: 'shell', input: { command: it.command ?? null } };
    case 'fileChange':
      return { kind: 'tool', name: 'apply_patch', input: { changes: Array.isArray(it.changes) ? it.changes : [] } };
    case 'mcpToolCall': {
      const name = [str(it.server), str(it.tool)].filter(Boolean).join('.');
      return name ? { kind: 'tool', name, input: it.arguments ?? null } : null;
    }
    case 'webSearch':
      return { kind: 'tool', name: 'web_search', input: { query: it.query ?? null } };
    default:
      return null;
  }
}
