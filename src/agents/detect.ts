// Which protocol is this agent speaking? Decided from the shape of the first
// JSON object it prints. Checks are ordered from most to least specific,
// because several protocols share type names (`result`, `error`, `init`).

import type { Protocol } from '../core/types.js';
import { isObject, parseObject, type JsonObject } from './util.js';

const JSONL_TYPES = new Set(['ready', 'turn_start', 'turn_end', 'usage', 'tool', 'text', 'blocked']);
const CLAUDE_TYPES = new Set(['assistant', 'user', 'result', 'rate_limit_event', 'stream_event']);
const CODEX_TYPES = new Set(['thread.started', 'turn.started', 'turn.completed', 'turn.failed', 'request_user_input']);

export function detectProtocol(firstJsonLine: string): Protocol | null {
  const obj = parseObject(firstJsonLine);
  return obj ? detectObject(obj) : null;
}

export function detectObject(obj: JsonObject): Protocol | null {
  const type = obj.type;
  if (typeof type !== 'string') return null;
  const has = (k: string): boolean => obj[k] !== undefined && obj[k] !== null;

  // Claude Code: system lines, and messages/results stamped with session_id.
  if (type === 'system' && (obj.subtype === 'init' || has('session_id'))) return 'claude';
  if (CLAUDE_TYPES.has(type) && typeof obj.session_id === 'string') return 'claude';
  if (type === 'assistant' && isObject(obj.message)) return 'claude';

  // Codex: dotted thread/turn/item events.
  if (CODEX_TYPES.has(type) || type.startsWith('item.')) return 'codex';

  // Gemini: every event carries an ISO timestamp.
  if (type === 'init' && (has('timestamp') || has('session_id'))) return 'gemini';
  if (type === 'message' && typeof obj.role === 'string') return 'gemini';
  if (type === 'tool_use' && typeof obj.tool_name === 'string') return 'gemini';
  if (type === 'tool_result' && has('tool_id')) return 'gemini';
  if (type === 'error' && typeof obj.severity === 'string') return 'gemini';
  if (type === 'result' && (has('stats') || (typeof obj.status === 'string' && has('timestamp')))) return 'gemini';

  // orcr's own protocol.
  if (JSONL_TYPES.has(type)) return 'jsonl';
  if (type === 'result' && typeof obj.ok === 'boolean') return 'jsonl';

  // Codex's bare error notice (seen first when it starts offline).
  if (type === 'error' && typeof obj.message === 'string') return 'codex';
  return null;
}
