// Claude Code `--output-format stream-json --verbose` → signals.
//
// Token accounting, as observed running the real CLI (test/real/transcripts/claude):
// - `assistant` lines carry a usage snapshot taken when the message STARTED
//   (output_tokens is typically 1), and several lines share one message.id.
//   They are never counted while the turn is healthy.
// - `result.usage` holds the real totals for that turn; it is the only usage
//   emitted. Mapping, chosen so "input" means tokens billed at (or above) the
//   base input rate and "cached" means cheap cache reads:
//     input  = input_tokens + cache_creation_input_tokens
//     cached = cache_read_input_tokens
//     output = output_tokens
// - `result.total_cost_usd` is cumulative for the session: it is emitted as
//   `cost_usd_total`, which replaces the run's cost and is never summed.
// - A process that dies mid-turn never prints its result. end() then emits a
//   lower bound from the snapshots of the open turn, counted once per
//   message.id (max of each field over that id's lines). No turn_end is
//   invented: the turn did not end, the process did.
//
// Blocks (see test/real/README.md for what the real CLI prints):
// - `system`/`api_retry` is the CLI retrying by itself. A 429 (or a
//   rate-limit error) is a usage limit with the CLI's own retry delay, and
//   the CLI waiting for it (an `agent_retry`: orcr then only holds the
//   provider; the agent goes on by itself). Under CLAUDE_CODE_RETRY_WATCHDOG
//   it waits out a subscription's limit until its reset, and restates the
//   wait every 30 s under the same attempt number: that is one wait. A
//   401/403 (`error:"authentication_failed"`) is a rejected credential: the
//   CLI retries even that (10 times by default, minutes of backoff) before it
//   gives up with a synthetic `assistant` message and an `is_error` result.
// - Without the watchdog, `-p` stops at a subscription's limit at once (a
//   synthetic message, a failed result, exit 1): nobody waits but orcr. Only
//   the interactive CLI continues by itself at the reset (2.1.234+).
// - A failed result names its cause in `detail`: `login`, `limit`, the error
//   subtype, or `is_error`.
// - A limit holds for as long as it says: the synthetic message's or the
//   result's words ("You've hit your limit · resets 5pm (Europe/Berlin)"),
//   or a blocking `rate_limit_event`'s `resetsAt`, read against `now`.
//
// Model turns (option `modelTurns`): one `model_turn` per assistant message,
// emitted when the next message begins or the turn's result arrives — after
// all of that message's lines, which share one message.id.

import type { Adapter, AdapterOptions, ExtendedAdapter, ExtendedSignal, PlainAdapterOptions, Signal } from './signals.js';
import type { TokenTriple } from './cumulative.js';
import { createTurnTracker } from './turns.js';
import { jsonLinesAdapter, isObject, mentionsLimit, mentionsLogin, num, optNum, statedRetryAfter, str, withModelTurns, type JsonObject } from './util.js';

const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);
/** How much later a restated wait may end and still be the same one: its line may be read late. */
const RESTATED_SLACK_MS = 2000;

export function createClaudeAdapter(options?: PlainAdapterOptions): Adapter;
export function createClaudeAdapter(options: AdapterOptions): ExtendedAdapter;
export function createClaudeAdapter(options?: AdapterOptions): Adapter | ExtendedAdapter {
  return withModelTurns(createCore(options?.now ?? Date.now), options);
}

function createCore(now: () => number): ExtendedAdapter {
  const turns = createTurnTracker();
  // Tool-use ids are unique across the whole session (the CLI requires it).
  const seenTools = new Set<string>();
  // Text blocks already emitted in the open turn; message ids never recur
  // across turns, so this is cleared at every result to bound memory.
  let seenText = new Set<string>();
  // Start-of-message usage snapshots of the open turn, one per message id.
  let snapshots = new Map<string, TokenTriple>();
  let anonymous = 0;
  // The assistant message being printed (its id), for model_turn boundaries.
  let openMessage: string | null = null;
  // What went wrong in the open turn, for the result's detail.
  let turnBlocked: 'login' | 'limit' | null = null;
  // The session's cumulative cost as last reported (it starts at 0).
  let lastCost = 0;

  // The exact reset (epoch ms) a blocking rate_limit_event gave in the open turn: the text's is to the minute.
  let rejectedUntil: number | null = null;
  // The limit the CLI said it waits for in the open turn (its attempt, and until when), so a restatement is not a new wait.
  let waiting: { attempt: number | undefined; until: number } | null = null;

  /** A usage limit, held for as long as its text says ("resets 5pm (Europe/Berlin)"), when it says — or, better, as the turn's own rate_limit_event said. */
  function limitBlock(message: string, text: string | undefined): Signal {
    const sig: Signal = { kind: 'blocked', blocked: 'limit', message };
    // The event's reset passed already: 0, as a text's would (it has reset).
    const exact = rejectedUntil !== null ? Math.max(0, Math.ceil((rejectedUntil - now()) / 1000)) : undefined;
    const retry = exact ?? statedRetryAfter(text, now());
    if (retry !== undefined) sig.retry_after_s = retry;
    return sig;
  }

  function closeMessage(): ExtendedSignal[] {
    if (openMessage === null) return [];
    openMessage = null;
    return [{ kind: 'model_turn' }];
  }

  function system(obj: JsonObject): Signal[] {
    const subtype = str(obj.subtype);
    if (subtype === 'init') return turns.alive({ session_id: str(obj.session_id), model: str(obj.model) });
    if (subtype === 'api_retry') {
      // The CLI retries by itself; a 429 attempt still means "rate limited
      // right now", with the CLI's own retry delay. A 401/403 attempt means
      // the credential was refused: the CLI retries that too, for minutes.
      const error = str(obj.error);
      const status = num(obj.error_status);
      const login = status === 401 || status === 403 || error === 'authentication_failed' || (status !== 429 && mentionsLogin(error));
      const limit = !login && (status === 429 || mentionsLimit(error));
      const attempt = optNum(obj.attempt);
      const max = optNum(obj.max_retries);
      if (!login && !limit) {
        // Overloaded, a 5xx, the network: the CLI waits and tries again; the run is working, not stuck.
        const sig: Signal = { kind: 'agent_retry', error: error ?? (status ? `HTTP ${status}` : 'API error') };
        if (attempt !== undefined) sig.attempt = attempt;
        if (max !== undefined) sig.max = max;
        const delay = optNum(obj.retry_delay_ms);
        if (delay !== undefined) sig.delay_ms = delay;
        return [sig];
      }
      const message = `api retry${attempt !== undefined ? ` ${attempt}${max !== undefined ? `/${max}` : ''}` : ''}: ${error ?? (login ? 'authentication failed' : 'rate limited')}`;
      turnBlocked = login ? 'login' : 'limit';
      if (login) return [{ kind: 'blocked', blocked: 'login', message }];
      const delay = optNum(obj.retry_delay_ms);
      const until = delay !== undefined ? now() + delay : null;
      // The same attempt ending no later (give or take how late its line was read): the wait said again, not a new one.
      if (waiting !== null && waiting.attempt === attempt && until !== null && until <= waiting.until + RESTATED_SLACK_MS) return [];
      waiting = until !== null ? { attempt, until } : null;
      const sig: Signal = { kind: 'blocked', blocked: 'limit' };
      if (delay !== undefined) sig.retry_after_s = delay / 1000;
      sig.message = message;
      const waits: Signal = { kind: 'agent_retry', error: error ?? 'rate_limit' };
      if (attempt !== undefined) waits.attempt = attempt;
      if (max !== undefined) waits.max = max;
      if (delay !== undefined) waits.delay_ms = delay;
      return [sig, waits];
    }
    return [];
  }

  function assistant(obj: JsonObject): ExtendedSignal[] | null {
    const message = obj.message;
    if (!isObject(message)) return null;
    const out: ExtendedSignal[] = turns.start();
    const msgId = str(message.id);
    // A new message closes the previous one (lines of one message share its id).
    if (openMessage !== null && (msgId === undefined || msgId !== openMessage)) out.push(...closeMessage());
    openMessage = msgId ?? `\0anon${anonymous}`;

    if (isObject(message.usage)) {
      const key = msgId ?? `\0anon${anonymous++}`;
      const u = snapshotOf(message.usage);
      const prev = snapshots.get(key);
      snapshots.set(
        key,
        prev
          ? { input: Math.max(prev.input, u.input), output: Math.max(prev.output, u.output), cached: Math.max(prev.cached, u.cached) }
          : u,
      );
    }

    const content = message.content;
    const blocks: unknown[] = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
    let firstText: string | undefined;
    blocks.forEach((block, index) => {
      if (!isObject(block)) return;
      const type = str(block.type);
      if (type === 'text') {
        const text = str(block.text);
        if (!text) return;
        firstText ??= text;
        // Keyed by (message id, block index, text): the CLI may repeat a
        // message's blocks on later lines (same index, same text) or split
        // one message into lines of one block each (every block at index 0,
        // different texts); both are counted once.
        if (msgId !== undefined) {
          const key = `${msgId}\0${index}\0${text}`;
          if (seenText.has(key)) return;
          seenText.add(key);
        }
        out.push({ kind: 'text', text });
      } else if (type !== undefined && TOOL_BLOCKS.has(type)) {
        const name = str(block.name);
        if (!name) return;
        const id = str(block.id);
        if (id !== undefined) {
          if (seenTools.has(id)) return;
          seenTools.add(id);
        }
        out.push({ kind: 'tool', name, input: block.input ?? null });
      }
    });

    // A top-level `error` marks a synthetic message the CLI wrote itself.
    const error = str(obj.error);
    if (error === 'authentication_failed') {
      turnBlocked = 'login';
      out.push({ kind: 'blocked', blocked: 'login', message: firstText ?? error });
    } else if (error === 'rate_limit') {
      turnBlocked = 'limit';
      out.push(limitBlock(firstText ?? error, firstText));
    }
    return out;
  }

  function result(obj: JsonObject): ExtendedSignal[] {
    const out: ExtendedSignal[] = turns.start();
    out.push(...closeMessage());
    const costTotal = optNum(obj.total_cost_usd);
    if (isObject(obj.usage) || costTotal !== undefined) {
      const u = isObject(obj.usage) ? snapshotOf(obj.usage) : { input: 0, output: 0, cached: 0 };
      // A turn that never reached the model (not logged in, refused key)
      // reports zeros: that is no usage, and must not read as activity.
      const nothing = u.input === 0 && u.output === 0 && u.cached === 0 && (costTotal === undefined || costTotal === lastCost);
      if (!nothing) {
        const sig: Signal = { kind: 'usage', ...u };
        if (costTotal !== undefined) sig.cost_usd_total = costTotal;
        out.push(sig);
      }
      if (costTotal !== undefined) lastCost = costTotal;
    }
    // `subtype:"success"` with `is_error:true` is a failure (auth, API error).
    const subtype = str(obj.subtype);
    const ok = (subtype === undefined || subtype === 'success') && obj.is_error !== true;
    const text = str(obj.result);
    let cause: 'login' | 'limit' | null = null;
    // The API failing after the CLI's own retries (overloaded, 5xx, the network): a passing failure (`--retries`).
    let apiError = false;
    if (!ok) {
      const errors = Array.isArray(obj.errors) ? obj.errors.filter((e): e is string => typeof e === 'string') : [];
      const why = [text ?? '', ...errors].join('\n');
      // Newer CLIs name the HTTP status of the failed call (`api_error_status`).
      const status = num(obj.api_error_status);
      if (status === 401 || status === 403 || (status !== 429 && mentionsLogin(why))) cause = 'login';
      else if (status === 429 || mentionsLimit(why)) cause = 'limit';
      else cause = turnBlocked;
      apiError = cause === null && (status >= 500 || /\boverloaded\b|\bapi error\b|ECONNRESET|ETIMEDOUT|socket hang up|network error/i.test(why));
      // Blocked once per cause: the synthetic assistant line usually said it already.
      if (cause === 'limit' && cause !== turnBlocked) out.push(limitBlock(why.trim() || cause, why));
      else if (cause !== null && cause !== turnBlocked) out.push({ kind: 'blocked', blocked: cause, message: why.trim() || cause });
    }
    const sig: Signal = { kind: 'result', ok };
    if (text !== undefined) sig.text = text;
    if (!ok) sig.detail = cause ?? (apiError ? 'api_error' : subtype && subtype !== 'success' ? subtype : 'is_error');
    out.push(sig, ...turns.end());
    snapshots = new Map();
    seenText = new Set();
    turnBlocked = null;
    rejectedUntil = null;
    waiting = null;
    return out;
  }

  function rateLimitEvent(obj: JsonObject): Signal[] {
    // Mostly informational ("allowed", "allowed_warning"); only a hit limit blocks.
    const info = isObject(obj.rate_limit_info) ? obj.rate_limit_info : obj;
    const status = str(info.status) ?? '';
    const quota: Signal = { kind: 'quota', window: str(info.rateLimitType) ?? 'unknown', status: status || 'unknown' };
    const used = optNum(info.utilization);
    if (used !== undefined && used <= 1.5) quota.utilization = used;
    // Epoch seconds.
    const resetsAt = optNum(info.resetsAt);
    if (resetsAt !== undefined && resetsAt > 0 && Number.isFinite(new Date(resetsAt * 1000).getTime())) quota.resets_at = resetsAt * 1000;
    if (/^allowed/i.test(status) || !/reject|exceed|block|limit|denied/i.test(status)) return [quota];
    const sig: Signal = { kind: 'blocked', blocked: 'limit', message: `rate limit ${status}` };
    if (resetsAt !== undefined && resetsAt > 0) {
      const when = new Date(resetsAt * 1000);
      if (!Number.isNaN(when.getTime())) {
        sig.message += `, resets at ${when.toISOString()}`;
        sig.retry_after_s = Math.max(0, Math.ceil(resetsAt - now() / 1000));
        rejectedUntil = resetsAt * 1000;
      }
    }
    return [quota, sig];
  }

  function handle(obj: JsonObject): ExtendedSignal[] | null {
    const type = obj.type;
    if (typeof type !== 'string') return null;
    switch (type) {
      case 'system':
        return system(obj);
      case 'assistant':
        return assistant(obj);
      case 'user':
        // Tool results fed back to the model: nothing to count.
        return isObject(obj.message) ? [] : null;
      case 'result':
        return result(obj);
      case 'rate_limit_event':
        return rateLimitEvent(obj);
      case 'stream_event':
        // Partial-message events (--include-partial-messages) open the turn early.
        return turns.start();
      default:
        return type.startsWith('control_') ? [] : null;
    }
  }

  return jsonLinesAdapter<ExtendedSignal>(handle, () => {
    if (!turns.inTurn || snapshots.size === 0) return [];
    const total = { input: 0, output: 0, cached: 0 };
    for (const u of snapshots.values()) {
      total.input += u.input;
      total.output += u.output;
      total.cached += u.cached;
    }
    snapshots = new Map();
    return [{ kind: 'usage', ...total }];
  });
}

function snapshotOf(u: JsonObject): TokenTriple {
  return {
    input: num(u.input_tokens) + num(u.cache_creation_input_tokens),
    output: num(u.output_tokens),
    cached: num(u.cache_read_input_tokens),
  };
}
