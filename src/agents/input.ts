// What each protocol takes on stdin: whether its agent reads input between
// turns, and how one input is written (a Claude stream-json user message, an
// orcr jsonl input line, or the text itself). Protocol knowledge lives here,
// with the adapters that read the other direction.

import type { Protocol } from '../core/types.js';

/** The agent reads input after its prompt (a multi-turn session): claude (stream-json input) and orcr's jsonl. */
export function acceptsInput(protocol: Protocol | null): boolean {
  return protocol === 'claude' || protocol === 'jsonl';
}

/** One input, as a line the agent's protocol reads. */
export function inputLine(protocol: Protocol | null, text: string): string {
  if (protocol === 'claude') {
    return JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: 'default' }) + '\n';
  }
  if (protocol === 'jsonl') return JSON.stringify({ type: 'input', text }) + '\n';
  return text.endsWith('\n') ? text : text + '\n';
}
