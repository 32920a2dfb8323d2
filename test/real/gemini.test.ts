// orcr supervising the REAL Gemini CLI (`gemini -p … --output-format
// stream-json`, the built-in preset), pointed at the scripted model server
// (Gemini API) with GOOGLE_GEMINI_BASE_URL; settings in $HOME/.gemini.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { takeoverCommand } from '../../src/client/takeover.js';
import { httpError, text, toolCall, type RecordedRequest, type Step } from '../support/model-server.js';
import { announce, needAgent, useRigs } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';

announce('gemini');

const rig = useRigs();

/** A CLI run to its exit, its prompt on stdin (headless), without blocking the model server's event loop. */
function runCli(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  input: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** The texts of a Gemini request's conversation, in order. */
function conversation(req: RecordedRequest): string[] {
  return (req.body?.contents ?? []).flatMap((c: { parts?: { text?: string }[] }) => (c.parts ?? []).flatMap((p) => (p.text ? [p.text.trim()] : [])));
}

/** Function responses the CLI sent back to the model. */
function functionResponses(req: RecordedRequest): string[] {
  const out: string[] = [];
  for (const c of req.body?.contents ?? []) for (const p of c.parts ?? []) if (p.functionResponse) out.push(JSON.stringify(p.functionResponse));
  return out;
}

describeWhen(
  needAgent('gemini'),
  'real Gemini CLI',
  () => {
    it('one scripted turn: runs the tool call, completes, and its tokens match the CLI’s result stats', async () => {
      const r = await rig();
      const marker = path.join(r.work, 'gemini-marker');
      r.server.script(
        'gemini',
        toolCall('run_shell_command', { command: `touch ${marker} && echo made-it`, description: 'make the marker' }, { input: 700, output: 30, cached: 200 }),
        text('The marker is there.', { input: 800, output: 9, cached: 900 }),
      );
      const run = await r.run('gemini', 'gm', 'make the marker');
      expect(run.command).toContain('--skip-trust');
      const shown = await r.ended('gm');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(shown.exit_code).toBe(0);
      expect(fs.existsSync(marker)).toBe(true);

      const out = r.outLines(run.uuid);
      const result = out.find((o) => o.type === 'result');
      expect(result.status).toBe('success');
      const s = result.stats;
      expect(shown.tokens).toEqual({ input: s.input ?? s.input_tokens - s.cached, output: s.output_tokens, cached: s.cached });
      expect(shown.tokens).toEqual({ input: 1500, output: 39, cached: 1100 });
      expect(shown).toMatchObject({ turns: 1, last_tool: 'run_shell_command', last_text: 'The marker is there.' });
      expect(shown.session_id).toBe(out.find((o) => o.type === 'init').session_id);
      expect(out.find((o) => o.type === 'tool_result')).toMatchObject({ status: 'success' });
      const main = r.server.mainRequests('gemini');
      expect(main).toHaveLength(2);
      expect(functionResponses(main[1]!).join('\n')).toContain('made-it');
    });

    it('a 429 with a short suggested retry: blocked limit with that delay, the provider held, the run errored with detail rate_limited (a passing failure)', async () => {
      const r = await rig();
      r.server.fallback('gemini', httpError(429, { retryAfterS: 7, message: 'Resource has been exhausted (e.g. check quota).' }));
      const run = await r.run('gemini', 'quota', 'do it');
      const shown = await r.ended('quota');
      const events = await r.events(run.uuid);
      const blocked = events.find((e) => e.type === 'blocked');
      expect(blocked?.data, r.describe(run.uuid)).toMatchObject({ kind: 'limit', retry_after_s: 7 });
      expect(events.find((e) => e.type === 'hold')?.data).toMatchObject({ provider: 'gemini', retry_after_s: 7 });
      expect(r.outLines(run.uuid).find((o) => o.type === 'result')).toMatchObject({ status: 'error' });
      // Its retries were silent on stdout (stderr only): orcr saw the limit at the result.
      expect(r.stderr(run.uuid)).toMatch(/Attempt 1 failed/);
      expect(shown.exit_reason).toBe('errored');
      expect(shown.exit_code).not.toBe(0);
      expect(shown.exit_detail).toBe('rate_limited');
    });

    it('--retries: the passing 429 is tried again, afresh (its failed turn saved no session to resume), and the run completes as one run of two attempts', async () => {
      const r = await rig();
      let limited = true;
      r.server.fallback('gemini', (): Step =>
        limited
          ? httpError(429, { retryAfterS: 2, message: 'Resource has been exhausted (e.g. check quota).' })
          : text('Tried again and done.', { input: 20, output: 4 }),
      );
      // Recovered once the first attempt's result is in: its retry (2 s later) gets through.
      const run = await r.run('gemini', 'again', 'summarize the repo', ['--retries', '1']);
      await r.waitFor('again', (x) => x.status === 'ended' || (x.attempts?.length ?? 0) === 1, 'queued to be tried again', 90_000);
      limited = false;
      const shown = await r.ended('again');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(shown.attempts).toHaveLength(1);
      expect(shown.last_text).toBe('Tried again and done.');
    });

    it("take-over's command, `gemini --resume <session id>`, carries a finished run's session on: the CLI resumes by the session's UUID (its --help names only \"latest\" and an index); a run whose only turn failed before the model answered saved no session to resume", async () => {
      const r = await rig();
      r.server.script('gemini', text('The word is PINEAPPLE.', { input: 40, output: 6 }), text('It was PINEAPPLE.', { input: 60, output: 5 }));
      await r.run('gemini', 'done', 'remember the word PINEAPPLE');
      const done = await r.ended('done');
      expect(done.exit_reason, r.describe(done.uuid)).toBe('completed');
      const cmd = takeoverCommand(done);
      if ('why' in cmd) throw new Error(cmd.why);
      expect(cmd.args).toEqual(['--resume', done.session_id]);
      // Headless here (the prompt on stdin), the same session the person would get interactively.
      const env = r.agentEnv({ GEMINI_CLI_TRUST_WORKSPACE: 'true' });
      const file = path.join(env.PATH!.split(':')[0]!, cmd.file);
      const resumed = await runCli(file, [...cmd.args, '--output-format', 'stream-json'], cmd.cwd, env, 'what was the word?');
      expect(resumed.code, resumed.stderr).toBe(0);
      const lines = resumed.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      expect(lines.find((o) => o.type === 'init')?.session_id).toBe(done.session_id);
      const main = r.server.mainRequests('gemini');
      expect(conversation(main.at(-1)!).slice(-3)).toEqual(['remember the word PINEAPPLE', 'The word is PINEAPPLE.', 'what was the word?']);

      // The continuation orcr does not attempt: a 429 before any answer leaves nothing saved.
      r.server.fallback('gemini', httpError(429, { retryAfterS: 2, message: 'Resource has been exhausted (e.g. check quota).' }));
      await r.run('gemini', 'limited', 'summarize the repo');
      const limited = await r.ended('limited');
      expect(limited.exit_detail, r.describe(limited.uuid)).toBe('rate_limited');
      expect(limited.session_id).toBeTruthy();
      const lost = await runCli(file, ['--resume', limited.session_id!, '--output-format', 'stream-json'], r.work, env, 'continue');
      expect(lost.code).toBe(42);
      expect(lost.stderr).toMatch(/Error resuming session/);
    });

    it('auth failure (401): errored with detail login', async () => {
      const r = await rig();
      r.server.fallback('gemini', httpError(401, { message: 'API key not valid. Please pass a valid API key.' }));
      const run = await r.run('gemini', 'badkey', 'do it');
      const shown = await r.ended('badkey');
      const events = await r.events(run.uuid);
      expect(
        events.some((e) => e.type === 'blocked' && e.data.kind === 'login'),
        r.describe(run.uuid),
      ).toBe(true);
      expect(shown.exit_reason).toBe('errored');
      expect(shown.exit_detail).toBe('login');
    });

    it('no API key: the CLI exits 41 before printing anything, and the run fails with that exit code', async () => {
      const r = await rig();
      const run = await r.run('gemini', 'nokey', 'do it', [], {}, ['GEMINI_API_KEY']);
      const shown = await r.ended('nokey');
      expect(r.stderr(run.uuid), r.describe(run.uuid)).toMatch(/GEMINI_API_KEY/);
      expect(shown).toMatchObject({ exit_reason: 'failed', exit_code: 41 });
      expect(shown.exit_detail).toMatch(/exit code 41/);
    });

    it('offline: the run ends errored with the CLI’s own error', async () => {
      const r = await rig();
      const run = await r.run('gemini', 'offline', 'do it', [], { GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9' });
      const shown = await r.ended('offline', 120_000);
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('errored');
      expect(r.outLines(run.uuid).find((o) => o.type === 'result')?.error?.message).toMatch(/fetch failed/);
      expect(shown.last_text).toMatch(/fetch failed/);
    });

    it('the CLI stopping itself on a loop is not success: errored with detail loop', async () => {
      const r = await rig();
      r.server.fallback('gemini', toolCall('run_shell_command', { command: 'echo same', description: 'again' }, { input: 50, output: 5 }));
      const run = await r.run('gemini', 'selfloop', 'keep checking', ['--loop', 'off', '--timeout', '45s']);
      const shown = await r.ended('selfloop');
      const out = r.outLines(run.uuid);
      // Gemini CLI's own detector: a warning, then a result that still says success.
      expect(
        out.find((o) => o.type === 'error' && /loop detected/i.test(o.message)),
        r.describe(run.uuid),
      ).toMatchObject({ severity: 'warning' });
      expect(out.find((o) => o.type === 'result')).toMatchObject({ status: 'success' });
      expect(shown.exit_code).toBe(0);
      expect(shown.exit_reason).toBe('errored');
      expect(shown.exit_detail).toBe('loop');
    });

    it('orcr’s loop detection counts Gemini’s model responses: terminate ends it `loop` first', async () => {
      const r = await rig();
      r.server.fallback('gemini', toolCall('run_shell_command', { command: 'echo same', description: 'again' }, { input: 50, output: 5 }));
      const run = await r.run('gemini', 'loopy', 'keep checking', ['--loop', 'terminate', '--timeout', '45s']);
      const shown = await r.ended('loopy');
      expect(shown.loop.detected, r.describe(run.uuid)).toBe(true);
      expect(shown.exit_reason).toBe('loop');
    });

    it('--interactive is refused: gemini -p takes no input after its prompt', async () => {
      const r = await rig();
      const res = await r.cli(['run', '-a', 'gemini', '-n', 'gi', '-p', 'hi', '--interactive', '--cwd', r.work, ...r.envArgs()]);
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stderr).toMatch(/interactive/);
    });
  },
  { timeout: 180_000 },
);
