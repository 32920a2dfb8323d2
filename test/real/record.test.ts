// Re-records test/real/transcripts/ from the real CLIs (after changing the
// pins in test/support/install-agents.mjs):
//   ORCR_TEST_REAL=1 ORCR_RECORD_TRANSCRIPTS=1 npx vitest run --config test/vitest.config.ts test/real/record.test.ts
// Skipped otherwise. Temp paths and ports are rewritten so the files are stable.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { httpError, text, toolCall, type Step } from '../support/model-server.js';
import { needAgent, Rig } from '../support/real-agents.js';
import { describeWhen, itWhen } from '../support/skip.js';

const DEST = path.join(path.dirname(fileURLToPath(import.meta.url)), 'transcripts');
const RECORD = process.env.ORCR_RECORD_TRANSCRIPTS === '1';

let rigs: Rig[] = [];
afterEach(async () => {
  for (const r of rigs) await r.cleanup();
  rigs = [];
});
async function rig(): Promise<Rig> {
  const r = await Rig.create();
  rigs.push(r);
  return r;
}

function save(r: Rig, uuid: string, name: string, maxLines = 20): void {
  const raw = fs.readFileSync(path.join(r.home.runDir(uuid), 'out'), 'utf8');
  const clean = raw
    .split(path.dirname(r.work))
    .join('/tmp/orcr-real')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:PORT');
  const lines = clean.split('\n').filter((l) => l !== '');
  fs.mkdirSync(path.dirname(path.join(DEST, name)), { recursive: true });
  fs.writeFileSync(path.join(DEST, name), lines.slice(0, maxLines).join('\n') + '\n');
}

const codexShell = (cmd: string, usage: { input: number; output: number; cached?: number }): Step => ({
  kind: 'reply',
  tools: [{ name: 'exec_command', input: { cmd } }],
  usage,
});

describeWhen(
  RECORD ? null : { reason: 'recording the transcripts runs only with ORCR_RECORD_TRANSCRIPTS=1', optional: true },
  'record transcripts from the real CLIs',
  () => {
    itWhen(needAgent('claude'), 'claude', async () => {
      const r = await rig();
      r.server.script(
        'anthropic',
        toolCall('Bash', { command: 'echo made-it > marker', description: 'make the marker' }, { input: 120, output: 30, cached: 400, cacheCreation: 50 }),
        text('The marker exists now.', { input: 160, output: 12, cached: 450 }),
      );
      let run = await r.run('claude', 'a', 'make the marker file');
      await r.ended('a');
      save(r, run.uuid, 'claude/tool-turn.jsonl');

      r.server.script(
        'anthropic',
        toolCall('Bash', { command: 'echo first > first.txt', description: 'first' }, { input: 100, output: 20, cached: 50 }),
        text('Turn one done.', { input: 130, output: 8 }),
        text('Turn two done.', { input: 200, output: 10, cached: 100, cacheCreation: 30 }),
      );
      run = await r.run('claude', 'b', 'start the work', ['--interactive']);
      await r.wait('b');
      await r.cli(['send', 'b', 'now the second part']);
      await r.wait('b');
      await r.cli(['kill', 'b']);
      await r.ended('b');
      save(r, run.uuid, 'claude/two-turns.jsonl');

      let n = 0;
      r.server.fallback('anthropic', (): Step =>
        n++ < 2 ? httpError(429, { retryAfterS: 2, message: 'rate limited' }) : text('Recovered.', { input: 40, output: 6 }),
      );
      run = await r.run('claude', 'c', 'do the thing');
      await r.ended('c');
      save(r, run.uuid, 'claude/rate-limit-retry.jsonl');

      run = await r.run('claude', 'd', 'hello', [], { ANTHROPIC_API_KEY: '' });
      await r.ended('d');
      save(r, run.uuid, 'claude/not-logged-in.jsonl');

      r.server.fallback('anthropic', httpError(401, { message: 'invalid x-api-key' }));
      run = await r.run('claude', 'e', 'hello', [], { CLAUDE_CODE_MAX_RETRIES: '1' });
      await r.ended('e');
      save(r, run.uuid, 'claude/bad-key.jsonl');

      r.server.fallback('anthropic', toolCall('Bash', { command: 'echo same', description: 'again' }, { input: 50, output: 5 }));
      run = await r.run('claude', 'f', 'keep checking', ['--loop', 'off', '--timeout', '6s']);
      await r.ended('f');
      save(r, run.uuid, 'claude/repeating-tool.jsonl');

      // A subscription's usage limit (an OAuth login reads the unified rate-limit headers), reset `resetS` from now.
      const usageLimit = (resetS: number): (() => Step) => {
        const reset = String(Math.floor(Date.now() / 1000) + resetS);
        return () =>
          Date.now() / 1000 < Number(reset)
            ? httpError(429, {
                message: "This request would exceed your account's rate limit. Please try again later.",
                headers: {
                  'anthropic-ratelimit-unified-status': 'rejected',
                  'anthropic-ratelimit-unified-reset': reset,
                  'anthropic-ratelimit-unified-representative-claim': 'five_hour',
                  'anthropic-ratelimit-unified-overage-status': 'rejected',
                },
              })
            : text('Carried on and done.', { input: 30, output: 5 });
      };
      const oauth = { CLAUDE_CODE_OAUTH_TOKEN: 'test-oauth-token' };
      // By default `-p` stops at once: the limit's words in a failed result.
      r.server.fallback('anthropic', usageLimit(3600));
      run = await r.run('claude', 'g', 'write the summary', ['--on-limit', 'end'], oauth, ['ANTHROPIC_API_KEY']);
      await r.ended('g');
      save(r, run.uuid, 'claude/usage-limit.jsonl');
      await r.cli(['provider', 'resume', 'claude']);
      // CLAUDE_CODE_RETRY_WATCHDOG=1: the CLI waits for the reset itself, saying so every 30 s, then goes on.
      r.server.fallback('anthropic', usageLimit(35));
      run = await r.run('claude', 'h', 'write the summary', [], { ...oauth, CLAUDE_CODE_RETRY_WATCHDOG: '1' }, ['ANTHROPIC_API_KEY']);
      await r.ended('h', 120_000);
      save(r, run.uuid, 'claude/usage-limit-wait.jsonl');
    });

    itWhen(needAgent('codex'), 'codex', async () => {
      const r = await rig();
      r.server.script(
        'openai',
        codexShell('echo made-it > marker', { input: 900, output: 40, cached: 300 }),
        text('The marker is there.', { input: 1000, output: 12, cached: 1200 }),
      );
      let run = await r.run('codex', 'a', 'make the marker');
      await r.ended('a');
      save(r, run.uuid, 'codex/tool-turn.jsonl');

      r.server.fallback('openai', httpError(429, { errorType: 'usage_limit_reached', message: 'The usage limit has been reached' }));
      run = await r.run('codex', 'b', 'do it');
      await r.ended('b');
      save(r, run.uuid, 'codex/usage-limit.jsonl');
      await r.cli(['provider', 'resume', 'codex']);

      r.server.fallback('openai', httpError(401, { message: 'Incorrect API key provided' }));
      run = await r.run('codex', 'c', 'do it');
      await r.ended('c');
      save(r, run.uuid, 'codex/bad-key.jsonl');

      run = await r.run('codex', 'd', 'do it', [], {}, ['MOCK_API_KEY']);
      await r.ended('d');
      save(r, run.uuid, 'codex/missing-key.jsonl');

      r.server.fallback('openai', codexShell('echo same', { input: 50, output: 5 }));
      run = await r.run('codex', 'e', 'keep checking', ['--loop', 'off', '--timeout', '5s']);
      await r.ended('e');
      save(r, run.uuid, 'codex/repeating-tool.jsonl', 16);

      const srv = net.createServer();
      await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
      const port = (srv.address() as net.AddressInfo).port;
      await new Promise<void>((res) => srv.close(() => res()));
      r.configureAgents({ baseUrl: `http://127.0.0.1:${port}/v1` });
      run = await r.run('codex', 'f', 'do it', ['--timeout', '25s']);
      await r.ended('f');
      save(r, run.uuid, 'codex/offline.jsonl');
    });

    itWhen(needAgent('gemini'), 'gemini', async () => {
      const r = await rig();
      r.server.script(
        'gemini',
        toolCall('run_shell_command', { command: 'echo made-it > marker', description: 'make the marker' }, { input: 700, output: 30, cached: 200 }),
        text('The marker is there.', { input: 800, output: 9, cached: 900 }),
      );
      let run = await r.run('gemini', 'a', 'make the marker');
      await r.ended('a');
      save(r, run.uuid, 'gemini/tool-turn.jsonl');

      r.server.fallback('gemini', httpError(429, { retryAfterS: 7, message: 'Resource has been exhausted (e.g. check quota).' }));
      run = await r.run('gemini', 'b', 'do it');
      await r.ended('b');
      save(r, run.uuid, 'gemini/quota.jsonl');

      r.server.fallback('gemini', httpError(401, { message: 'API key not valid. Please pass a valid API key.' }));
      run = await r.run('gemini', 'c', 'do it');
      await r.ended('c');
      save(r, run.uuid, 'gemini/bad-key.jsonl');

      run = await r.run('gemini', 'd', 'do it', [], { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' });
      await r.ended('d');
      save(r, run.uuid, 'gemini/offline.jsonl');

      r.server.fallback('gemini', toolCall('run_shell_command', { command: 'echo same', description: 'again' }, { input: 50, output: 5 }));
      run = await r.run('gemini', 'e', 'keep checking', ['--loop', 'off']);
      await r.ended('e');
      save(r, run.uuid, 'gemini/self-loop.jsonl');
    });
  },
  { timeout: 300_000 },
);
