// An agent's requests through a real supervisor: the mock agent speaking
// Claude Code's control messages (`--scenario ask`, `ask-question`) and a
// stand-in asking what a test names, each waiting on its stdin for orcr's
// answer. A request is journaled pending and blocks its run (WHY names it);
// a person's answer reaches the agent; rules answer before anyone is asked;
// a deadline decides one nobody answered; a question takes one of its options.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCK_AGENT, NODE, until } from '../support/harness.js';
import { askingAgent } from '../support/asking-agent.js';
import { useLiveHomes, type LiveHome } from '../support/in-process.js';

const home = useLiveHomes();

const mock = (scenario: 'ask' | 'ask-question', seed = 7): string[] => [
  NODE,
  MOCK_AGENT,
  '--format',
  'claude',
  '--scenario',
  scenario,
  '--seed',
  String(seed),
  '--delay',
  '0',
];

interface Approval {
  id: number;
  run: string;
  name: string;
  tool: string;
  summary: string;
  question: boolean;
  questions: { question: string; options: { label: string }[]; multi: boolean }[] | null;
  state: string;
  by: { kind: string; via?: string; who?: string | null; rule?: string } | null;
  decided_by: string | null;
  message: string | null;
  delivered: boolean;
  deadline_at: string | null;
}

const pending = async (h: LiveHome, run?: string): Promise<Approval[]> =>
  (await h.call<{ approvals: Approval[] }>('approval.list', run ? { run } : {})).approvals;
/** The oldest pending request (of the run), once there is one. */
const firstPending = (h: LiveHome, what: string, run?: string): Promise<Approval> => until(async () => (await pending(h, run))[0], what);
const every = async (h: LiveHome, run: string): Promise<Approval[]> => (await h.call<{ approvals: Approval[] }>('approval.list', { run, all: true })).approvals;
const answer = (h: LiveHome, p: Record<string, unknown>) =>
  h.call<{ results: { id: number; state: string; error?: { code: string } }[] }>('approval.answer', { via: 'cli', ...p });

/** Answer each request of the run as it comes (`decide` says how), until the run has ended. */
async function answerAll(h: LiveHome, run: string, decide: (a: Approval, nth: number) => Record<string, unknown>): Promise<number> {
  let n = 0;
  await until(
    async () => {
      for (const a of await pending(h, run)) await answer(h, { targets: [String(a.id)], ...decide(a, n++) });
      return (await h.show(run)).status === 'ended';
    },
    'the run to end, its requests answered',
    30_000,
  );
  return n;
}

/** The tool results the agent printed, by tool_use_id. */
function toolResults(h: LiveHome, uuid: string): Map<string, { content: string; is_error: boolean }> {
  const map = new Map<string, { content: string; is_error: boolean }>();
  for (const l of fs
    .readFileSync(path.join(h.runDir(uuid), 'out'), 'utf8')
    .split('\n')
    .filter(Boolean)) {
    const o = JSON.parse(l) as { type: string; message?: { content?: { tool_use_id?: string; content?: string; is_error?: boolean }[] } };
    if (o.type !== 'user' || !Array.isArray(o.message?.content)) continue;
    for (const b of o.message.content) if (b.tool_use_id) map.set(b.tool_use_id, { content: String(b.content), is_error: b.is_error === true });
  }
  return map;
}

describe('a request, asked and answered', () => {
  it('is journaled pending, blocks its run (WHY: approve TOOL: …) keeping its slot; allowed, the agent runs the tool and the run completes', async () => {
    const h = await home();
    const r = await h.run(['-n', 'asks', '--protocol', 'claude', '-p', 'go', '--', ...mock('ask')]);
    const first = await firstPending(h, 'a request');
    expect(first).toMatchObject({ run: r.uuid, name: 'asks', state: 'pending', question: false, by: null, delivered: false });
    expect(first.summary).toMatch(/^(Bash|Write|Edit): /);
    // The default deadline: an hour.
    expect(Date.parse(first.deadline_at!) - Date.now()).toBeGreaterThan(50 * 60_000);
    const blocked = await h.show('asks');
    expect(blocked).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: first.id, summary: first.summary, question: false, more: 0 } });
    expect(blocked.lease).not.toBeNull();
    expect((await h.stats<{ active: number }>()).active).toBe(1);
    const asked = await h.call<{ approval: Approval; input: { command?: string; file_path?: string } }>('approval.get', { id: first.id });
    expect(asked.input).toEqual(expect.objectContaining(first.tool === 'Bash' ? { command: expect.any(String) } : { file_path: expect.any(String) }));

    const answered = await answerAll(h, 'asks', () => ({ verdict: 'allow', who: 'pts/9' }));
    expect(answered).toBeGreaterThanOrEqual(1);
    const ended = await h.show('asks');
    expect(ended).toMatchObject({ status: 'ended', exit_reason: 'completed', asking: null });
    // Each tool ran: its result is the tool's output, not a refusal.
    const results = [...toolResults(h, r.uuid).values()];
    expect(results.length).toBeGreaterThanOrEqual(answered);
    expect(results.every((x) => !x.is_error)).toBe(true);
    const all = await every(h, 'asks');
    expect(all.map((a) => a.state)).toEqual(all.map(() => 'allowed'));
    expect(all[0]).toMatchObject({ by: { kind: 'person', via: 'cli', who: 'pts/9' }, decided_by: 'the CLI (pts/9)', delivered: true });
    const types = (await h.events<{ type: string; run: string | null; data: Record<string, unknown> }>()).filter((e) => e.run === r.uuid).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['approval_asked', 'blocked', 'approval_decided', 'working']));
    expect(types.indexOf('approval_asked')).toBeLessThan(types.indexOf('approval_decided'));
    // The whole input is in the run's folder, owner-only.
    const dir = path.join(h.runDir(r.uuid), 'approvals');
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(dir, `${first.id}.json`)).mode & 0o777).toBe(0o600);
  });

  it('denied with a message: the agent is told the message, and goes on', async () => {
    const h = await home();
    const r = await h.run(['-n', 'no', '--protocol', 'claude', '-p', 'go', '--', ...mock('ask', 3)]);
    await answerAll(h, 'no', (_a, n) => ({ verdict: 'deny', message: `not now #${n}` }));
    expect(await h.show('no')).toMatchObject({ status: 'ended', exit_reason: 'completed' });
    const results = [...toolResults(h, r.uuid).values()].filter((x) => x.is_error);
    expect(results.map((x) => x.content)).toContain('not now #0');
    expect((await every(h, 'no'))[0]).toMatchObject({ state: 'denied', message: 'not now #0' });
  });

  it('a rule answers before anyone is asked; "always" adds the rule the agent offers, and its like is allowed without asking', async () => {
    const h = await home({ approvals: { allow: ['Write', 'Edit'], deny: ['Bash(rm:*)'] } });
    const a = askingAgent(h, 'twice', {
      asks: [
        { tool: 'Write', input: { file_path: '/tmp/x/notes.txt', content: 'hi\n' } },
        { tool: 'Bash', input: { command: 'rm -rf build' } },
        ...[1, 2].map(() => ({
          tool: 'Bash',
          input: { command: 'npm test' },
          offers: [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }], behavior: 'allow', destination: 'localSettings' }],
        })),
      ],
    });
    const r = await h.run(['-n', 'rules', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await firstPending(h, 'the third request, for a person');
    expect(asked).toMatchObject({ summary: 'Bash: npm test' });
    const rules = await every(h, 'rules');
    expect(rules.slice(0, 2)).toMatchObject([
      { state: 'allowed', by: { kind: 'rule', rule: 'Write', list: 'allow' }, decided_by: 'the allow rule Write' },
      { state: 'denied', by: { kind: 'rule', rule: 'Bash(rm:*)', list: 'deny' } },
    ]);
    await answer(h, { targets: ['rules'], verdict: 'allow', always: true });
    await until(async () => (await h.show('rules')).status === 'ended', 'the run to end');
    const all = await every(h, 'rules');
    expect(all).toHaveLength(4);
    expect(all[3]).toMatchObject({ state: 'allowed', by: { kind: 'rule', rule: 'Bash(npm test)', list: 'allow' } });
    // The agent was told to keep the rule for its session, never in the work tree's settings.
    const kept = a.answers()[2] as { response: { response: { updatedPermissions?: { destination: string }[] } } };
    expect(kept.response.response.updatedPermissions).toEqual([expect.objectContaining({ destination: 'session' })]);
    expect(a.answers().map((l) => (l as { response: { response: { behavior: string } } }).response.response.behavior)).toEqual([
      'allow',
      'deny',
      'allow',
      'allow',
    ]);
    expect(r.uuid).toBeTruthy();
  });

  it('nobody answers in time: its deadline decides it (a short timeout in config), the agent is told and goes on', async () => {
    const h = await home({ approvals: { timeout: '300ms' } });
    const a = askingAgent(h, 'late', { asks: [{ tool: 'Bash', input: { command: 'make deploy' } }] });
    await h.run(['-n', 'late', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    await until(async () => (await h.show('late')).status === 'ended', 'the deadline to decide, and the run to end');
    expect((await every(h, 'late'))[0]).toMatchObject({ state: 'denied', by: { kind: 'deadline' }, decided_by: 'its deadline' });
    expect(a.answers()).toEqual([expect.objectContaining({ response: expect.objectContaining({ request_id: 'req-0' }) })]);
  });

  it('a question answered with one of its options; a label it does not offer is a usage error listing them', async () => {
    const h = await home({ approvals: { allow: ['Bash', 'Write', 'Edit'] } });
    const r = await h.run(['-n', 'q', '--protocol', 'claude', '-p', 'go', '--', ...mock('ask-question')]);
    const q = await firstPending(h, 'the question');
    expect(q).toMatchObject({ question: true, tool: 'AskUserQuestion' });
    expect(q.summary).toMatch(/^question: /);
    expect((await h.show('q')).asking).toMatchObject({ question: true, summary: q.summary });
    const options = q.questions![0]!.options.map((o) => o.label);
    const wrong = await answer(h, { targets: [String(q.id)], verdict: 'allow', answers: ['No such option'] }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'usage' });
    expect((wrong as Error).message).toContain(JSON.stringify(options[0]));
    await answer(h, { targets: [String(q.id)], verdict: 'allow', answers: [options[1]] });
    await until(async () => (await h.show('q')).status === 'ended', 'the run to end');
    expect((await every(h, 'q'))[0]).toMatchObject({ state: 'allowed', answers: [options[1]] });
    const said = fs.readFileSync(path.join(h.runDir(r.uuid), 'out'), 'utf8');
    expect(said).toContain(`Going with ${options[1]!}.`);
  });
});
