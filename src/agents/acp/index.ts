// Any agent that speaks ACP, the Agent Client Protocol (JSON-RPC 2.0 over
// stdio): its record, Gemini CLI's preset first (`gemini --acp`). orcr is the
// client — it opens (or loads) the session (ids.ts), sends each prompt, and
// answers the agent's permission requests with one of its own options
// (asks.ts, answers.ts) — and reads the rest in reader.ts. It declares no
// file-system or terminal capabilities: the agent uses its own tools in the
// run's folder, and a request for orcr's is answered "method not found".

import { VERSION } from '../../cli/version.js';
import { defineProtocol, type TranscriptExtra } from '../protocol.js';
import { isObject } from '../util.js';
import { answerLine } from './answers.js';
import { openingLines, promptLine } from './ids.js';
import { createAcpAdapter } from './reader.js';

export const acp = defineProtocol({
  name: 'acp',
  adapter: (options) => createAcpAdapter(options),
  conversation: { opening: (ctx) => openingLines(ctx, VERSION) },
  input: { line: promptLine },
  approvals: { answer: answerLine, carriesRequest: (head) => /"method"\s*:\s*"session\/request_permission"/.test(head.slice(0, 300)) },
  // The same command: the session goes on through the opening (`session/load`), where the agent offers it.
  resume: (command) => (command.length > 0 ? [...command] : null),
  reportsCost: false,
  mock: async () => (await import('../mock/acp.js')).acpMock,
  preset: {
    name: 'gemini-acp',
    command: ['gemini', '--acp'],
    // The session an ACP run opened is one of Gemini CLI's own (test/real/acp.test.ts): the TUI resumes it by its id.
    takeover: { title: 'Gemini', args: (session) => ['--resume', session] },
  },
  // A tool call's outcome: its text content, once it completed or failed.
  transcript: {
    types: ['tool_call_update'],
    read(obj): TranscriptExtra[] {
      const u = isObject(obj.params) && isObject(obj.params.update) ? obj.params.update : null;
      if (u?.sessionUpdate !== 'tool_call_update' || (u.status !== 'completed' && u.status !== 'failed')) return [];
      return [{ kind: 'tool_result', text: contentText(u.content), failed: u.status === 'failed' }];
    },
  },
});

/** A tool call's content: its text blocks, and a diff as the file it changes. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => {
      if (!isObject(c)) return '';
      if (c.type === 'diff') return typeof c.path === 'string' ? `(changed ${c.path})` : '';
      const block = isObject(c.content) ? c.content : null;
      return block && typeof block.text === 'string' ? block.text : '';
    })
    .filter(Boolean)
    .join('\n');
}
