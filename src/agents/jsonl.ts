// orcr's own agent protocol (the README's section of that name) → signals.
//
// One JSON object per line: ready, turn_start, usage, tool, text, turn_end,
// blocked, result. `usage.cost_usd` is the cost of THAT usage report (an
// increment, like its token counts), so the adapter keeps the running sum
// and emits it as `cost_usd_total` — the normalized signal's cost always
// replaces. `cached_tokens` is an optional extension, counted as cached.
// Turns are exactly what the agent says: usage, tool and text lines outside a
// turn do not open one; a turn_start while a turn is open closes it first.

import { BLOCKED_KINDS, type BlockedKind } from '../core/types.js';
import { CERTAINTY, defineProtocol } from './protocol.js';
import type { Adapter, Signal } from './signals.js';
import { createTurnTracker } from './turns.js';
import { jsonLinesAdapter, num, optNum, str, type JsonObject } from './util.js';

const TYPES = new Set(['ready', 'turn_start', 'turn_end', 'usage', 'tool', 'text', 'blocked']);

export const jsonl = defineProtocol({
  name: 'jsonl',
  // Generic type names: any other protocol's claim on a line comes first.
  detect(type, obj) {
    if (TYPES.has(type)) return CERTAINTY.generic;
    return type === 'result' && typeof obj.ok === 'boolean' ? CERTAINTY.generic : null;
  },
  adapter: () => createJsonlAdapter(),
  // One `{"type":"input","text":…}` a line; its agent says `ready` before its first input.
  input: { line: (text) => JSON.stringify({ type: 'input', text }) + '\n', announcesFirst: true },
  // `usage.cost_usd`, an increment.
  reportsCost: true,
  mock: async () => (await import('./mock/jsonl.js')).jsonlMock,
});

// An agent's own word for a block; `approval` is orcr's, for a request it holds (a jsonl agent never asks: it reads as unknown).
const BLOCKED: ReadonlySet<string> = new Set(BLOCKED_KINDS.filter((k) => k !== 'approval'));

export function createJsonlAdapter(): Adapter {
  const turns = createTurnTracker();
  let cost: number | undefined;

  function handle(obj: JsonObject): Signal[] | null {
    switch (obj.type) {
      case 'ready':
        return turns.alive({ session_id: str(obj.session_id), model: str(obj.model) });
      case 'turn_start':
        return turns.begin();
      case 'turn_end':
        return turns.end();
      case 'usage': {
        const increment = optNum(obj.cost_usd);
        if (increment !== undefined) cost = (cost ?? 0) + increment;
        const sig: Signal = {
          kind: 'usage',
          input: num(obj.input_tokens),
          output: num(obj.output_tokens),
          cached: num(obj.cached_tokens),
        };
        if (cost !== undefined) sig.cost_usd_total = cost;
        return [...turns.ensureAlive(), sig];
      }
      case 'tool': {
        const name = str(obj.name);
        if (!name) return null;
        return [...turns.ensureAlive(), { kind: 'tool', name, input: obj.input ?? null }];
      }
      case 'text': {
        const text = str(obj.text);
        if (text === undefined) return null;
        return [...turns.ensureAlive(), { kind: 'text', text }];
      }
      case 'blocked': {
        const kind = str(obj.kind);
        const sig: Signal = { kind: 'blocked', blocked: kind && BLOCKED.has(kind) ? (kind as BlockedKind) : 'unknown' };
        const retry = optNum(obj.retry_after_s);
        if (retry !== undefined) sig.retry_after_s = retry;
        const message = str(obj.message);
        if (message !== undefined) sig.message = message;
        return [...turns.ensureAlive(), sig];
      }
      case 'result': {
        const sig: Signal = { kind: 'result', ok: obj.ok === true };
        const text = str(obj.text);
        if (text !== undefined) sig.text = text;
        return [...turns.ensureAlive(), sig];
      }
      default:
        return null;
    }
  }

  return jsonLinesAdapter<Signal>(handle);
}
