// OpenAI Codex on its app-server (`codex app-server`, JSON-RPC over stdio,
// what its own IDE extension drives): its record. orcr is the client — it
// opens the thread (ids.ts), starts each turn, and answers Codex's requests
// before it acts (asks.ts, answers.ts) — and reads the rest in reader.ts.
// Unlike `codex exec`, a run takes input between turns (`orcr send`), asks
// orcr before a command outside its sandbox, and carries on its own thread
// after a limit by `thread/resume` in the same command.

import { VERSION } from '../../cli/version.js';
import { defineProtocol, type TranscriptExtra } from '../protocol.js';
import { isObject, str } from '../util.js';
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
  // A command's output and exit code, a patch refused, and the errors Codex gave up on.
  transcript: {
    types: ['item/completed', 'error'],
    read(obj): TranscriptExtra[] {
      const params = isObject(obj.params) ? obj.params : {};
      if (obj.method === 'error' && isObject(params.error) && params.willRetry !== true)
        return typeof params.error.message === 'string' ? [{ kind: 'error', text: params.error.message }] : [];
      const it = obj.method === 'item/completed' && isObject(params.item) ? params.item : null;
      if (it?.type !== 'commandExecution') return [];
      const code = typeof it.exitCode === 'number' ? it.exitCode : null;
      const text = (str(it.aggregatedOutput) ?? '').replace(/\n$/, '');
      const declined = it.status === 'declined';
      return [
        { kind: 'tool_result', text: declined ? 'declined' : text || (code !== null ? `exit ${code}` : ''), failed: declined || (code !== null && code !== 0) },
      ];
    },
  },
  // The `codex` preset: what Codex's own IDE extension drives, carrying all that `exec --json` did and more.
  preset: {
    name: 'codex',
    command: ['codex', 'app-server'],
    takeover: { title: 'Codex', args: (session) => ['resume', session] },
  },
});
