// What a protocol takes on stdin: whether its agent reads input between
// turns, and how one input is written (its record's `input`: a Claude
// stream-json user message, an orcr jsonl input line), else the text itself.

import type { Protocol } from '../core/types.js';
import type { InputContext } from './protocol.js';
import { agentProtocol } from './registry.js';

/** The agent reads input after its prompt (a multi-turn session). */
export function acceptsInput(protocol: Protocol | null): boolean {
  return agentProtocol(protocol)?.input !== undefined;
}

/**
 * The agent prints a line before its first input (orcr jsonl's `ready`, a
 * two-way protocol's answer to its opening); others say nothing until they
 * get one.
 */
export function announcesBeforeInput(protocol: Protocol | null): boolean {
  const p = agentProtocol(protocol);
  return p?.input?.announcesFirst === true || p?.conversation !== undefined;
}

/** One input, as a line the agent's protocol reads; `ctx` says where it goes (a two-way protocol's session) and which it is. */
export function inputLine(protocol: Protocol | null, text: string, ctx: InputContext): string {
  const input = agentProtocol(protocol)?.input;
  if (input) return input.line(text, ctx);
  return text.endsWith('\n') ? text : text + '\n';
}

/**
 * What the wrapper writes first: a two-way protocol's opening (its session
 * resumed when `session` is given), else the prompt as the first input;
 * null when nothing goes first.
 */
export function firstInput(protocol: Protocol | null, prompt: string | null, ctx: { cwd: string; session: string | null }): string | null {
  const conversation = agentProtocol(protocol)?.conversation;
  if (conversation) return conversation.opening(ctx);
  return prompt === null ? null : inputLine(protocol, prompt, { session: null, seq: 1 });
}
