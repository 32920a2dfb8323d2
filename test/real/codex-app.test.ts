// orcr supervising the REAL Codex on its app-server (`codex app-server`,
// JSON-RPC over stdio: the built-in preset `codex`), through the real
// `orcr` CLI and a real supervisor, with the rig's model provider pointed at
// the scripted model server. What the model server is sent is the proof that
// orcr's lines reached the genuine CLI and did what they say: a command's
// real output after `orcr approve`, Codex's rejection after `orcr deny`, the
// first turn's history in a second turn (`orcr send`) and after a usage
// limit (`thread/resume` in the next attempt).

import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { httpError, text, type RecordedRequest, type Step } from '../support/model-server.js';
import { announce, needAgent, useRigs, type Rig } from '../support/real-agents.js';
import { describeWhen } from '../support/skip.js';

announce('codex');

const rig = useRigs();

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
 * The preset's command with Codex asking orcr (the rig's config says `never`):
 * Codex's own default, `on-request` in the workspace-write sandbox, asks before
 * a command the model wants run outside the sandbox. (`untrusted`, which asks
 * for every command not known to be read-only, is refused in config by 0.171.0:
 * "approval_policy = \"untrusted\" is no longer supported"; only a client's
 * thread/start may still ask for it.)
 */
const ASKING = {
  providers: { codex: { command: ['codex', 'app-server', '-c', 'approval_policy="on-request"', '-c', 'sandbox_mode="workspace-write"'] } },
};

/** Codex 0.171.0 offers `exec_command {cmd}` for a model it has no metadata for. */
const shell = (cmd: string, extra: Record<string, unknown> = {}): Step => ({
  kind: 'reply',
  tools: [{ name: 'exec_command', input: { cmd, ...extra } }],
  usage: { input: 50, output: 5 },
});
/** A command the model asks to run outside the sandbox: under `on-request` Codex asks its client first. */
const escalated = (cmd: string): Step => shell(cmd, { sandbox_permissions: 'require_escalated', justification: 'The task needs it.' });

/** The tool outputs Codex sent the model in one request. */
function toolOutputs(req: RecordedRequest | undefined): string[] {
  return (req?.body?.input ?? []).filter((i: { type?: string }) => i.type === 'function_call_output').map((i: { output: unknown }) => String(i.output));
}

/** Everything one request told the model, as text (its history included). */
const said = (req: RecordedRequest | undefined): string => JSON.stringify(req?.body?.input ?? []);

async function approvals(r: Rig, run: string, all = false): Promise<Approval[]> {
  return r.json<Approval[]>(['approvals', run, ...(all ? ['--all'] : [])]);
}

/** The run's oldest pending request, once Codex has asked. */
async function pending(r: Rig, run: string, uuid: string): Promise<Approval> {
  return r.until(async () => (await approvals(r, run))[0], `${run}: a request`, uuid, 30_000);
}

async function answer(r: Rig, args: string[]): Promise<void> {
  const res = await r.cli([...args, '--json']);
  if (res.code !== 0) throw new Error(`orcr ${args.join(' ')} exited ${res.code}: ${res.stderr}${res.stdout}`);
}

describeWhen(
  needAgent('codex'),
  'real Codex app-server under orcr',
  () => {
    it('a command that needs approval waits in the queue; `orcr approve` runs it and the model receives its real output; a rule written as for Claude Code answers the next', async () => {
      const r = await rig({ config: ASKING });
      const script = `printf 'real %s\\n' "$(pwd)" > one.txt && cat one.txt`;
      r.server.script('openai', escalated(script), escalated('echo by-rule'), text('Ran them.'));
      const run = await r.run('codex', 'allowed', 'write one.txt', ['--allow', 'Bash(echo by-rule)']);
      const asked = await pending(r, 'allowed', run.uuid);
      // The command as the model wrote it, not Codex's `/bin/bash -lc "…"'…'` of it.
      expect(asked).toMatchObject({ run: run.uuid, tool: 'Bash', state: 'pending', summary: `Bash: ${script}` });
      expect(await r.show('allowed')).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: asked.id } });
      expect(fs.existsSync(path.join(r.work, 'one.txt'))).toBe(false);

      await answer(r, ['approve', String(asked.id)]);
      const shown = await r.ended('allowed');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      const main = r.server.mainRequests('openai');
      expect(main).toHaveLength(3);
      // The genuine output: the run's folder, which only running the command could print.
      expect(toolOutputs(main[1]).join('\n')).toContain(`real ${r.work}`);
      expect(toolOutputs(main[2]).join('\n')).toContain('by-rule');
      expect(shown.last_text).toBe('Ran them.');
      expect(await approvals(r, 'allowed', true)).toMatchObject([
        { state: 'allowed', by: { kind: 'person', via: 'cli' } },
        { state: 'allowed', by: { kind: 'rule', rule: 'Bash(echo by-rule)' } },
      ]);
    });

    it('`orcr deny -m`: the command does not run, the model is sent Codex’s rejection, and the run goes on to complete', async () => {
      const r = await rig({ config: ASKING });
      r.server.script('openai', escalated('touch nope.txt && echo made'), text('Understood, not done.'));
      const run = await r.run('codex', 'denied', 'make nope.txt');
      const asked = await pending(r, 'denied', run.uuid);
      await answer(r, ['deny', String(asked.id), '-m', 'Not in this folder.']);
      const shown = await r.ended('denied');
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      const main = r.server.mainRequests('openai');
      expect(main).toHaveLength(2);
      expect(toolOutputs(main[1]).join('\n')).toContain('rejected by user');
      expect(fs.existsSync(path.join(r.work, 'nope.txt'))).toBe(false);
      expect((await approvals(r, 'denied', true))[0]).toMatchObject({ state: 'denied', message: 'Not in this folder.' });
    });

    it('--interactive, then `orcr send`: a second turn of the same thread (the model sees the first turn; the session unchanged)', async () => {
      const r = await rig();
      r.server.script('openai', text('Noted: banana.', { input: 100, output: 7 }), text('The word was banana.', { input: 150, output: 6 }));
      const run = await r.run('codex', 'chat', 'remember the word banana', ['--interactive']);
      const idle = await r.waitFor('chat', (x) => x.status === 'idle' || x.status === 'ended', 'idle after the first turn', 30_000);
      expect(idle.status, r.describe(run.uuid)).toBe('idle');
      expect(idle.session_id).toBeTruthy();
      const sent = await r.cli(['send', 'chat', 'which word?']);
      expect(sent.code, sent.stderr).toBe(0);
      const again = await r.waitFor('chat', (x) => x.status === 'idle' && x.last_text === 'The word was banana.', 'idle after the second turn', 30_000);
      expect(again.session_id).toBe(idle.session_id);
      const main = r.server.mainRequests('openai');
      expect(main).toHaveLength(2);
      expect(said(main[1])).toContain('remember the word banana');
      expect(said(main[1])).toContain('Noted: banana.');
      expect(said(main[1])).toContain('which word?');
      expect(await r.cli(['kill', 'chat'])).toMatchObject({ code: 0 });
    });

    it('a usage limit: the run is held, and its next attempt resumes the same thread (thread/resume) and completes', async () => {
      const r = await rig({ config: { providers: { codex: { continue_prompt: 'The limit has reset; carry on.' } } } });
      r.server.script(
        'openai',
        // The reset a few seconds after the request (as Codex reads it: x-codex-primary-reset-at, epoch seconds).
        () =>
          httpError(429, {
            errorType: 'usage_limit_reached',
            message: 'The usage limit has been reached',
            headers: {
              'x-codex-primary-used-percent': '100',
              'x-codex-primary-window-minutes': '300',
              'x-codex-primary-reset-at': String(Math.ceil(Date.now() / 1000) + 3),
            },
          }),
        text('Carried on and done.', { input: 30, output: 5 }),
      );
      const run = await r.run('codex', 'capped', 'write the summary');
      const queued = await r.waitFor('capped', (x) => (x.attempts?.length ?? 0) >= 1, 'continued after the limit', 30_000);
      const thread = queued.attempts[0]!.session_id!;
      expect(thread, r.describe(run.uuid)).toBeTruthy();
      const shown = await r.ended('capped', 60_000);
      expect(shown.exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(shown.attempts).toMatchObject([{ n: 1, kind: 'continue', detail: 'limit', session_id: thread }]);
      expect(shown.session_id).toBe(thread);
      expect(shown.last_text).toBe('Carried on and done.');
      // Held until the reset Codex was told (its rate-limit notice), not for limit_hold's five minutes.
      const blocked = (await r.events(run.uuid)).find((e) => e.type === 'blocked' && e.data.kind === 'limit');
      expect(blocked?.data.retry_after_s).toBeLessThanOrEqual(4);
      // The second process opened the same thread by thread/resume, and the model was sent its history.
      const opens = r.outLines(run.uuid).filter((o) => o.id === 'orcr:open');
      expect(opens.map((o) => o.result?.thread?.id)).toEqual([thread, thread]);
      const main = r.server.mainRequests('openai');
      expect(main).toHaveLength(2);
      expect(said(main[1])).toContain('write the summary');
      expect(said(main[1])).toContain('The limit has reset; carry on.');
    });
  },
  { timeout: 120_000 },
);
