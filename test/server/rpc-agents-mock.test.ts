// Runs of the two-way protocols (Codex's app-server, ACP) through a real
// supervisor and the real CLI, the built mock agent serving them (`--format
// codex-app`, `--format acp`): orcr writes the opening, starts the first
// turn once the session is open, blocks the run on each request the agent
// sends and writes back the answer a person gave (`orcr approve`, `orcr
// deny`); an interactive run takes its next turn from `orcr send`, on the
// same session.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nextRequest, requests } from '../support/approvals.js';
import { MOCK_AGENT, NODE, until } from '../support/harness.js';
import { useLiveHomes, type LiveHome } from '../support/in-process.js';

const home = useLiveHomes();

const mock = (scenario: string, seed = 7, format = 'codex-app'): string[] => [
  NODE,
  MOCK_AGENT,
  '--format',
  format,
  '--scenario',
  scenario,
  '--seed',
  String(seed),
  '--delay',
  '0',
];

type Line = Record<string, any>;

/** What the agent printed, parsed. */
const out = (h: LiveHome, uuid: string): Line[] =>
  fs
    .readFileSync(path.join(h.runDir(uuid), 'out'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

/** Answer each request of the run with `orcr ARGS RUN` as it comes, until the run has ended; how many were answered. */
async function answerUntilEnded(h: LiveHome, run: string, args: string[]): Promise<number> {
  let n = 0;
  await until(
    async () => {
      if ((await requests(h, run)).length > 0) {
        const r = await h.cli([...args, run]);
        expect(r.code, r.stderr).toBe(0);
        n++;
      }
      return (await h.show(run)).status === 'ended';
    },
    `${run} to end, its requests answered`,
    30_000,
  );
  return n;
}

describe('codex-app through a supervisor, the mock agent serving', () => {
  it('ask: the run waits blocked on the request; orcr approve lets each tool run and the run completes', async () => {
    const h = await home();
    const r = await h.run(['-n', 'app', '--protocol', 'codex-app', '-p', 'add a health check', '--', ...mock('ask')]);
    const first = await nextRequest(h, 'a request', 'app');
    expect(first.summary).toMatch(/^(Bash|Edit): /);
    const blocked = await h.show('app');
    expect(blocked).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: first.id } });
    // The thread the agent opened is the run's session.
    const thread = out(h, r.uuid).find((o) => o.id === 'orcr:open')!.result.thread.id as string;
    expect(blocked.session_id).toBe(thread);

    const answered = await answerUntilEnded(h, 'app', ['approve']);
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(await h.show('app')).toMatchObject({ status: 'ended', exit_reason: 'completed', turns: 1, asking: null });
    const lines = out(h, r.uuid);
    // Each request answered by its id with the decision, each tool run.
    const asked = lines.filter((o) => typeof o.method === 'string' && /\/requestApproval$/.test(o.method));
    expect(asked).toHaveLength(answered);
    const items = lines.filter((o) => o.method === 'item/completed' && ['commandExecution', 'fileChange'].includes(o.params.item.type));
    for (const a of asked) expect(items.find((i) => i.params.item.id === a.params.itemId)?.params.item.status).toBe('completed');
    expect(lines.find((o) => o.method === 'turn/completed')).toMatchObject({ params: { threadId: thread, turn: { status: 'completed' } } });
    const inputs = lines.filter((o) => o.method === 'item/completed' && o.params.item.type === 'userMessage');
    expect(inputs.map((o) => o.params.item.content[0].text)).toEqual(['add a health check']);
  });

  it('ask: orcr deny — each tool is declined, the model goes on without it, and the run completes', async () => {
    const h = await home();
    const r = await h.run(['-n', 'no', '--protocol', 'codex-app', '-p', 'go', '--', ...mock('ask', 3)]);
    await nextRequest(h, 'a request', 'no');
    const denied = await answerUntilEnded(h, 'no', ['deny', '-m', 'not now']);
    expect(await h.show('no')).toMatchObject({ status: 'ended', exit_reason: 'completed' });
    const lines = out(h, r.uuid);
    const refused = lines.filter((o) => o.method === 'item/completed' && o.params.item.status === 'declined');
    expect(refused).toHaveLength(denied);
    expect(lines.filter((o) => o.method === 'item/completed' && / was refused /.test(o.params.item.text ?? ''))).toHaveLength(denied);
  });

  it('interactive: the prompt is turn 1 once the thread is open; orcr send starts turn 2 on the same thread', async () => {
    const h = await home();
    const r = await h.run(['-n', 'chat', '--interactive', '--protocol', 'codex-app', '-p', 'first', '--', ...mock('interactive')]);
    expect((await h.cli(['wait', 'chat', '--timeout', '20s'])).stdout.trim()).toBe('chat turn_complete');
    const one = await h.show('chat');
    expect(one).toMatchObject({ status: 'idle', turns: 1, last_text: expect.stringMatching(/^Turn 1 done: /) });
    expect(one.session_id).toMatch(/^[0-9a-f-]{36}$/);

    const sent = await h.cli(['send', 'chat', 'second']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await h.cli(['wait', 'chat', '--timeout', '20s'])).stdout.trim()).toBe('chat turn_complete');
    expect(await h.show('chat')).toMatchObject({ status: 'idle', turns: 2, session_id: one.session_id });
    const lines = out(h, r.uuid);
    const turns = lines.filter((o) => o.method === 'turn/completed');
    expect(turns.map((o) => [o.params.threadId, o.params.turn.status])).toEqual([
      [one.session_id, 'completed'],
      [one.session_id, 'completed'],
    ]);
    const inputs = lines.filter((o) => o.method === 'item/completed' && o.params.item.type === 'userMessage');
    expect(inputs.map((o) => o.params.item.content[0].text)).toEqual(['first', 'second']);
    // Its tokens counted, the thread's running total diffed.
    expect((await h.show('chat')).tokens.input).toBeGreaterThan(0);
    await h.kill(['chat']);
    await until(async () => (await h.show('chat')).status === 'ended', 'chat to end');
  });
});

/** The session/update notifications the agent printed, by their kind. */
const updates = (lines: Line[], kind: string): Line[] =>
  lines.filter((o) => o.method === 'session/update' && o.params.update.sessionUpdate === kind).map((o) => o.params.update);

describe('acp through a supervisor, the mock agent serving', () => {
  it('ask: the run waits blocked on the permission request; orcr approve lets each tool run and the run completes', async () => {
    const h = await home();
    const r = await h.run(['-n', 'acp', '--protocol', 'acp', '-p', 'add a health check', '--', ...mock('ask', 7, 'acp')]);
    const first = await nextRequest(h, 'a request', 'acp');
    expect(first.summary).toMatch(/^(Bash|Edit)\b/);
    const blocked = await h.show('acp');
    expect(blocked).toMatchObject({ status: 'blocked', blocked_kind: 'approval', asking: { id: first.id } });
    expect(blocked.session_id).toBe(out(h, r.uuid).find((o) => o.id === 'orcr:open')!.result.sessionId);

    const answered = await answerUntilEnded(h, 'acp', ['approve']);
    expect(await h.show('acp')).toMatchObject({ status: 'ended', exit_reason: 'completed', turns: 1, asking: null });
    const lines = out(h, r.uuid);
    const asked = lines.filter((o) => o.method === 'session/request_permission');
    expect(asked).toHaveLength(answered);
    // Each tool allowed ran.
    for (const a of asked)
      expect(updates(lines, 'tool_call_update').find((u) => u.toolCallId === a.params.toolCall.toolCallId)).toMatchObject({ status: 'completed' });
    expect(lines.find((o) => o.id === 'orcr:turn:1')).toMatchObject({ result: { stopReason: 'end_turn' } });
  });

  it('ask: orcr deny — each tool is rejected (not run), the model goes on, and the run completes', async () => {
    const h = await home();
    const r = await h.run(['-n', 'no', '--protocol', 'acp', '-p', 'go', '--', ...mock('ask', 3, 'acp')]);
    await nextRequest(h, 'a request', 'no');
    const denied = await answerUntilEnded(h, 'no', ['deny']);
    expect(denied).toBeGreaterThanOrEqual(1);
    expect(await h.show('no')).toMatchObject({ status: 'ended', exit_reason: 'completed' });
    const lines = out(h, r.uuid);
    for (const a of lines.filter((o) => o.method === 'session/request_permission'))
      expect(updates(lines, 'tool_call_update').some((u) => u.toolCallId === a.params.toolCall.toolCallId)).toBe(false);
    const said = updates(lines, 'agent_message_chunk')
      .map((u) => u.content.text as string)
      .join('');
    expect(said.match(/was canceled by the user\. Going on without it\./g)).toHaveLength(denied);
  });

  it('interactive: the prompt is turn 1 once the session is open; orcr send prompts turn 2 in the same session', async () => {
    const h = await home();
    const r = await h.run(['-n', 'chat', '--interactive', '--protocol', 'acp', '-p', 'first', '--', ...mock('interactive', 7, 'acp')]);
    expect((await h.cli(['wait', 'chat', '--timeout', '20s'])).stdout.trim()).toBe('chat turn_complete');
    const one = await h.show('chat');
    expect(one).toMatchObject({ status: 'idle', turns: 1, last_text: expect.stringMatching(/^Turn 1 done: /) });
    const sent = await h.cli(['send', 'chat', 'second']);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await h.cli(['wait', 'chat', '--timeout', '20s'])).stdout.trim()).toBe('chat turn_complete');
    expect(await h.show('chat')).toMatchObject({ status: 'idle', turns: 2, session_id: one.session_id });
    const lines = out(h, r.uuid);
    expect(lines.filter((o) => typeof o.id === 'string' && o.id.startsWith('orcr:turn:')).map((o) => [o.id, o.result?.stopReason])).toEqual([
      ['orcr:turn:1', 'end_turn'],
      ['orcr:turn:2', 'end_turn'],
    ]);
    expect(lines.filter((o) => o.method === 'session/update').every((o) => o.params.sessionId === one.session_id)).toBe(true);
    expect((await h.show('chat')).tokens.input).toBeGreaterThan(0);
    await h.kill(['chat']);
    await until(async () => (await h.show('chat')).status === 'ended', 'chat to end');
  });

  it('a retry that loads the session waits for a later minute than the session was opened in (Gemini refuses a load in it and loses the history)', async () => {
    const h = await home();
    // The session is opened after this: a later minute than this one's is the least the retry may wait for.
    const before = Date.now();
    await h.run(['-n', 'gone', '--interactive', '--retries', '1', '--protocol', 'acp', '-p', 'first', '--', ...mock('interactive', 7, 'acp')]);
    const first = await until(async () => {
      const x = await h.show('gone');
      return x.status === 'idle' && x.pid !== null && x.session_id !== null ? x : null;
    }, 'gone to have its session');
    // Its process group SIGKILLed (the wrapper, the agent and the subshell that would write its exit status): lost, a
    // passing failure, retried by loading the same session. (The wrapper alone: its agent reads the end of its input and
    // exits 0, which the subshell writes down — a run that completed.)
    process.kill(-first.pid!, 'SIGKILL');
    type Retrying = { ts: number; type: string; run: string; data: { delay_ms: number; resumes: boolean } };
    let seen = '';
    const retrying = await until(
      async () => {
        const x = await h.show('gone');
        seen = JSON.stringify([x.status, x.exit_reason, x.exit_detail, x.exit_note, x.attempts.length]);
        return (await h.events<Retrying>()).find((e) => e.type === 'retrying' && e.run === first.uuid);
      },
      () => `gone to be retried (last seen: ${seen})`,
    );
    expect(retrying.data.resumes).toBe(true);
    expect(retrying.ts + retrying.data.delay_ms).toBeGreaterThanOrEqual(Math.floor(before / 60_000) * 60_000 + 61_000);
    expect((await h.show('gone')).session_id).toBe(first.session_id);
    await h.kill(['gone']);
    await until(async () => (await h.show('gone')).status === 'ended', 'gone to end');
  });
});
