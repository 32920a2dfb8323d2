// orcr supervising the REAL Claude Code CLI (npm run agents:install), pointed
// at a scripted model server on loopback: genuine output, genuine tool
// execution, offline and deterministic. Runs go through the real `orcr` CLI
// and the built-in `claude` preset.

import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { MOCK_AGENT, NODE } from '../support/harness.js';
import { hang, httpError, text, toolCall, type RecordedRequest, type Step } from '../support/model-server.js';
import { announce, needAgent, useRigs } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';
import { roundCost } from '../../src/core/budget.js';

announce('claude');

const rig = useRigs();

/** The totals of a Claude `result` line, mapped as the adapter maps them. */
function resultTokens(result: any): { input: number; output: number; cached: number } {
  const u = result.usage;
  return {
    input: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0),
    output: u.output_tokens ?? 0,
    cached: u.cache_read_input_tokens ?? 0,
  };
}

/** The text of every user message the model was sent in a request. */
function userTexts(req: RecordedRequest): string[] {
  const out: string[] = [];
  for (const m of req.body?.messages ?? []) {
    if (m.role !== 'user') continue;
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of content ?? []) if (b.type === 'text') out.push(b.text);
  }
  return out;
}

/** The tool results the model was sent in a request. */
function toolResults(req: RecordedRequest): { tool_use_id: string; content: unknown; is_error?: boolean }[] {
  const out: { tool_use_id: string; content: unknown; is_error?: boolean }[] = [];
  for (const m of req.body?.messages ?? []) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b.type === 'tool_result') out.push(b);
  }
  return out;
}

describeWhen(
  needAgent('claude'),
  'real Claude Code',
  () => {
    it('one-shot: runs the scripted tool call, completes, and its tokens and cost equal the CLI’s own result line', async () => {
      const r = await rig();
      const marker = path.join(r.work, 'marker');
      r.server.script(
        'anthropic',
        toolCall(
          'Bash',
          { command: `touch ${marker} && echo made-it`, description: 'make the marker' },
          { input: 120, output: 30, cached: 400, cacheCreation: 50 },
        ),
        text('The marker exists now.', { input: 160, output: 12, cached: 450 }),
      );
      const run = await r.run('claude', 'one', 'make the marker file');
      expect(run.protocol).toBe('claude');
      // The built-in preset is multi-turn: the prompt travels as the first input message.
      expect(run.command).toContain('--input-format');
      expect(run.command).not.toContain('make the marker file');

      const w = await r.wait('one', '40s');
      expect(w.token, r.describe(run.uuid)).toBe('completed');
      expect(fs.existsSync(marker)).toBe(true);

      const shown = await r.show('one');
      const results = r.outLines(run.uuid).filter((o) => o.type === 'result');
      expect(results).toHaveLength(1);
      expect(shown.tokens).toEqual(resultTokens(results[0]));
      expect(shown.tokens).toEqual({ input: 120 + 50 + 160, output: 42, cached: 850 });
      // orcr reports costs to a millionth of a dollar.
      expect(shown.cost_usd).toBe(roundCost(results[0].total_cost_usd));
      expect(shown.cost_usd).toBeGreaterThan(0);
      expect(shown).toMatchObject({ exit_code: 0, turns: 1, last_tool: 'Bash', last_text: 'The marker exists now.' });
      expect(shown.session_id).toBe(results[0].session_id);

      // What the CLI sent: our prompt, then the genuine output of the tool it ran.
      const main = r.server.mainRequests('anthropic');
      expect(main).toHaveLength(2);
      expect(userTexts(main[0]!)).toContain('make the marker file');
      const fed = toolResults(main[1]!);
      expect(fed).toHaveLength(1);
      expect(JSON.stringify(fed[0]!.content)).toContain('made-it');
      expect(fed[0]!.is_error ?? false).toBe(false);
      // Nothing the scripted server does not know (its connectivity preflight, `HEAD /api/hello`, it knows).
      expect(r.server.unknownRequests()).toEqual([]);
    });

    it('multi-turn: idle after each turn, send adds one, tokens are the sum of both results and cost the latest cumulative figure; kill leaves no process', async () => {
      const r = await rig();
      r.server.script(
        'anthropic',
        toolCall('Bash', { command: 'echo first > first.txt', description: 'first' }, { input: 100, output: 20, cached: 50 }),
        text('Turn one done.', { input: 130, output: 8 }),
        // A slow stream: 150 ms between events.
        { ...text('Turn two done.', { input: 200, output: 10, cached: 100, cacheCreation: 30 }), chunkDelayMs: 150 },
      );
      const run = await r.run('claude', 'chat', 'start the work', ['--interactive']);
      const w1 = await r.wait('chat');
      expect(w1.token, r.describe(run.uuid)).toBe('turn_complete');
      expect(await r.show('chat')).toMatchObject({ status: 'idle', turns: 1, input_seq: 0 });
      expect(fs.readFileSync(path.join(r.work, 'first.txt'), 'utf8')).toBe('first\n');

      expect((await r.cli(['send', 'chat', 'now the second part'])).code).toBe(0);
      const w2 = await r.wait('chat');
      expect(w2.token, r.describe(run.uuid)).toBe('turn_complete');

      const shown = await r.show('chat');
      const results = r.outLines(run.uuid).filter((o) => o.type === 'result');
      expect(results).toHaveLength(2);
      // result.usage is per input turn: the run's tokens are their sum.
      const sum = [resultTokens(results[0]), resultTokens(results[1])].reduce((a, b) => ({
        input: a.input + b.input,
        output: a.output + b.output,
        cached: a.cached + b.cached,
      }));
      expect(shown.tokens).toEqual(sum);
      expect(shown.tokens).toEqual({ input: 100 + 130 + 200 + 30, output: 38, cached: 150 });
      // total_cost_usd is cumulative for the session: the latest, never the sum.
      expect(results[1].total_cost_usd).toBeGreaterThan(results[0].total_cost_usd);
      expect(shown.cost_usd).toBe(roundCost(results[1].total_cost_usd));
      expect(shown).toMatchObject({ status: 'idle', turns: 2, input_seq: 1, last_text: 'Turn two done.' });
      // Each input got its own init line; the second request carried the new input.
      expect(r.outLines(run.uuid).filter((o) => o.type === 'system' && o.subtype === 'init')).toHaveLength(2);
      expect(userTexts(r.server.mainRequests('anthropic')[2]!)).toContain('now the second part');

      expect(r.processesOf(run.uuid).length).toBeGreaterThan(0);
      expect((await r.cli(['kill', 'chat'])).code).toBe(0);
      const w3 = await r.wait('chat');
      expect(w3.token).toBe('killed');
      expect(w3.code).toBe(5);
      expect(r.processesOf(run.uuid)).toEqual([]);
    });

    it('killed in the middle of a tool call: ends killed, and the tool’s own process dies with it', async () => {
      const r = await rig({ config: { timings: { kill_grace: '3s' } } });
      const started = path.join(r.work, 'started');
      r.server.script('anthropic', toolCall('Bash', { command: `touch ${started}; sleep 300; echo never`, description: 'long', timeout: 600000 }));
      const run = await r.run('claude', 'long', 'run the long command');
      await r.until(() => fs.existsSync(started), 'the tool command to start', run.uuid);
      const procs = r.processesOf(run.uuid);
      expect(procs.length).toBeGreaterThan(1); // wrapper, claude, the tool's shell, sleep
      expect(await r.show('long')).toMatchObject({ status: 'working', last_tool: 'Bash' });
      expect((await r.cli(['kill', 'long'])).code).toBe(0);
      expect((await r.wait('long')).token).toBe('killed');
      await r.until(() => r.processesOf(run.uuid).length === 0, 'every process of the run to be gone', run.uuid, 15_000);
    });

    it('a 429-ing server: blocked limit with the CLI’s retry delay, provider held while others flow, and the hold lifts once it recovers', async () => {
      const r = await rig({ config: { concurrency: { max: 4 } } });
      let limited = true;
      // While limited, every agent turn is refused with a 429 and a retry-after of 10 s (long enough that the hold outlasts another run started and waited for on a loaded machine).
      r.server.fallback('anthropic', (): Step =>
        limited
          ? httpError(429, { retryAfterS: 10, message: 'Number of request tokens has exceeded your per-minute rate limit' })
          : text('Recovered and done.', { input: 40, output: 6 }),
      );
      const a = await r.run('claude', 'limited', 'do the thing');
      const blocked = await r.waitFor('limited', (x) => x.status === 'blocked', 'blocked by the rate limit', 30_000);
      expect(blocked.blocked_kind).toBe('limit');
      expect(blocked.held_until).not.toBeNull();
      const stats = await r.json<{ holds: Record<string, number> }>(['stats']);
      expect(Object.keys(stats.holds)).toContain('claude');
      const retry = r.outLines(a.uuid).find((o) => o.type === 'system' && o.subtype === 'api_retry');
      expect(retry).toMatchObject({ error_status: 429, error: 'rate_limit' });
      // 2.1.332 waits the retry-after and up to a quarter more (jitter); 2.1.197 waited it exactly.
      expect(retry.retry_delay_ms).toBeGreaterThanOrEqual(10_000);
      expect(retry.retry_delay_ms).toBeLessThanOrEqual(12_500);

      // The held provider admits nothing new; another provider keeps flowing.
      const b = await r.run('claude', 'second', 'wait your turn');
      expect(
        (
          await r.json([
            'run',
            '-n',
            'other',
            '-a',
            'other',
            '--protocol',
            'jsonl',
            '--',
            NODE,
            MOCK_AGENT,
            '--format',
            'jsonl',
            '--turns',
            '1',
            '--delay',
            '10',
          ])
        ).name,
      ).toBe('other');
      expect((await r.wait('other')).token).toBe('completed');
      expect((await r.show('second')).status).toBe('queued');

      // The server recovers: the CLI's own retry gets through, the run finishes,
      // the hold runs out and the queued run starts and completes.
      limited = false;
      expect((await r.ended('limited')).exit_reason, r.describe(a.uuid)).toBe('completed');
      expect((await r.ended('second')).exit_reason, r.describe(b.uuid)).toBe('completed');
      const events = await r.events();
      const hold = events.find((e) => e.type === 'hold');
      // Held for as long as the CLI said it waits.
      expect(hold?.data).toMatchObject({ provider: 'claude', retry_after_s: retry.retry_delay_ms / 1000 });
      expect(events.some((e) => e.type === 'hold_lifted' && e.data.provider === 'claude')).toBe(true);
      expect(await r.show('limited')).toMatchObject({ exit_reason: 'completed', last_text: 'Recovered and done.' });
    });

    it('a subscription usage limit that resets: the CLI stops at once, orcr holds, then continues the same session with `claude --resume` and the run completes as one run of two attempts', async () => {
      const r = await rig({ config: { providers: { claude: { continue_prompt: 'The limit has reset; carry on.' } } } });
      let limited = true;
      // A subscription (OAuth) login reads Anthropic's unified rate-limit headers: `rejected` on the five-hour
      // window stops the CLI at once ("You've hit your limit · resets …") instead of its ten retries.
      const limit = (): Step =>
        httpError(429, {
          message: "This request would exceed your account's rate limit. Please try again later.",
          headers: {
            'anthropic-ratelimit-unified-status': 'rejected',
            'anthropic-ratelimit-unified-reset': String(Math.floor(Date.now() / 1000) + 3),
            'anthropic-ratelimit-unified-representative-claim': 'five_hour',
            'anthropic-ratelimit-unified-overage-status': 'rejected',
          },
        });
      r.server.fallback('anthropic', (): Step => (limited ? limit() : text('Carried on and done.', { input: 30, output: 5 })));
      const run = await r.run('claude', 'resumed', 'write the summary', [], { CLAUDE_CODE_OAUTH_TOKEN: 'test-oauth-token' }, ['ANTHROPIC_API_KEY']);
      const queued = await r.waitFor('resumed', (x) => x.status === 'queued' && (x.attempts?.length ?? 0) === 1, 'queued again to continue', 90_000);
      const session = queued.attempts[0]!.session_id!;
      expect(session, r.describe(run.uuid)).toBeTruthy();
      expect(queued.attempts[0]).toMatchObject({ reason: 'errored', detail: 'limit' });
      expect(queued.command).toEqual(expect.arrayContaining(['--resume', session]));
      expect(queued.waiting).toMatchObject({ reason: 'hold', name: 'claude', resumes: true });
      const refused = r.outLines(run.uuid).find((o) => o.type === 'result');
      expect(String(refused?.result)).toMatch(/hit your limit/i);
      // `-p` waits for nothing itself (no api_retry; only the interactive CLI goes on at the reset): orcr is the one who resumes.
      expect(r.outLines(run.uuid).filter((o) => o.subtype === 'api_retry')).toEqual([]);
      limited = false;
      const shown = await r.ended('resumed', 120_000);
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(shown.attempts).toMatchObject([{ n: 1, kind: 'continue', reason: 'errored', detail: 'limit', session_id: session }]);
      expect(shown.session_id).toBe(session);
      expect(shown.last_text).toBe('Carried on and done.');
      // The server saw the resumed conversation: the first prompt, then the continuation prompt, in one request.
      const said = JSON.stringify(r.server.mainRequests('anthropic').at(-1)!.body);
      expect(said).toContain('write the summary');
      expect(said).toContain('The limit has reset; carry on.');
    });

    it('a subscription usage limit under CLAUDE_CODE_RETRY_WATCHDOG=1: the CLI waits for the reset itself, saying so; orcr shows the agent waiting, holds the provider once, and neither queues nor resumes the run', async () => {
      const r = await rig();
      // 33 s: the CLI restates its wait every 30 s, so one restatement is seen.
      const resetsAt = Math.floor(Date.now() / 1000) + 33;
      r.server.fallback('anthropic', (): Step =>
        Date.now() / 1000 < resetsAt
          ? httpError(429, {
              message: "This request would exceed your account's rate limit. Please try again later.",
              headers: {
                'anthropic-ratelimit-unified-status': 'rejected',
                'anthropic-ratelimit-unified-reset': String(resetsAt),
                'anthropic-ratelimit-unified-representative-claim': 'five_hour',
                'anthropic-ratelimit-unified-overage-status': 'rejected',
              },
            })
          : text('Carried on and done.', { input: 30, output: 5 }),
      );
      const run = await r.run('claude', 'waits', 'write the summary', [], { CLAUDE_CODE_OAUTH_TOKEN: 'test-oauth-token', CLAUDE_CODE_RETRY_WATCHDOG: '1' }, [
        'ANTHROPIC_API_KEY',
      ]);
      const blocked = await r.waitFor(
        'waits',
        (x) => (x.status === 'blocked' && x.agent_retry?.until != null) || x.status === 'ended',
        'blocked, the agent waiting',
        30_000,
      );
      expect(blocked, r.describe(run.uuid)).toMatchObject({
        status: 'blocked',
        blocked_kind: 'limit',
        agent_retry: { attempt: 1, max: 300, error: 'rate_limit' },
        attempts: [],
      });
      expect(Math.abs(Date.parse(blocked.agent_retry!.until!) - resetsAt * 1000)).toBeLessThan(2000);
      expect((await r.cli(['ps'])).stdout).toMatch(/blocked:limit the agent waits until \d\d:\d\d/);
      const shown = await r.ended('waits', 90_000);
      expect(shown, r.describe(run.uuid)).toMatchObject({ exit_reason: 'completed', attempts: [], last_text: 'Carried on and done.', agent_retry: null });
      expect(shown.command).not.toContain('--resume');
      const retries = r.outLines(run.uuid).filter((o) => o.type === 'system' && o.subtype === 'api_retry');
      expect(retries.length).toBeGreaterThanOrEqual(2);
      expect(retries.every((o) => o.attempt === 1 && o.error_status === 429 && o.error === 'rate_limit')).toBe(true);
      const events = await r.events();
      expect(events.filter((e) => e.type === 'hold' && e.data.provider === 'claude')).toHaveLength(1);
      const mine = events.filter((e) => e.run === run.uuid).map((e) => e.type);
      expect(mine.filter((t) => t === 'agent_retry')).toHaveLength(1);
      expect(mine).not.toContain('continued');
      // The refused request, then the one after the reset: the CLI's own, in the same process.
      expect(r.server.mainRequests('anthropic').map((q) => q.step?.kind)).toEqual(['error', 'reply']);
    });

    it('not logged in, one-shot: blocked login while it lives, then errored with detail login', async () => {
      const r = await rig();
      // No API key at all: the CLI answers with its synthetic "Not logged in" message.
      const run = await r.run('claude', 'nologin', 'hello', [], { ANTHROPIC_API_KEY: '' });
      const shown = await r.ended('nologin', 60_000);
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('errored');
      const events = await r.events(run.uuid);
      expect(events.some((e) => e.type === 'blocked' && e.data.kind === 'login')).toBe(true);
      const out = r.outLines(run.uuid);
      expect(out.find((o) => o.type === 'assistant')).toMatchObject({ error: 'authentication_failed' });
      expect(out.find((o) => o.type === 'result')).toMatchObject({ subtype: 'success', is_error: true });
      expect(r.server.mainRequests('anthropic')).toEqual([]);
      expect(shown.exit_detail).toBe('login');
    });

    it('not logged in, interactive: stays blocked login (not idle) while the agent lives', async () => {
      const r = await rig();
      const run = await r.run('claude', 'nologin-i', 'hello', ['--interactive'], { ANTHROPIC_API_KEY: '' });
      await r.waitFor('nologin-i', (x) => x.turns === 1 || x.status === 'ended', 'the failed turn to finish', 30_000);
      const w = await r.wait('nologin-i', '5s');
      expect(await r.show('nologin-i'), r.describe(run.uuid)).toMatchObject({ status: 'blocked', blocked_kind: 'login' });
      expect(w.token).toBe('blocked');
      expect(w.code).toBe(4);
    });

    it('a rejected API key (401): the CLI retries it, and orcr reports blocked login meanwhile', async () => {
      const r = await rig();
      r.server.fallback('anthropic', httpError(401, { message: 'invalid x-api-key' }));
      // One retry instead of ten (minutes of backoff) keeps the test short.
      const run = await r.run('claude', 'badkey', 'hello', [], { CLAUDE_CODE_MAX_RETRIES: '1' });
      const blocked = await r.waitFor('badkey', (x) => x.status === 'blocked' || x.status === 'ended', 'blocked or ended', 30_000);
      expect(blocked.status === 'ended' ? 'login' : blocked.blocked_kind, r.describe(run.uuid)).toBe('login');
      expect((await r.ended('badkey', 60_000)).exit_reason).toBe('errored');
      const out = r.outLines(run.uuid);
      expect(out.find((o) => o.type === 'system' && o.subtype === 'api_retry')).toMatchObject({ error_status: 401, error: 'authentication_failed' });
      expect(out.find((o) => o.type === 'result')).toMatchObject({ is_error: true, api_error_status: 401 });
      expect((await r.show('badkey')).exit_detail).toBe('login');
    });

    it('repeating one tool call inside a single input turn is a loop: terminate ends it `loop`', async () => {
      const r = await rig();
      // The model calls the same command forever (fresh tool-use ids each time).
      r.server.fallback('anthropic', toolCall('Bash', { command: 'echo same', description: 'again' }, { input: 50, output: 5 }));
      const run = await r.run('claude', 'loopy', 'keep checking', ['--loop', 'terminate', '--timeout', '45s']);
      const w = await r.wait('loopy');
      const shown = await r.show('loopy');
      expect(r.server.mainRequests('anthropic').length, r.describe(run.uuid)).toBeGreaterThanOrEqual(3);
      expect(shown.loop.detected).toBe(true);
      expect(w.token).toBe('loop');
      expect(shown.exit_reason).toBe('loop');
      // It was caught within the input turn: no result line was ever printed.
      expect(r.outLines(run.uuid).filter((o) => o.type === 'result')).toEqual([]);
    });

    it('a model stream that never ends: the run stays working, and its timeout ends it with no process left', async () => {
      const r = await rig({ config: { timings: { kill_grace: '2s' } } });
      r.server.fallback('anthropic', hang());
      const run = await r.run('claude', 'stuck', 'say something', ['--timeout', '8s']);
      await r.until(() => r.server.mainRequests('anthropic').length > 0, 'the first model request', run.uuid, 30_000);
      expect((await r.show('stuck')).status).toBe('working');
      const shown = await r.ended('stuck', 60_000);
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('timeout');
      await r.until(() => r.processesOf(run.uuid).length === 0, 'no process left', run.uuid, 15_000);
    });

    it('the built-in preset takes its prompt as input: without -p the run is refused, not left waiting', async () => {
      const r = await rig();
      const res = await r.cli(['run', '-a', 'claude', '-n', 'noprompt', '--cwd', r.work, ...r.envArgs()]);
      expect(res.code, res.stdout + res.stderr).toBe(2);
      expect(res.stderr).toMatch(/needs a prompt/);
    });
  },
  { timeout: 180_000 },
);
