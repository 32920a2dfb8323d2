// Issue #41's acceptance against the REAL Claude Code (npm run agents:install):
// the built-in preset's `--permission-prompt-tool stdio` makes every tool call
// the agent's settings do not allow a request to orcr, answered through the
// supervisor's socket. The model is scripted to call the tools; what the model
// server was sent next (the tool_result the model got) is the proof that an
// answer reached the genuine CLI and did what it says. Without the flag (a
// config override of the provider's command) the CLI refuses by itself and
// orcr counts its refusals.

import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { text, toolCall, type RecordedRequest } from '../support/model-server.js';
import { announce, needAgent, useRigs, type Rig } from '../support/real-agents.js';
import { Remote } from '../support/in-process.js';
import { describeWhen } from '../support/skip.js';
import { until } from '../support/harness.js';

announce('claude');

const rig = useRigs();

interface Approval {
  id: number;
  run: string;
  name: string;
  tool: string;
  summary: string;
  question: boolean;
  questions: { question: string; options: { label: string }[] }[] | null;
  state: string;
  by: { kind: string; via?: string; rule?: string; list?: string } | null;
  message: string | null;
  delivered: boolean;
}

type Verdict = 'allow' | 'deny';

/**
 * Answer a request (its id) or a run's pending ones (its name), as a person
 * would: through the socket method `approval.answer`. `home` is the rig whose
 * supervisor answers; the one place a test answers, so it can move to
 * `orcr approve` / `orcr deny` in one edit.
 */
/** A person's answer, given as one would: `orcr approve ID [--answer LABEL]…` or `orcr deny ID [-m TEXT]`. */
async function answer(home: Rig, target: string | number, verdict: Verdict, opts: { message?: string; answers?: string[]; always?: boolean } = {}) {
  const args = verdict === 'allow' ? ['approve', String(target)] : ['deny', String(target)];
  if (opts.message !== undefined) args.push('-m', opts.message);
  for (const a of opts.answers ?? []) args.push('--answer', a);
  if (opts.always === true) args.push('--always');
  const r = await home.cli([...args, '--json']);
  if (r.code !== 0) throw new Error(`orcr ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return { results: JSON.parse(r.stdout) as { id: number; state: string }[] };
}

async function approvals(r: Rig, run: string, all = false): Promise<Approval[]> {
  const remote = new Remote(r.home.dir, () => r.home.env);
  try {
    return (await remote.call<{ approvals: Approval[] }>('approval.list', { run, all })).approvals;
  } finally {
    remote.disconnect();
  }
}

/** The run's oldest pending request, once the CLI has asked. */
async function pending(r: Rig, run: string, uuid: string, what = 'a request'): Promise<Approval> {
  return r.until(async () => (await approvals(r, run))[0], `${run}: ${what}`, uuid, 60_000);
}

/** A rig whose agent settings allow no tool: every call that needs permission is asked. */
async function asking(opts: Parameters<typeof rig>[0] = {}): Promise<Rig> {
  const r = await rig(opts);
  fs.writeFileSync(path.join(r.agentHome, '.claude', 'settings.json'), JSON.stringify({ permissions: { allow: [] } }, null, 2));
  return r;
}

/** The tool results the model was sent, by tool_use_id, over every request the CLI made. */
function fedToModel(reqs: RecordedRequest[]): Map<string, { content: string; is_error: boolean }> {
  const out = new Map<string, { content: string; is_error: boolean }>();
  for (const req of reqs)
    for (const m of req.body?.messages ?? []) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue;
      for (const b of m.content) if (b.type === 'tool_result') out.set(b.tool_use_id, { content: contentText(b.content), is_error: b.is_error === true });
    }
  return out;
}

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((b: { text?: string }) => b.text ?? '').join('\n');
  return JSON.stringify(c);
}

/** What the model got for one tool call (after the run has ended, or once the CLI sent it). */
async function resultFor(r: Rig, uuid: string, toolUseId: string): Promise<{ content: string; is_error: boolean }> {
  return r.until(() => fedToModel(r.server.mainRequests('anthropic')).get(toolUseId), `the model to be sent ${toolUseId}'s result`, uuid, 60_000);
}

const bash = (command: string, id: string) => toolCall('Bash', { command, description: 'a scripted command' }, { input: 50, output: 10 }, { id });

/** The built-in preset's command without `--permission-prompt-tool stdio`. */
const WITHOUT_PROMPT_TOOL = ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'];

describeWhen(
  needAgent('claude'),
  'real Claude Code asking orcr',
  () => {
    it('a Bash call no rule allows is a pending request; allowed, it runs and the model receives the command’s real output', async () => {
      const r = await asking();
      r.server.script('anthropic', bash(`printf 'real %s\\n' "$(pwd)" > one.txt && cat one.txt`, 'toolu_allow_1'), text('Ran it.'));
      const run = await r.run('claude', 'allowed', 'write one.txt');
      expect(run.command).toContain('--permission-prompt-tool');
      const asked = await pending(r, 'allowed', run.uuid);
      expect(asked).toMatchObject({ run: run.uuid, tool: 'Bash', state: 'pending', by: null, question: false });
      expect(asked.summary).toContain('one.txt');
      expect(await r.show('allowed')).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: asked.id } });
      // Nothing ran before the answer.
      expect(fs.existsSync(path.join(r.work, 'one.txt'))).toBe(false);

      expect((await answer(r, asked.id, 'allow')).results).toEqual([expect.objectContaining({ id: asked.id, state: 'allowed' })]);
      expect((await r.ended('allowed')).exit_reason, r.describe(run.uuid)).toBe('completed');
      // The model got the command's genuine output: the run's folder, which only running it could print.
      expect(await resultFor(r, run.uuid, 'toolu_allow_1')).toEqual({ content: `real ${r.work}`, is_error: false });
      expect((await approvals(r, 'allowed', true))[0]).toMatchObject({ state: 'allowed', by: { kind: 'person', via: 'cli' }, delivered: true });
    });

    it('denied with a message: the tool does not run and the model receives exactly the message', async () => {
      const r = await asking();
      r.server.script('anthropic', bash('touch nope.txt && echo made', 'toolu_deny_1'), text('Understood.'));
      const run = await r.run('claude', 'denied', 'make nope.txt');
      const asked = await pending(r, 'denied', run.uuid);
      await answer(r, asked.id, 'deny', { message: 'Not in this folder: use /tmp instead.' });
      const ended = await r.ended('denied');
      expect(ended.exit_reason, r.describe(run.uuid)).toBe('completed');
      // A person's denial is a decided request, not one of the CLI's own refusals (⊘ N denied).
      expect(ended.denials).toBe(0);
      expect(await resultFor(r, run.uuid, 'toolu_deny_1')).toEqual({ content: 'Not in this folder: use /tmp instead.', is_error: true });
      expect(fs.existsSync(path.join(r.work, 'nope.txt'))).toBe(false);
      expect((await approvals(r, 'denied', true))[0]).toMatchObject({ state: 'denied', message: 'Not in this folder: use /tmp instead.' });
    });

    it('an allow rule (run --allow) lets a second call through without asking anyone', async () => {
      const r = await asking();
      r.server.script('anthropic', bash('touch one.txt && echo first-done', 'toolu_rule_1'), bash('touch two.txt', 'toolu_rule_2'), text('Both made.'));
      const run = await r.run('claude', 'ruled', 'make two files', ['--allow', 'Bash(touch two.txt)']);
      const first = await pending(r, 'ruled', run.uuid, 'the first call, which no rule allows');
      expect(first.summary).toContain('touch one.txt');
      await answer(r, first.id, 'allow');
      expect((await r.ended('ruled')).exit_reason, r.describe(run.uuid)).toBe('completed');
      const all = await approvals(r, 'ruled', true);
      expect(all).toMatchObject([
        { state: 'allowed', by: { kind: 'person' } },
        { state: 'allowed', by: { kind: 'rule', rule: 'Bash(touch two.txt)', list: 'allow' } },
      ]);
      expect(await resultFor(r, run.uuid, 'toolu_rule_1')).toEqual({ content: 'first-done', is_error: false });
      expect((await resultFor(r, run.uuid, 'toolu_rule_2')).is_error).toBe(false);
      expect(fs.existsSync(path.join(r.work, 'two.txt'))).toBe(true);
    });

    it('nobody answers in time: the deadline denies it, and the model is told so', async () => {
      const r = await asking({ config: { approvals: { timeout: '3s' } } });
      r.server.script('anthropic', bash('touch late.txt', 'toolu_late_1'), text('Skipped it.'));
      const run = await r.run('claude', 'late', 'make late.txt');
      const asked = await pending(r, 'late', run.uuid);
      expect((await r.ended('late')).exit_reason, r.describe(run.uuid)).toBe('completed');
      expect((await approvals(r, 'late', true))[0]).toMatchObject({ id: asked.id, state: 'denied', by: { kind: 'deadline' } });
      expect(await resultFor(r, run.uuid, 'toolu_late_1')).toEqual({ content: 'nobody answered in time: denied by its deadline', is_error: true });
      expect(fs.existsSync(path.join(r.work, 'late.txt'))).toBe(false);
    });

    it('an AskUserQuestion is a question; answered with one of its options, the model receives that option', async () => {
      const r = await asking();
      const question = 'Which database should the service use?';
      r.server.script(
        'anthropic',
        toolCall(
          'AskUserQuestion',
          {
            questions: [
              {
                question,
                header: 'Database',
                options: [
                  { label: 'Postgres', description: 'Relational, the default' },
                  { label: 'SQLite', description: 'A file, no server' },
                ],
                multiSelect: false,
              },
            ],
          },
          undefined,
          { id: 'toolu_ask_1' },
        ),
        text('SQLite it is.'),
      );
      const run = await r.run('claude', 'asks', 'pick a database');
      const asked = await pending(r, 'asks', run.uuid, 'the question');
      expect(asked).toMatchObject({ tool: 'AskUserQuestion', question: true });
      expect(asked.questions![0]!.options.map((o) => o.label)).toEqual(['Postgres', 'SQLite']);
      await answer(r, asked.id, 'allow', { answers: ['SQLite'] });
      expect((await r.ended('asks')).exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(await resultFor(r, run.uuid, 'toolu_ask_1')).toEqual({
        content: `Your questions have been answered: "${question}"="SQLite". You can now continue with these answers in mind.`,
        is_error: false,
      });
    });

    it('a request pending when the supervisor is SIGKILLed is answered through the next supervisor, and the run completes', async () => {
      const r = await asking();
      r.server.script('anthropic', bash(`printf 'survived %s\\n' "$(pwd)" > kept.txt && cat kept.txt`, 'toolu_kill_1'), text('Done after all.'));
      const run = await r.run('claude', 'kept', 'write kept.txt');
      const asked = await pending(r, 'kept', run.uuid);
      const status = JSON.parse((await r.cli(['server', 'status', '--json'])).stdout) as { pid: number };
      process.kill(status.pid, 'SIGKILL');
      await until(() => !fs.existsSync(`/proc/${status.pid}`) || fs.readFileSync(`/proc/${status.pid}/stat`, 'utf8').includes(') Z'), 'the supervisor to die');
      // The next CLI call starts the next supervisor; it finds the request still pending and the run still asking.
      expect(await r.show('kept')).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: asked.id } });
      const next = JSON.parse((await r.cli(['server', 'status', '--json'])).stdout) as { pid: number };
      expect(next.pid).not.toBe(status.pid);
      expect(await approvals(r, 'kept')).toEqual([expect.objectContaining({ id: asked.id, state: 'pending' })]);
      await answer(r, asked.id, 'allow');
      expect((await r.ended('kept')).exit_reason, r.describe(run.uuid)).toBe('completed');
      expect(await resultFor(r, run.uuid, 'toolu_kill_1')).toEqual({ content: `survived ${r.work}`, is_error: false });
      expect((await r.events(run.uuid)).map((e) => e.type)).toContain('adopted');
    });

    it('without the prompt tool (a config override of the command), the same call is refused by the CLI: a `denied` event and ⊘ 1 denied in ps', async () => {
      const r = await asking({ config: { providers: { claude: { command: WITHOUT_PROMPT_TOOL, interactive_input: true } } } });
      r.server.script('anthropic', bash('touch nope.txt && echo made', 'toolu_cli_1'), text('Could not.'));
      const run = await r.run('claude', 'refused', 'make nope.txt');
      expect(run.command).not.toContain('--permission-prompt-tool');
      expect((await r.ended('refused')).exit_reason, r.describe(run.uuid)).toBe('completed');
      // Nobody was asked.
      expect(await approvals(r, 'refused', true)).toEqual([]);
      const denied = (await r.events(run.uuid)).filter((e) => e.type === 'denied');
      expect(denied).toEqual([expect.objectContaining({ data: expect.objectContaining({ tool: 'Bash' }) })]);
      const fed = await resultFor(r, run.uuid, 'toolu_cli_1');
      expect(fed.is_error).toBe(true);
      expect(fed.content).toMatch(/needs approval|haven't granted/);
      expect((await r.cli(['ps', '--all'])).stdout).toContain('⊘ 1 denied');
      const listed = await r.json<{ name: string; denials: number }[]>(['ps', '--all']);
      expect(listed.find((x) => x.name === 'refused')?.denials).toBe(1);
      expect(fs.existsSync(path.join(r.work, 'nope.txt'))).toBe(false);
    });
  },
  { timeout: 180_000 },
);
