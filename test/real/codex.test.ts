// orcr supervising the REAL Codex CLI (`codex exec --json`, the built-in
// preset), with a custom model provider pointed at the scripted model server
// (OpenAI Responses API) through $HOME/.codex/config.toml.

import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect, it } from 'vitest';
import { httpError, text, type RecordedRequest, type Step } from '../support/model-server.js';
import { announce, needAgent, useRigs } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';
import { roundCost } from '../../src/core/budget.js';

announce('codex');

const rig = useRigs();

/**
 * A shell tool call in whatever form this Codex version offers: recent
 * versions offer `exec_command {cmd}`, older ones `shell {command: argv}` or
 * `shell_command {command}`.
 */
function codexShell(cmd: string, usage: { input: number; output: number; cached?: number }): (req: RecordedRequest) => Step {
  return (req) => {
    const names = new Set<string>((req.body?.tools ?? []).map((t: { name?: string }) => t.name).filter(Boolean));
    const call = names.has('exec_command')
      ? { name: 'exec_command', input: { cmd } }
      : names.has('shell_command')
        ? { name: 'shell_command', input: { command: cmd } }
        : { name: 'shell', input: { command: ['bash', '-lc', cmd] } };
    return { kind: 'reply', tools: [call], usage };
  };
}

/** Tool outputs Codex fed back to the model. */
function functionOutputs(req: RecordedRequest): string[] {
  return (req.body?.input ?? [])
    .filter((i: { type?: string }) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
    .map((i: { output?: unknown }) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
}

async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describeWhen(
  needAgent('codex'),
  'real Codex CLI',
  () => {
    it('one scripted turn: runs the tool call, completes, and its tokens (and priced cost) match the CLI’s turn.completed', async () => {
      const r = await rig({ config: { providers: { 'codex-exec': { price: { input_per_mtok: 1.25, output_per_mtok: 10, cached_input_per_mtok: 0.125 } } } } });
      const marker = path.join(r.work, 'codex-marker');
      r.server.script(
        'openai',
        codexShell(`touch ${marker} && echo made-it`, { input: 900, output: 40, cached: 300 }),
        text('The marker is there.', { input: 1000, output: 12, cached: 1200 }),
      );
      const run = await r.run('codex-exec', 'cx', 'make the marker');
      expect(run.command).toContain('--skip-git-repo-check');
      const shown = await r.ended('cx');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(shown.exit_code).toBe(0);
      expect(fs.existsSync(marker)).toBe(true);

      const out = r.outLines(run.uuid);
      const done = out.filter((o) => o.type === 'turn.completed');
      expect(done).toHaveLength(1);
      const u = done[0].usage;
      // input_tokens includes the cached part: orcr counts it apart.
      expect(shown.tokens).toEqual({ input: u.input_tokens - u.cached_input_tokens, output: u.output_tokens, cached: u.cached_input_tokens });
      expect(shown.tokens).toEqual({ input: 1900, output: 52, cached: 1500 });
      // orcr reports costs to a millionth of a dollar.
      expect(shown.cost_usd).toBe(roundCost((1900 * 1.25 + 52 * 10 + 1500 * 0.125) / 1e6));
      expect(shown).toMatchObject({ turns: 1, last_tool: 'shell', last_text: 'The marker is there.' });
      expect(shown.session_id).toBe(out.find((o) => o.type === 'thread.started').thread_id);
      // The genuine tool output went back to the model.
      const main = r.server.mainRequests('openai');
      expect(main).toHaveLength(2);
      expect(functionOutputs(main[1]!).join('\n')).toContain('made-it');
    });

    it('a usage limit: blocked limit, the provider held; with --on-limit end the run ends errored with detail limit', async () => {
      const r = await rig({ config: { timings: { limit_hold: '45s' } } });
      r.server.fallback('openai', httpError(429, { errorType: 'usage_limit_reached', message: 'The usage limit has been reached' }));
      const run = await r.run('codex-exec', 'capped', 'do it', ['--on-limit', 'end']);
      const shown = await r.ended('capped');
      const events = await r.events(run.uuid);
      expect(
        events.some((e) => e.type === 'blocked' && e.data.kind === 'limit'),
        r.describe(run.uuid),
      ).toBe(true);
      const failed = r.outLines(run.uuid).find((o) => o.type === 'turn.failed');
      expect(failed.error.message).toMatch(/usage limit/i);
      const stats = await r.json<{ holds: Record<string, number> }>(['stats']);
      expect(Object.keys(stats.holds)).toContain('codex-exec');
      expect(shown.exit_reason).toBe('errored');
      expect(shown.exit_detail).toBe('limit');
    });

    it('a usage limit that resets: orcr holds, then continues the same thread with `codex exec resume`, and the run completes as one run of two attempts', async () => {
      const r = await rig({ config: { timings: { limit_hold: '3s' }, providers: { 'codex-exec': { continue_prompt: 'The limit has reset; carry on.' } } } });
      let limited = true;
      r.server.fallback('openai', (): Step =>
        limited
          ? httpError(429, { errorType: 'usage_limit_reached', message: 'The usage limit has been reached' })
          : text('Carried on and done.', { input: 30, output: 5 }),
      );
      const run = await r.run('codex-exec', 'resumed', 'write the summary');
      const queued = await r.waitFor('resumed', (x) => x.status === 'queued' && (x.attempts?.length ?? 0) === 1, 'queued again to continue', 90_000);
      const thread = queued.attempts[0]!.session_id!;
      expect(thread, r.describe(run.uuid)).toBeTruthy();
      expect(queued.command).toEqual(expect.arrayContaining(['exec', 'resume', thread, '-']));
      limited = false;
      const shown = await r.ended('resumed');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(shown.attempts).toMatchObject([{ n: 1, kind: 'continue', reason: 'errored', detail: 'limit', session_id: thread }]);
      expect(shown.session_id).toBe(thread);
      expect(shown.last_text).toBe('Carried on and done.');
      // The server saw the resumed conversation: the first prompt, then the continuation prompt, in one request.
      const last = r.server.mainRequests('openai').at(-1)!;
      const said = JSON.stringify(last.body);
      expect(said).toContain('write the summary');
      expect(said).toContain('The limit has reset; carry on.');
    });

    it('auth failure (a rejected key): errored with detail login', async () => {
      const r = await rig();
      r.server.fallback('openai', httpError(401, { message: 'Incorrect API key provided' }));
      const run = await r.run('codex-exec', 'badkey', 'do it');
      const shown = await r.ended('badkey');
      const events = await r.events(run.uuid);
      expect(
        events.some((e) => e.type === 'blocked' && e.data.kind === 'login'),
        r.describe(run.uuid),
      ).toBe(true);
      expect(r.outLines(run.uuid).find((o) => o.type === 'turn.failed').error.message).toMatch(/401/);
      expect(shown.exit_reason).toBe('errored');
      expect(shown.exit_detail).toBe('login');
    });

    it('auth failure (no key at all): errored with detail login, before any request', async () => {
      const r = await rig();
      const run = await r.run('codex-exec', 'nokey', 'do it', [], {}, ['MOCK_API_KEY']);
      const shown = await r.ended('nokey');
      expect(r.outLines(run.uuid).find((o) => o.type === 'turn.failed').error.message, r.describe(run.uuid)).toMatch(/MOCK_API_KEY/);
      expect(r.server.mainRequests('openai')).toEqual([]);
      expect(shown.exit_reason).toBe('errored');
      expect(shown.exit_detail).toBe('login');
    });

    it('offline: Codex waits for the network forever; orcr shows it blocked, and the run timeout ends it', async () => {
      const r = await rig();
      r.configureAgents({ baseUrl: `http://127.0.0.1:${await closedPort()}/v1` });
      const run = await r.run('codex-exec', 'offline', 'do it', ['--timeout', '25s']);
      const blocked = await r.waitFor('offline', (x) => x.status === 'blocked' || x.status === 'ended', 'blocked', 25_000);
      expect(blocked.blocked_kind, r.describe(run.uuid)).toBe('unknown');
      expect(r.outLines(run.uuid).some((o) => o.type === 'error' && /waiting for network/i.test(o.message))).toBe(true);
      const shown = await r.ended('offline');
      expect(shown.exit_reason).toBe('timeout');
      await r.until(() => r.processesOf(run.uuid).length === 0, 'no process left', run.uuid, 15_000);
    });

    it('repeating one tool call is a loop: orcr sees each item as a model turn, and terminate ends it `loop`', async () => {
      const r = await rig();
      r.server.fallback('openai', codexShell('echo same', { input: 50, output: 5 }));
      const run = await r.run('codex-exec', 'loopy', 'keep checking', ['--loop', 'terminate', '--timeout', '45s']);
      const shown = await r.ended('loopy');
      expect(shown.loop.detected, r.describe(run.uuid)).toBe(true);
      expect(shown.exit_reason).toBe('loop');
      expect(r.outLines(run.uuid).filter((o) => o.type === 'turn.completed')).toEqual([]);
    });

    it('--interactive is refused: codex exec takes no input after its prompt (with a pipe on stdin it waits for EOF)', async () => {
      const r = await rig();
      const res = await r.cli(['run', '-a', 'codex-exec', '-n', 'ci', '-p', 'hi', '--interactive', '--cwd', r.work, ...r.envArgs()]);
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stderr).toMatch(/interactive/);
    });
  },
  { timeout: 180_000 },
);
