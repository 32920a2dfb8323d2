// Gemini CLI's ACP sessions after a crash: session/load in a new process, and
// a person's take-over with `gemini --resume`. The CLI names a session's file
// by the UTC minute (`session-2026-12-06T23-15-<8 chars of the id>.jsonl`), and
// what a load does depends on that minute: these tests move the CLI's wall
// clock (test/support/wall-clock.mjs) to be sure which case they are in.
// The findings: test/real/README.md, "Gemini CLI --acp (0.61.0)".
//
//   ORCR_TEST_REAL=1 npx vitest run --config test/vitest.config.ts test/real/gemini-acp-sessions.test.ts

import { expect, it } from 'vitest';
import { until } from '../support/harness.js';
import { hang, httpError, text, toolCall, type Step } from '../support/model-server.js';
import { announce, needProbe } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';
import { childrenOf, clockEnv, conversation, INITIALIZE, prompt, running, useWorlds, type AcpWorld } from './acp-probe.js';

announce('gemini');

const world = useWorlds();

const NONE = 'No previous sessions found for this project.';
const TRUST = { GEMINI_CLI_TRUST_WORKSPACE: 'true' };

/** A turn that runs a command and answers, then one that hangs (to be killed in). */
const remember = (): Step[] => [toolCall('run_shell_command', { command: 'echo made-it', description: 'say it' }), text('The word is PINEAPPLE.'), hang()];

/** A session with one finished turn and one cut off: the CLI SIGKILLed mid-turn. Returns its id and whether the relaunched child outlived a SIGKILL of the pid alone. */
async function killedSession(w: AcpWorld, fixture?: string): Promise<{ sid: string; childSurvived: boolean }> {
  const a = w.spawn();
  const sid = await w.open(a);
  await a.call('session/prompt', prompt(sid, 'remember the word PINEAPPLE'), 'orcr:p1');
  a.request('session/prompt', prompt(sid, 'this turn is killed'), 'orcr:p2');
  await until(() => w.server.mainRequests('gemini').length === 3, 'the hanging request');
  const kids = childrenOf(a.pid);
  process.kill(a.pid, 'SIGKILL');
  await a.exited();
  const childSurvived = kids.length > 0 && kids.every(running);
  a.killGroup();
  await until(() => kids.every((k) => !running(k)), 'the relaunched child gone');
  if (fixture) w.save(a, fixture);
  return { sid, childSurvived };
}

/** The history the model was sent last, without the CLI's own <session_context> opening. */
const lastHistory = (w: AcpWorld): string[] => conversation(w.server.mainRequests('gemini').at(-1)!).slice(1);

describeWhen(
  needProbe('gemini'),
  'Gemini CLI --acp sessions (probe)',
  () => {
    it('session/load in a new process a minute later (pipelined after initialize): history replayed around the result, the turn goes on; the next CLI start deletes the session', async () => {
      const w = await world();
      w.server.script('gemini', ...remember(), text('It was PINEAPPLE.'));
      const { sid, childSurvived } = await killedSession(w, 'load-1-killed');
      expect(childSurvived).toBe(true);
      const b = w.spawn(['--acp'], w.env(clockEnv(120)));
      b.request('initialize', INITIALIZE, 'orcr:init');
      const load = await b.call('session/load', { sessionId: sid, cwd: w.work, mcpServers: [] }, 'orcr:load');
      expect(Object.keys(load.result).sort()).toEqual(['models', 'modes']);
      await b.waitOut((l) => l.params?.update?.sessionUpdate === 'available_commands_update', 'the commands after the load');
      // The first replayed update comes before the result, the rest after it.
      const out = b.outLines();
      const at = out.findIndex((l) => l.id === 'orcr:load');
      expect(out.slice(0, at).filter((l) => l.method === 'session/update')).toHaveLength(1);
      expect(b.updates().map((u) => [u.sessionUpdate, u.content?.text?.slice(0, 17) ?? u.title ?? null])).toEqual([
        ['user_message_chunk', '<session_context>'],
        ['user_message_chunk', 'remember the word'],
        ['tool_call', 'Shell'],
        ['user_message_chunk', '[Function Respons'],
        ['agent_message_chunk', 'The word is PINEA'],
        ['user_message_chunk', 'this turn is kill'],
        ['available_commands_update', null],
      ]);
      expect(b.updates()[2]).toMatchObject({ status: 'completed', content: [], kind: 'execute' });

      expect((await b.call('session/prompt', prompt(sid, 'what was the word?'), 'orcr:p3')).result.stopReason).toBe('end_turn');
      const history = lastHistory(w);
      expect(history.filter((l) => l.startsWith('user: {"name":"run_shell_command"'))).toHaveLength(2); // the tool's response, twice
      expect(history.slice(-3)).toEqual(['model: The word is PINEAPPLE.', 'user: this turn is killed', 'user: what was the word?']);
      const unknown = await b.call('session/load', { sessionId: '00000000-0000-4000-8000-000000000000', cwd: w.work, mcpServers: [] }, 'orcr:load-unknown');
      expect(unknown.error).toMatchObject({ code: -32603, message: 'Internal error', data: { details: expect.stringMatching(/^Invalid session identifier/) } });
      b.closeStdin();
      await b.exited();
      w.save(b, 'load-2-later-minute');
      // The load left a second file of the session with nothing resumable: the next start's session cleanup deletes both.
      expect(w.chats().filter((f) => f.endsWith(`-${sid.slice(0, 8)}.jsonl`))).toHaveLength(2);
      const list = await w.runCli(['--list-sessions'], '', w.env({ ...TRUST, ...clockEnv(240) }));
      expect(list.stdout.trim()).toBe(NONE);
      expect(w.chats().filter((f) => f.includes(sid.slice(0, 8)))).toEqual([]);
    });

    it('session/load in the same minute the session was saved: refused, and the history is lost for take-over too', async () => {
      const w = await world();
      w.server.script('gemini', ...remember());
      const { sid } = await killedSession(w);
      const file = w.chats().find((f) => f.includes(sid.slice(0, 8)))!;
      const m = /session-(\d{4}-\d\d-\d\dT\d\d)-(\d\d)/.exec(file)!;
      const b = w.spawn(['--acp'], w.env(clockEnv((Date.parse(`${m[1]}:${m[2]}:05Z`) - Date.now()) / 1000)));
      await b.call('initialize', INITIALIZE, 'orcr:init');
      const load = await b.call('session/load', { sessionId: sid, cwd: w.work, mcpServers: [] }, 'orcr:load');
      expect(load.error).toEqual({ code: -32603, message: 'Internal error', data: { details: NONE } });
      b.closeStdin();
      await b.exited();
      w.save(b, 'load-same-minute');
      const resumed = await w.runCli(['--resume', sid, '--output-format', 'stream-json'], 'and now?', w.env({ ...TRUST, ...clockEnv(120) }));
      expect(resumed.code).toBe(42);
      expect(resumed.stderr).toContain(`Error resuming session: ${NONE}`);
    });

    it('take-over of a killed ACP session (no session/load): gemini --resume <id> and --resume latest carry it on; an unknown id exits 42', async () => {
      const w = await world();
      w.server.script('gemini', ...remember(), text('It was PINEAPPLE.'), text('Latest is PINEAPPLE.'));
      const { sid } = await killedSession(w);
      const env = w.env(TRUST);
      const list = await w.runCli(['--list-sessions'], '', env);
      expect(list.stdout).toMatch(new RegExp(`Available sessions for this project \\(1\\):\\n  1\\. .* \\[${sid}\\]`));
      const resumed = await w.runCli(['--resume', sid, '--output-format', 'stream-json'], 'what was the word?', env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout.split('\n')[0]!)).toMatchObject({ type: 'init', session_id: sid });
      expect(lastHistory(w).slice(-3)).toEqual(['model: The word is PINEAPPLE.', 'user: this turn is killed', 'user: what was the word?']);
      const latest = await w.runCli(['--resume', 'latest', '--output-format', 'stream-json'], 'latest?', w.env({ ...TRUST, ...clockEnv(120) }));
      expect(JSON.parse(latest.stdout.split('\n')[0]!)).toMatchObject({ type: 'init', session_id: sid });
      expect(lastHistory(w).slice(-3)).toEqual(['user: what was the word?', 'model: It was PINEAPPLE.', 'user: latest?']);
      const bad = await w.runCli(['--resume', '00000000-0000-4000-8000-000000000000'], 'x', env);
      expect(bad.code).toBe(42);
      expect(bad.stderr).toMatch(/Error resuming session: Invalid session identifier/);
    });

    it('with general.sessionRetention.enabled: false the loaded session survives: listed, and take-over resumes it', async () => {
      const w = await world({ general: { sessionRetention: { enabled: false } } });
      w.server.script('gemini', ...remember(), text('It was PINEAPPLE.'), text('Still PINEAPPLE.'));
      const { sid } = await killedSession(w);
      const b = w.spawn(['--acp'], w.env(clockEnv(120)));
      b.request('initialize', INITIALIZE, 'orcr:init');
      expect((await b.call('session/load', { sessionId: sid, cwd: w.work, mcpServers: [] }, 'orcr:load')).result).toBeTruthy();
      expect((await b.call('session/prompt', prompt(sid, 'what was the word?'), 'orcr:p3')).result.stopReason).toBe('end_turn');
      b.closeStdin();
      await b.exited();
      w.save(b, 'load-no-retention');
      const env = w.env({ ...TRUST, ...clockEnv(240) });
      expect((await w.runCli(['--list-sessions'], '', env)).stdout).toContain(`[${sid}]`);
      const resumed = await w.runCli(['--resume', sid, '--output-format', 'stream-json'], 'and now?', env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(lastHistory(w).slice(-3)).toEqual(['user: what was the word?', 'model: It was PINEAPPLE.', 'user: and now?']);
    });

    it('a session whose only turn failed (429) has nothing to load', async () => {
      const w = await world();
      w.server.fallback('gemini', httpError(429, { retryAfterS: 1, message: 'Resource has been exhausted (e.g. check quota).' }));
      const a = w.spawn();
      const sid = await w.open(a);
      expect((await a.call('session/prompt', prompt(sid, 'do it'), 'orcr:p1')).error.code).toBe(429);
      a.killGroup();
      await a.exited();
      const b = w.spawn(['--acp'], w.env(clockEnv(120)));
      b.request('initialize', INITIALIZE, 'orcr:init');
      const load = await b.call('session/load', { sessionId: sid, cwd: w.work, mcpServers: [] }, 'orcr:load');
      expect(load.error).toEqual({ code: -32603, message: 'Internal error', data: { details: NONE } });
      w.save(b, 'load-after-failed-turn');
    });
  },
  { timeout: 180_000 },
);
