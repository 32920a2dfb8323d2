// Claude Code `--output-format stream-json --verbose` → signals.
//
// Token accounting (see agent-formats.md, "Observed by running the real CLI"):
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

import type { Adapter, Signal } from './signals.js';
import type { TokenTriple } from './cumulative.js';
import { createTurnTracker } from './turns.js';
import { guarded, isObject, mentionsLimit, num, optNum, output, parseObject, str, type JsonObject } from './util.js';

const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

export function createClaudeAdapter(): Adapter {
  const turns = createTurnTracker();
  // Tool-use ids are unique across the whole session (the CLI requires it).
  const seenTools = new Set<string>();
  // Text blocks already emitted in the open turn; message ids never recur
  // across turns, so this is cleared at every result to bound memory.
  let seenText = new Set<string>();
  // Start-of-message usage snapshots of the open turn, one per message id.
  let snapshots = new Map<string, TokenTriple>();
  let anonymous = 0;

  function system(obj: JsonObject): Signal[] {
    const subtype = str(obj.subtype);
    if (subtype === 'init') return turns.alive({ session_id: str(obj.session_id), model: str(obj.model) });
    if (subtype === 'api_retry') {
      // The CLI retries by itself; a 429 attempt still means "rate limited
      // right now", with the CLI's own retry delay.
      const error = str(obj.error);
      if (num(obj.error_status) !== 429 && !mentionsLimit(error)) return [];
      const sig: Signal = { kind: 'blocked', blocked: 'limit' };
      const delay = optNum(obj.retry_delay_ms);
      if (delay !== undefined) sig.retry_after_s = delay / 1000;
      const attempt = optNum(obj.attempt);
      const max = optNum(obj.max_retries);
      sig.message = `api retry${attempt !== undefined ? ` ${attempt}${max !== undefined ? `/${max}` : ''}` : ''}: ${error ?? 'rate limited'}`;
      return [sig];
    }
    return [];
  }

  function assistant(obj: JsonObject): Signal[] | null {
    const message = obj.message;
    if (!isObject(message)) return null;
    const out = turns.start();
    const msgId = str(message.id);

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
    if (error === 'authentication_failed') out.push({ kind: 'blocked', blocked: 'login', message: firstText ?? error });
    else if (error === 'rate_limit') out.push({ kind: 'blocked', blocked: 'limit', message: firstText ?? error });
    return out;
  }

  function result(obj: JsonObject): Signal[] {
    const out = turns.start();
    const costTotal = optNum(obj.total_cost_usd);
    if (isObject(obj.usage) || costTotal !== undefined) {
      const u = isObject(obj.usage) ? snapshotOf(obj.usage) : { input: 0, output: 0, cached: 0 };
      const sig: Signal = { kind: 'usage', ...u };
      if (costTotal !== undefined) sig.cost_usd_total = costTotal;
      out.push(sig);
    }
    // `subtype:"success"` with `is_error:true` is a failure (auth, API error).
    const subtype = str(obj.subtype);
    const ok = (subtype === undefined || subtype === 'success') && obj.is_error !== true;
    const text = str(obj.result);
    if (!ok) {
      const errors = Array.isArray(obj.errors) ? obj.errors.filter((e): e is string => typeof e === 'string') : [];
      const why = [text ?? '', ...errors].join('\n');
      if (mentionsLimit(why)) out.push({ kind: 'blocked', blocked: 'limit', message: why.trim() });
    }
    const sig: Signal = { kind: 'result', ok };
    if (text !== undefined) sig.text = text;
    if (!ok) sig.detail = subtype && subtype !== 'success' ? subtype : 'is_error';
    out.push(sig, ...turns.end());
    snapshots = new Map();
    seenText = new Set();
    return out;
  }

  function rateLimitEvent(obj: JsonObject): Signal[] {
    // Mostly informational ("allowed", "allowed_warning"); only a hit limit blocks.
    const info = isObject(obj.rate_limit_info) ? obj.rate_limit_info : obj;
    const status = str(info.status) ?? '';
    if (/^allowed/i.test(status) || !/reject|exceed|block|limit|denied/i.test(status)) return [];
    const sig: Signal = { kind: 'blocked', blocked: 'limit', message: `rate limit ${status}` };
    const resetsAt = optNum(info.resetsAt);
    if (resetsAt !== undefined && resetsAt > 0) {
      // Epoch seconds; adapters have no clock, so it is reported, not converted to a delay.
      const when = new Date(resetsAt * 1000);
      if (!Number.isNaN(when.getTime())) sig.message += `, resets at ${when.toISOString()}`;
    }
    return [sig];
  }

  function handle(obj: JsonObject): Signal[] | null {
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

  return guarded({
    line(l) {
      const obj = parseObject(l);
      if (!obj) return [output(l)];
      return handle(obj) ?? [output(l)];
    },
    end() {
      if (!turns.inTurn || snapshots.size === 0) return [];
      const total = { input: 0, output: 0, cached: 0 };
      for (const u of snapshots.values()) {
        total.input += u.input;
        total.output += u.output;
        total.cached += u.cached;
      }
      snapshots = new Map();
      return [{ kind: 'usage', ...total }];
    },
  });
}

function snapshotOf(u: JsonObject): TokenTriple {
  return {
    input: num(u.input_tokens) + num(u.cache_creation_input_tokens),
    output: num(u.output_tokens),
    cached: num(u.cache_read_input_tokens),
  };
}
