// Which protocol is this agent speaking? Decided from the shape of the first
// JSON object it prints: each registered protocol says how surely the object
// is its own (its record's `detect`), and the surest claim wins, because
// several protocols share type names (`result`, `error`, `init`).

import type { Protocol } from '../core/types.js';
import { AGENT_PROTOCOLS } from './registry.js';
import { parseObject, type JsonObject } from './util.js';

export function detectProtocol(firstJsonLine: string): Protocol | null {
  const obj = parseObject(firstJsonLine);
  return obj ? detectObject(obj) : null;
}

export function detectObject(obj: JsonObject): Protocol | null {
  const type = obj.type;
  if (typeof type !== 'string') return null;
  let best: Protocol | null = null;
  let surest = -1;
  for (const p of AGENT_PROTOCOLS) {
    const certainty = p.detect?.(type, obj) ?? null;
    if (certainty !== null && certainty > surest) {
      best = p.name;
      surest = certainty;
    }
  }
  return best;
}
