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
// Requests (`--permission-prompt-tool stdio`, claude/asks.ts): a can_use_tool
// control_request is an `approval`, a control_cancel_request withdraws it;
// the CLI's own refusals (`system`/`permission_denied`) are `denied`. A
// result's `permission_denials` are not read: with a prompt tool they list
// orcr's own denials too, and without one the system lines said them already.
// A turn a refusal with `interrupt` ended (`error_during_execution`,
// terminal_reason `aborted_tools`) reads as the failed result it is: orcr's
// answers never interrupt.
//
// Model turns (option `modelTurns`): one `model_turn` per assistant message,
// emitted when the next message begins or the turn's result arrives — after
// all of that message's lines, which share one message.id.

import type { Adapter, AdapterOptions, ExtendedAdapter, ExtendedSignal, PlainAdapterOptions, Signal } from '../signals.js';
import { createTurnTracker } from '../turns.js';
import { jsonLinesAdapter, isObject, str, withModelTurns, type JsonObject } from '../util.js';
import { cancelled, canUseTool, permissionDenied } from './asks.js';
import { createTurnLimits } from './limits.js';
import { createAssistantMessages } from './messages.js';
import { createResults } from './result.js';

export function createClaudeAdapter(options?: PlainAdapterOptions): Adapter;
export function createClaudeAdapter(options: AdapterOptions): ExtendedAdapter;
export function createClaudeAdapter(options?: AdapterOptions): Adapter | ExtendedAdapter {
  return withModelTurns(createCore(options?.now ?? Date.now), options);
}

function createCore(now: () => number): ExtendedAdapter {
  const turns = createTurnTracker();
  const limits = createTurnLimits(now);
  const messages = createAssistantMessages();
  const results = createResults(limits);

  function system(obj: JsonObject): Signal[] {
    const subtype = str(obj.subtype);
    if (subtype === 'init') return turns.alive({ session_id: str(obj.session_id), model: str(obj.model) });
    if (subtype === 'permission_denied') return permissionDenied(obj);
    return subtype === 'api_retry' ? limits.apiRetry(obj) : [];
  }

  function assistant(obj: JsonObject): ExtendedSignal[] | null {
    const read = messages.read(obj);
    if (!read) return null;
    const out: ExtendedSignal[] = [...turns.start(), ...read.signals];
    // A top-level `error` marks a synthetic message the CLI wrote itself.
    const error = str(obj.error);
    if (error === 'authentication_failed') {
      limits.blocked = 'login';
      out.push({ kind: 'blocked', blocked: 'login', message: read.firstText ?? error });
    } else if (error === 'rate_limit') {
      limits.blocked = 'limit';
      out.push(limits.limitBlock(read.firstText ?? error, read.firstText));
    }
    return out;
  }

  function result(obj: JsonObject): ExtendedSignal[] {
    const out: ExtendedSignal[] = [...turns.start(), ...messages.close(), ...results.read(obj), ...turns.end()];
    messages.endTurn();
    limits.endTurn();
    return out;
  }

  /** The CLI asking orcr: a tool it wants to use is an approval; what else it asks (hooks, MCP) is not answered here. */
  function controlRequest(obj: JsonObject): ExtendedSignal[] | null {
    const request = obj.request;
    return isObject(request) && request.subtype === 'can_use_tool' ? one(canUseTool(obj)) : [];
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
        return limits.rateLimitEvent(obj);
      case 'stream_event':
        // Partial-message events (--include-partial-messages) open the turn early.
        return turns.start();
      case 'control_request':
        return controlRequest(obj);
      case 'control_cancel_request':
        return one(cancelled(obj));
      default:
        // Answers to requests orcr sends (control_response), and what else the channel carries.
        return type.startsWith('control_') ? [] : null;
    }
  }

  return jsonLinesAdapter<ExtendedSignal>(handle, () => {
    const left = turns.inTurn ? messages.takeSnapshots() : null;
    return left ? [{ kind: 'usage', ...left }] : [];
  });
}

/** A signal, or null (the line kept as output) when the line could not say one. */
function one(signal: Signal | null): Signal[] | null {
  return signal ? [signal] : null;
}
