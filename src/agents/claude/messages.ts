// Claude Code's `assistant` lines: one model message may come as several
// lines sharing its message.id, each with a start-of-message usage snapshot
// and some of its blocks (repeated, or one block a line). Texts and tool
// calls are emitted once; the snapshots are kept for a turn whose result
// never comes; a message's end is a `model_turn` boundary.

import type { TokenTriple } from '../cumulative.js';
import type { ExtendedSignal } from '../signals.js';
import { isObject, num, str, type JsonObject } from '../util.js';

const TOOL_BLOCKS = new Set(['tool_use', 'server_tool_use', 'mcp_tool_use']);

export interface AssistantMessages {
  /** One `assistant` line's texts and tool calls (the turn's start is the caller's), or null when it has no message. */
  read(obj: JsonObject): { signals: ExtendedSignal[]; firstText: string | undefined } | null;
  /** The message being printed ends: a model_turn, if one was open. */
  close(): ExtendedSignal[];
  /** The open turn's snapshots, summed: a lower bound of its usage when its result never comes. */
  takeSnapshots(): TokenTriple | null;
  /** The turn's result is in. */
  endTurn(): void;
}

export function createAssistantMessages(): AssistantMessages {
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

  function snapshot(key: string, usage: JsonObject): void {
    const u = snapshotOf(usage);
    const prev = snapshots.get(key);
    snapshots.set(key, prev ? { input: Math.max(prev.input, u.input), output: Math.max(prev.output, u.output), cached: Math.max(prev.cached, u.cached) } : u);
  }

  const messages: AssistantMessages = {
    read(obj) {
      const message = obj.message;
      if (!isObject(message)) return null;
      const out: ExtendedSignal[] = [];
      const msgId = str(message.id);
      // A new message closes the previous one (lines of one message share its id).
      if (openMessage !== null && (msgId === undefined || msgId !== openMessage)) out.push(...messages.close());
      openMessage = msgId ?? `\0anon${anonymous}`;
      if (isObject(message.usage)) snapshot(msgId ?? `\0anon${anonymous++}`, message.usage);
      const firstText = blocks(message, msgId, seenText, seenTools, out);
      return { signals: out, firstText };
    },
    close() {
      if (openMessage === null) return [];
      openMessage = null;
      return [{ kind: 'model_turn' }];
    },
    takeSnapshots() {
      if (snapshots.size === 0) return null;
      const total = { input: 0, output: 0, cached: 0 };
      for (const u of snapshots.values()) {
        total.input += u.input;
        total.output += u.output;
        total.cached += u.cached;
      }
      snapshots = new Map();
      return total;
    },
    endTurn() {
      snapshots = new Map();
      seenText = new Set();
    },
  };
  return messages;
}

/** A message's text and tool blocks, each once, into `out`; its first text (a synthetic message's words). */
function blocks(message: JsonObject, msgId: string | undefined, seenText: Set<string>, seenTools: Set<string>, out: ExtendedSignal[]): string | undefined {
  const content = message.content;
  const list: unknown[] = Array.isArray(content) ? content : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
  let firstText: string | undefined;
  list.forEach((block, index) => {
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
  return firstText;
}

/** A usage object in orcr's terms: "input" billed at (or above) the base input rate, "cached" the cheap cache reads. */
export function snapshotOf(u: JsonObject): TokenTriple {
  return {
    input: num(u.input_tokens) + num(u.cache_creation_input_tokens),
    output: num(u.output_tokens),
    cached: num(u.cache_read_input_tokens),
  };
}
