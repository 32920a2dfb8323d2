// orcr supervising the REAL Gemini CLI over ACP (`gemini --acp`, JSON-RPC 2.0
// over stdio: the built-in preset `acp`), through the real `orcr` CLI and a
// real supervisor, the CLI pointed at the scripted model server. What the
// model server is sent is the proof that orcr's lines reached the genuine CLI
// and did what they say: a command's real output after `orcr approve`, the
// CLI's "canceled by the user" after `orcr deny`, the first turn's history in
// a second prompt (`orcr send`) and after a rate limit (`session/load` in the
// next attempt); and take-over's `gemini --resume <session>` opens the run's
// session. The CLI's ways: test/real/README.md, "Gemini CLI --acp (0.61.0)".
//
//   ORCR_TEST_REAL=1 npx vitest run --config test/vitest.config.ts test/real/acp.test.ts

import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { takeoverCommand } from '../../src/client/takeover.js';
import { httpError, text, toolCall, type RecordedRequest, type Step } from '../support/model-server.js';
import { announce, geminiSettings, needAgent, useRigs, type Rig, type RigOptions } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';
import { connect } from '../../src/sdk/index.js';
import { PtyScreen } from '../support/terminal.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { conversation, functionResponses } from './acp-probe.js';

announce('gemini');

const rigs = useRigs();

interface Approval {
  id: number;
  run: string;
  tool: string;
  summary: string;
  state: string;
  message: string | null;
  by: { kind: string; via?: string; rule?: string } | null;
}

/**
 * A rig whose Gemini asks before every tool (`tools.allowed: []`: ACP asks the
 * client) and keeps a loaded session (`general.sessionRetention` off: else the
 * next start of the CLI deletes it).
 */
async function rig(opts: RigOptions & { general?: Record<string, unknown> } = {}): Promise<Rig> {
  const r = await rigs(opts);
  const settings = geminiSettings({ allowed: [] });
  const general = { ...(settings.general as object), sessionRetention: { enabled: false }, ...opts.general };
  fs.writeFileSync(path.join(r.agentHome, '.gemini', 'settings.json'), JSON.stringify({ ...settings, general }, null, 2));
  return r;
}

/** What the model was sent as the results of its calls, in one request. */
const sentBack = (req: RecordedRequest | undefined): string => (req ? JSON.stringify(functionResponses(req)) : '');

/** The conversation one request carried, without the CLI's own <session_context> opening. */
const history = (req: RecordedRequest | undefined): string[] => (req ? conversation(req).slice(1) : []);

/** Poll `orcr show NAME` until pred holds; on timeout, fail with the run's events, output and the server's requests. */
async function reach(r: Rig, name: string, uuid: string, pred: (x: PublicRun) => boolean, what: string, ms = 30_000): Promise<PublicRun> {
  return r.until(
    async () => {
      const x = await r.show(name);
      return pred(x) ? x : null;
    },
    `${name}: ${what}`,
    uuid,
    ms,
  );
}

async function approvals(r: Rig, run: string, all = false): Promise<Approval[]> {
  return r.json<Approval[]>(['approvals', run, ...(all ? ['--all'] : [])]);
}

async function pending(r: Rig, run: string, uuid: string): Promise<Approval> {
  return r.until(async () => (await approvals(r, run))[0], `${run}: a request`, uuid, 30_000);
}

async function answer(r: Rig, args: string[]): Promise<void> {
  const res = await r.cli([...args, '--json']);
  if (res.code !== 0) throw new Error(`orcr ${args.join(' ')} exited ${res.code}: ${res.stderr}${res.stdout}`);
}

const shell = (command: string, description = 'run it'): Step => toolCall('run_shell_command', { command, description });

describeWhen(
  needAgent('gemini'),
  'real Gemini CLI over ACP under orcr',
  () => {
    it('a command Gemini asks about waits in the queue (tool Bash, the command); `orcr approve` runs it, its real output reaches the model, the run completes', async () => {
      const r = await rig();
      // (Gemini refuses `$(…)` in a command outright: "Command injection detected".)
      const script = `pwd > one.txt && cat one.txt`;
      r.server.script('gemini', shell(script), text('Ran it.'));
      const run = await r.run('gemini-acp', 'allowed', 'write one.txt');
      const asked = await pending(r, 'allowed', run.uuid);
      expect(asked).toMatchObject({ run: run.uuid, tool: 'Bash', state: 'pending', summary: `Bash: ${script}` });
      expect(await r.show('allowed')).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: asked.id } });
      expect(fs.existsSync(path.join(r.work, 'one.txt'))).toBe(false);

      await answer(r, ['approve', String(asked.id)]);
      const shown = await r.ended('allowed');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      const main = r.server.mainRequests('gemini');
      expect(main).toHaveLength(2);
      // The genuine output: the run's folder, which only running the command could print.
      expect(sentBack(main[1])).toContain(`Output: ${r.work}\\n`);
      expect(fs.readFileSync(path.join(r.work, 'one.txt'), 'utf8')).toBe(`${r.work}\n`);
      expect(shown.last_text).toBe('Ran it.');
      expect(await approvals(r, 'allowed', true)).toMatchObject([{ state: 'allowed', by: { kind: 'person', via: 'cli' } }]);
    });

    it('`orcr deny -m`: the command does not run, the model is told it was canceled, and the run completes', async () => {
      const r = await rig();
      r.server.script('gemini', shell('touch nope.txt && echo made'), text('Understood, not done.'));
      const run = await r.run('gemini-acp', 'denied', 'make nope.txt');
      const asked = await pending(r, 'denied', run.uuid);
      expect(asked).toMatchObject({ tool: 'Bash', summary: 'Bash: touch nope.txt && echo made' });
      await answer(r, ['deny', String(asked.id), '-m', 'Not in this folder.']);
      const shown = await r.ended('denied');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      const main = r.server.mainRequests('gemini');
      expect(main).toHaveLength(2);
      expect(sentBack(main[1])).toContain('canceled by the user');
      expect(fs.existsSync(path.join(r.work, 'nope.txt'))).toBe(false);
      expect(shown.last_text).toBe('Understood, not done.');
      expect((await approvals(r, 'denied', true))[0]).toMatchObject({ state: 'denied', message: 'Not in this folder.' });
    });

    it('--interactive, then `orcr send`: a second prompt of the same session (the model sees the first; the session unchanged)', async () => {
      const r = await rig();
      r.server.script('gemini', text('Noted: banana.', { input: 100, output: 7 }), text('The word was banana.', { input: 150, output: 6 }));
      const run = await r.run('gemini-acp', 'chat', 'remember the word banana', ['--interactive']);
      const idle = await reach(r, 'chat', run.uuid, (x) => x.status === 'idle' || x.status === 'ended', 'idle after the first turn', 30_000);
      expect(idle.status, r.describe(run.uuid)).toBe('idle');
      expect(idle.session_id).toBeTruthy();
      const sent = await r.cli(['send', 'chat', 'which word?']);
      expect(sent.code, sent.stderr).toBe(0);
      const again = await reach(
        r,
        'chat',
        run.uuid,
        (x) => x.status === 'idle' && x.last_text === 'The word was banana.',
        'idle after the second turn',
        30_000,
      );
      expect(again.session_id).toBe(idle.session_id);
      const main = r.server.mainRequests('gemini');
      expect(main).toHaveLength(2);
      expect(history(main[1])).toEqual(['user: remember the word banana', 'model: Noted: banana.', 'user: which word?']);
      expect(await r.cli(['kill', 'chat'])).toMatchObject({ code: 0 });
    });

    it('a rate limit (429) after some work: the run is held, and its next attempt loads the same session (session/load, in a later minute) and completes', async () => {
      // No silent retry of the CLI's own (general.maxAttempts 1): the limit ends the prompt at once.
      // The wall clock moved two minutes on once the limit is hit, for every process (the supervisor, Gemini): a
      // session loads only in a later minute than it was opened in, and orcr holds a limit until then.
      const r = await rig({
        config: { providers: { 'gemini-acp': { continue_prompt: 'The limit has reset; carry on.' } } },
        general: { maxAttempts: 1 },
        movableClock: true,
      });
      // Work first (a session whose only request failed has nothing saved to load), then the limit; the next
      // attempt's request gets through.
      let limited = false;
      r.server.script('gemini', shell('echo made-it', 'say it'));
      r.server.fallback('gemini', (): Step => {
        if (limited) return text('Carried on and done.', { input: 30, output: 5 });
        limited = true;
        r.moveClock(120);
        return httpError(429, { retryAfterS: 1, message: 'Resource has been exhausted (e.g. check quota).' });
      });
      const run = await r.run('gemini-acp', 'capped', 'say made-it, then summarize');
      const shown = await reach(r, 'capped', run.uuid, (x) => x.status === 'ended', 'ended', 60_000);
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      const session = shown.attempts[0]?.session_id;
      expect(session, r.describe(run.uuid)).toBeTruthy();
      expect(shown.attempts).toMatchObject([{ n: 1, kind: 'continue', detail: 'limit', session_id: session }]);
      expect(shown.session_id).toBe(session);
      expect(shown.last_text).toBe('Carried on and done.');
      // Held for the 1 s Gemini suggested: the clock already shows a later minute than the session's.
      const blocked = (await r.events(run.uuid)).find((e) => e.type === 'blocked' && e.data.kind === 'limit');
      expect(blocked?.data.retry_after_s).toBe(1);
      // The second process loaded the session (the first opened it), and the model was sent its history.
      const lines = r.outLines(run.uuid);
      expect(lines.filter((o) => o.id === 'orcr:open').map((o) => o.result?.sessionId)).toEqual([session]);
      const load = lines.filter((o) => o.id === `orcr:load:${session}`);
      expect(load, r.describe(run.uuid)).toMatchObject([{ result: expect.any(Object) }]);
      const main = r.server.mainRequests('gemini');
      expect(main).toHaveLength(3);
      const last = history(main[2]);
      expect(last[0]).toBe('user: say made-it, then summarize');
      expect(last.join('\n')).toContain('made-it');
      expect(last.at(-1)).toBe('user: The limit has reset; carry on.');
    });

    it("take-over (the TUI's `o`): a live interactive run stops, Gemini and its relaunched child with it, and `gemini --resume <session>` opens its session in the terminal", async () => {
      const r = await rig();
      r.server.script('gemini', text('The word is PINEAPPLE.', { input: 40, output: 6 }), text('It was PINEAPPLE.', { input: 60, output: 5 }));
      const run = await r.run('gemini-acp', 'taken', 'remember the word PINEAPPLE', ['--interactive']);
      await reach(r, 'taken', run.uuid, (x) => x.status === 'idle', 'idle after the first turn');
      const orcr = await connect({ home: r.home.dir });
      try {
        await orcr.takeover('taken');
      } finally {
        orcr.close();
      }
      const done = await reach(r, 'taken', run.uuid, (x) => x.status === 'ended', 'ended');
      expect(done.exit_reason, r.describe(run.uuid)).toBe('taken_over');
      // The whole group: gemini's relaunched child (the one speaking ACP) ignores nothing a group kill sends.
      await r.until(() => r.processesOf(run.uuid).length === 0, "the run's processes gone", run.uuid, 15_000);
      const cmd = takeoverCommand(done);
      if ('why' in cmd) throw new Error(cmd.why);
      expect(cmd).toEqual({ file: 'gemini', args: ['--resume', done.session_id], cwd: r.work });
      const env = r.agentEnv({ GEMINI_CLI_TRUST_WORKSPACE: 'true', TERM: 'xterm-256color' });
      const file = path.join(env.PATH!.split(':')[0]!, cmd.file);
      const screen = new PtyScreen(file, cmd.args, { cwd: cmd.cwd, env, cols: 120, rows: 40 });
      try {
        await screen.waitFor((s) => s.includes('The word is PINEAPPLE.') && s.includes('Type your message'), 'the session shown', 40_000);
        // (No `?`: typed into an empty prompt, it opens the shortcuts instead.)
        screen.type('tell me the word');
        await screen.waitFor((s) => s.includes('> tell me the word'), 'the question typed');
        screen.keys('Enter');
        await screen.waitFor((s) => s.includes('It was PINEAPPLE.'), 'the answer', 40_000);
      } finally {
        screen.kill();
      }
      expect(history(r.server.mainRequests('gemini').at(-1)).slice(-3)).toEqual([
        'user: remember the word PINEAPPLE',
        'model: The word is PINEAPPLE.',
        'user: tell me the word',
      ]);
    });
  },
  { timeout: 120_000 },
);
