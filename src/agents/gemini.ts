// Gemini CLI `--output-format stream-json` → signals.
//
// - Text: assistant `message` events arrive as `delta:true` chunks. Chunks are
//   concatenated and ONE text signal is emitted per assistant message — when
//   anything else arrives (tool_use, tool_result, a user message, error,
//   result) or at end(). A non-delta assistant message is a complete message
//   of its own.
// - Usage: `result.stats` are the session's running totals (the CLI converts
//   its session metrics), so they are diffed like Codex's (cumulative.ts).
//   `input_tokens` is the prompt count and INCLUDES `cached` (the CLI's own
//   types call `cached` and `input` a breakdown of input_tokens), so
//   input = input_tokens − cached (or `input` when present), cached = cached,
//   output = output_tokens. Gemini reports no cost.
// - result ok iff status === "success".

import type { Adapter, Signal } from './signals.js';
import { createCumulativeCounter } from './cumulative.js';
import { createTurnTracker } from './turns.js';
import { guarded, isObject, mentionsLimit, num, optNum, output, parseObject, str, type JsonObject } from './util.js';

export function createGeminiAdapter(): Adapter {
  const turns = createTurnTracker();
  const usage = createCumulativeCounter();
  let pending: string | null = null;

  /** Close the assistant message being streamed, if any. */
  function flush(): Signal[] {
    if (pending === null) return [];
    const text = pending;
    pending = null;
    return text ? [{ kind: 'text', text }] : [];
  }

  function message(obj: JsonObject): Signal[] | null {
    const role = str(obj.role);
    const content = str(obj.content);
    if (role === undefined || content === undefined) return null;
    const out = turns.start();
    if (role !== 'assistant') {
      out.push(...flush());
      return out;
    }
    if (obj.delta === true) {
      pending = (pending ?? '') + content;
      return out;
    }
    out.push(...flush());
    if (content) out.push({ kind: 'text', text: content });
    return out;
  }

  function toolUse(obj: JsonObject): Signal[] | null {
    const name = str(obj.tool_name);
    if (!name) return null;
    const out = turns.start();
    out.push(...flush(), { kind: 'tool', name, input: obj.parameters ?? null });
    return out;
  }

  function error(obj: JsonObject): Signal[] {
    const out = flush();
    const msg = str(obj.message);
    if (str(obj.severity) !== 'warning' && mentionsLimit(msg)) {
      out.push({ kind: 'blocked', blocked: 'limit', message: msg ?? 'quota exceeded' });
    }
    return out;
  }

  function result(obj: JsonObject): Signal[] {
    const out = turns.start();
    out.push(...flush());
    if (isObject(obj.stats)) {
      const s = obj.stats;
      const cached = num(s.cached);
      const input = optNum(s.input) ?? Math.max(0, num(s.input_tokens) - cached);
      out.push({ kind: 'usage', ...usage.next({ input, output: num(s.output_tokens), cached }) });
    }
    const ok = str(obj.status) === 'success';
    const sig: Signal = { kind: 'result', ok };
    if (!ok) {
      const err = isObject(obj.error) ? obj.error : undefined;
      const msg = err ? str(err.message) : undefined;
      if (msg !== undefined) sig.text = msg;
      sig.detail = (err && str(err.type)) ?? str(obj.status) ?? 'error';
      if (mentionsLimit(msg) || mentionsLimit(err ? str(err.type) : undefined)) {
        out.push({ kind: 'blocked', blocked: 'limit', message: msg ?? 'quota exceeded' });
      }
    }
    out.push(sig, ...turns.end());
    return out;
  }

  function handle(obj: JsonObject): Signal[] | null {
    const type = obj.type;
    if (typeof type !== 'string') return null;
    switch (type) {
      case 'init':
        return turns.alive({ session_id: str(obj.session_id), model: str(obj.model) });
      case 'message':
        return message(obj);
      case 'tool_use':
        return toolUse(obj);
      case 'tool_result':
        return flush();
      case 'error':
        return error(obj);
      case 'result':
        return result(obj);
      default:
        return null;
    }
  }

  return guarded({
    line(l) {
      const obj = parseObject(l);
      if (!obj) return [output(l)];
      return handle(obj) ?? [output(l)];
    },
    end() {
      return flush();
    },
  });
}
