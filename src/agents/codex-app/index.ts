// OpenAI Codex on its app-server (`codex app-server`, JSON-RPC over stdio,
// what its own IDE extension drives): its record. orcr is the client — it
// opens the thread (ids.ts), starts each turn, and answers Codex's requests
// before it acts (asks.ts, answers.ts) — and reads the rest in reader.ts.
// Unlike `codex exec`, a run takes input between turns (`orcr send`), asks
// orcr before a command outside its sandbox, and carries on its own thread
// after a limit by `thread/resume` in the same command.

import { VERSION } from '../../cli/version.js';
import { defineProtocol } from '../protocol.js';
import { answerLine } from './answers.js';
import { openingLines, turnLine } from './ids.js';
import { createCodexAppAdapter } from './reader.js';

export const codexApp = defineProtocol({
  name: 'codex-app',
  adapter: (options) => createCodexAppAdapter(options),
  conversation: { opening: (ctx) => openingLines(ctx, VERSION) },
  input: { line: turnLine },
  // A request of Codex's names its method before its params (a patch's files, which may be long).
  approvals: { answer: answerLine, carriesRequest: (head) => /"method"\s*:\s*"item\/[A-Za-z]+\/request[A-Za-z]+"/.test(head.slice(0, 300)) },
  // The same command: the thread goes on through the opening (`thread/resume`), not the argv.
  resume: (command) => (command.length > 0 ? [...command] : null),
  accountEnv: 'CODEX_HOME',
  mock: async () => (await import('../mock/codex-app.js')).codexAppMock,
  reportsCost: false,
  preset: {
    command: ['codex', 'app-server'],
    takeover: { title: 'Codex', args: (session) => ['resume', session] },
  },
});
