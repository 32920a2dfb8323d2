// Any agent that speaks ACP, the Agent Client Protocol (JSON-RPC 2.0 over
// stdio): its record, Gemini CLI's preset first (`gemini --acp`). orcr is the
// client — it opens (or loads) the session (ids.ts), sends each prompt, and
// answers the agent's permission requests with one of its own options
// (asks.ts, answers.ts) — and reads the rest in reader.ts. It declares no
// file-system or terminal capabilities: the agent uses its own tools in the
// run's folder, and a request for orcr's is answered "method not found".

import { VERSION } from '../../cli/version.js';
import { defineProtocol } from '../protocol.js';
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
    command: ['gemini', '--acp'],
  },
});
