// What a protocol takes on stdin: whether its agent reads input between
// turns, and how one input is written (its record's `input`: a Claude
// stream-json user message, an orcr jsonl input line), else the text itself.

import type { Protocol } from '../core/types.js';
import { agentProtocol } from './registry.js';

/** The agent reads input after its prompt (a multi-turn session). */
export function acceptsInput(protocol: Protocol | null): boolean {
  return agentProtocol(protocol)?.input !== undefined;
}

/** The agent prints a line before its first input (orcr jsonl's `ready`); others say nothing until they get one. */
export function announcesBeforeInput(protocol: Protocol | null): boolean {
  return agentProtocol(protocol)?.input?.announcesFirst === true;
}

/** One input, as a line the agent's protocol reads. */
export function inputLine(protocol: Protocol | null, text: string): string {
  const input = agentProtocol(protocol)?.input;
  if (input) return input.line(text);
  return text.endsWith('\n') ? text : text + '\n';
}
