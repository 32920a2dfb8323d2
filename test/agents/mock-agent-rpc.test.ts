// The mock agent as a JSON-RPC server (`--format codex-app`: Codex's
// app-server; `--format acp`: an ACP agent as Gemini CLI's), spawned for
// real: driven by the very lines orcr writes (the protocol record's opening,
// each input, each request's answer: codex-app/ids.ts, answers.ts and
// acp's), and its output read by orcr's own adapter, as a run's would be.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentProtocol, createAdapter, foldSignals } from '../../src/agents/index.js';
import type { AgentAnswer } from '../../src/agents/protocol.js';
import { idOfRef } from '../../src/agents/rpc/frames.js';
import type { ExtendedSignal, Signal } from '../../src/agents/signals.js';
import { until } from '../support/harness.js';
import { assertTurnsPaired } from './helpers.js';

const BIN = fileURLToPath(new URL('../../dist/src/agents/mock-agent.js', import.meta.url));

beforeAll(() => {
  expect(existsSync(BIN), `${BIN}: build with npm run build`).toBe(true);
});

type Approval = Extract<Signal, { kind: 'approval' }>;
type Line = Record<string, any>;

interface Server {
  child: ChildProcessWithoutNullStreams;
  signals: ExtendedSignal[];
  /** Every stdout line, parsed. */
  out: Line[];
  stderr: () => string;
  approvals: () => Approval[];
  turnsEnded: () => number;
  until(pred: () => boolean, what?: string): Promise<void>;
  /** The record's opening (a new session, or `session` carried on); the session orcr's adapter read as opened. */
  open(session?: string | null): Promise<string>;
  /** The record's input line: a turn of the session. */
  turn(text: string, seq: number): void;
  answer(a: Approval, answer: Partial<AgentAnswer>): void;
  exited: Promise<number | null>;
}

/** The mock as a child, its stdout through the protocol's adapter; `decide` answers each request as it is read (null: left waiting). */
function startServer(format: 'codex-app' | 'acp', args: string[], decide: ((a: Approval, nth: number) => Partial<AgentAnswer> | null) | null = null): Server {
  const record = agentProtocol(format)!;
  const child = spawn(process.execPath, [BIN, '--format', format, '--delay', '0', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const adapter = createAdapter(format, { modelTurns: true });
  const signals: ExtendedSignal[] = [];
  const out: Line[] = [];
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const approvals = (): Approval[] => signals.filter((s): s is Approval => s.kind === 'approval');
  const opened = (): string | undefined => signals.flatMap((s) => (s.kind === 'opened' ? [s.session_id] : [])).at(-1);
  const m: Server = {
    child,
    signals,
    out,
    stderr: () => err,
    approvals,
    turnsEnded: () => signals.filter((s) => s.kind === 'turn_end').length,
    until: (pred, what = 'the mock to go on') =>
      until(pred, () => `${what}; signals: ${JSON.stringify(signals.map((s) => s.kind))}; stderr: ${err}`, 15_000).then(() => undefined),
    async open(session = null) {
      child.stdin.write(record.conversation!.opening({ cwd: process.cwd(), session }));
      await m.until(() => opened() !== undefined, 'the session to open');
      return opened()!;
    },
    turn: (text, seq) => child.stdin.write(record.input!.line(text, { session: opened() ?? null, seq })),
    answer: (a, answer) =>
      child.stdin.write(record.approvals!.answer(a.ask.ref, { verdict: 'allow', message: null, answers: null, always: false, ...answer }, a)),
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  rl.on('line', (line) => {
    out.push(JSON.parse(line) as Line);
    for (const s of adapter.line(line)) {
      signals.push(s);
      if (s.kind === 'reply') child.stdin.write(s.line);
      const answer = s.kind === 'approval' && decide ? decide(s, approvals().length - 1) : null;
      if (s.kind === 'approval' && answer) m.answer(s, answer);
    }
  });
  const drained = new Promise<void>((resolve) => rl.on('close', resolve));
  m.exited = Promise.all([m.exited, drained]).then(([code]) => code);
  return m;
}

const plain = (signals: ExtendedSignal[]): Signal[] => signals.filter((s): s is Signal => s.kind !== 'model_turn');
/** The items the server completed, by id. */
const completed = (out: Line[]): Map<string, Line> =>
  new Map(out.filter((o) => o.method === 'item/completed').map((o) => [o.params.item.id as string, o.params.item as Line]));

describe('mock agent: codex-app, a JSON-RPC server', () => {
  it('answers the opening, opens a thread, runs a turn per turn/start with tools, words and usage; a second turn; exit 0 at EOF', async () => {
    const m = startServer('codex-app', ['--seed', '11']);
    // It says nothing before it is asked.
    expect(m.out).toEqual([]);
    const thread = await m.open();
    expect(thread).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(m.out[0]).toMatchObject({ id: 'orcr:init', result: { platformFamily: 'unix' } });
    expect(m.out.find((o) => o.id === 'orcr:open')).toMatchObject({ result: { thread: { id: thread, cwd: process.cwd() } } });
    // thread/started follows the answer, perhaps in a later read.
    await m.until(() => m.out.some((o) => o.method === 'thread/started'));
    expect(m.out.find((o) => o.method === 'thread/started')).toMatchObject({ params: { thread: { id: thread } } });

    m.turn('Fix the tests', 1);
    await m.until(() => m.turnsEnded() === 1);
    const first = plain(m.signals);
    const fold1 = foldSignals(first);
    expect(fold1).toMatchObject({ turns: 1, ok: true, session_id: thread });
    expect(fold1.tools.length).toBeGreaterThanOrEqual(1);
    expect(fold1.tokens.input + fold1.tokens.cached).toBeGreaterThan(0);
    expect(fold1.last_text).toMatch(/^Turn 1 done: \d steps? taken\.$/);
    // The turn/start is answered with the turn's id, which its notifications carry.
    const answered = m.out.find((o) => o.id === 'orcr:turn:1')!;
    expect(answered).toMatchObject({ result: { turn: { status: 'inProgress' } } });
    const turnId = answered.result.turn.id as string;
    expect(m.out.find((o) => o.method === 'turn/completed')).toMatchObject({ params: { threadId: thread, turn: { id: turnId, status: 'completed' } } });
    // A model turn after each tool and each message.
    expect(m.signals.filter((s) => s.kind === 'model_turn')).toHaveLength(fold1.tools.length + 1);

    m.turn('And the docs', 2);
    await m.until(() => m.turnsEnded() === 2);
    const user = m.out.filter((o) => o.method === 'item/completed' && o.params.item.type === 'userMessage').map((o) => o.params.item.content[0].text);
    expect(user).toEqual(['Fix the tests', 'And the docs']);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    assertTurnsPaired(plain(m.signals));
    const fold = foldSignals(plain(m.signals));
    expect(fold).toMatchObject({ turns: 2, ok: true, output_lines: 0 });
    // Usage is the thread's running total, diffed by the adapter: the second turn added to the first.
    expect(fold.tokens.input).toBeGreaterThan(fold1.tokens.input);
    expect(m.signals.filter((s) => s.kind === 'protocol_error')).toEqual([]);
  });

  it('resumes the thread it is named: thread/resume is answered with the same id, and a turn runs on it', async () => {
    const a = startServer('codex-app', ['--seed', '3']);
    const thread = await a.open();
    a.child.stdin.end();
    expect(await a.exited).toBe(0);

    const b = startServer('codex-app', ['--seed', '3']);
    expect(await b.open(thread)).toBe(thread);
    expect(b.out.find((o) => o.id === 'orcr:open')).toMatchObject({ result: { thread: { id: thread } } });
    // As Codex does, the thread's running total so far is restated at once (after the answer), and the turn's total goes on from it.
    await b.until(() => b.out.some((o) => o.method === 'thread/tokenUsage/updated'));
    expect(b.out.some((o) => o.method === 'thread/started')).toBe(false);
    const restated = b.out.find((o) => o.method === 'thread/tokenUsage/updated')!.params.tokenUsage.total;
    expect(restated.inputTokens).toBeGreaterThan(0);
    b.turn('go on', 2);
    await b.until(() => b.turnsEnded() === 1);
    expect(b.out.find((o) => o.method === 'turn/started')).toMatchObject({ params: { threadId: thread } });
    const totals = b.out.filter((o) => o.method === 'thread/tokenUsage/updated').map((o) => o.params.tokenUsage.total.inputTokens as number);
    expect(totals[1]).toBeGreaterThan(totals[0]!);
    b.child.stdin.end();
    expect(await b.exited).toBe(0);
  });

  it('ask: each command or file change is asked (its item started first) and waits; accepted it runs, declined the model is told and goes on', async () => {
    // The first request allowed, the next denied, and so on.
    const m = startServer('codex-app', ['--scenario', 'ask', '--seed', '7'], (_a, nth) => (nth % 2 === 0 ? {} : { verdict: 'deny', message: 'not now' }));
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.turnsEnded() === 1);
    m.turn('again', 2);
    await m.until(() => m.turnsEnded() === 2);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);

    const asked = m.approvals();
    expect(asked.length).toBeGreaterThanOrEqual(2);
    const items = completed(m.out);
    asked.forEach((a, nth) => {
      expect(['Bash', 'Edit']).toContain(a.ask.tool);
      // The request names the item it started before asking.
      const started = m.out.find((o) => o.method === 'item/started' && o.params.item.id === a.ask.tool_use_id)!;
      expect(m.out.indexOf(started)).toBeLessThan(m.out.findIndex((o) => o.id === idOfRef(a.ask.ref) && o.method));
      if (a.ask.tool === 'Bash') {
        // What rules match is the script inside Codex's `/bin/bash -lc '…'`.
        expect(`/bin/bash -lc '${a.ask.subject}'`).toBe(started.params.item.command);
        expect((a.offers as { decisions: unknown[] }).decisions).toEqual(['accept', { acceptWithExecpolicyAmendment: expect.anything() }, 'cancel']);
      } else expect(a.ask.subject).toBe(started.params.item.changes[0].path);
      expect(items.get(a.ask.tool_use_id!)!.status).toBe(nth % 2 === 0 ? 'completed' : 'declined');
      // Each answer is acknowledged, by the request's id.
      expect(m.out).toContainEqual(
        expect.objectContaining({ method: 'serverRequest/resolved', params: expect.objectContaining({ requestId: idOfRef(a.ask.ref) }) }),
      );
    });
    const refused = asked.filter((_a, nth) => nth % 2 === 1).length;
    expect(
      plain(m.signals).filter((s) => s.kind === 'text' && / was refused \(Rejected\("rejected by user"\)\); going on without it\.$/.test(s.text)),
    ).toHaveLength(refused);
    expect(foldSignals(plain(m.signals))).toMatchObject({ turns: 2, ok: true });
    // Numeric ids from 0, as Codex's.
    expect(asked.map((a) => idOfRef(a.ask.ref))).toEqual(asked.map((_a, i) => i));
  });

  it('waits for the answer to its own request: another id changes nothing, and stdin closing with one waiting exits 0 at once', async () => {
    const m = startServer('codex-app', ['--scenario', 'ask', '--seed', '2']);
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.approvals().length === 1);
    const a = m.approvals()[0]!;
    m.child.stdin.write(JSON.stringify({ id: 99, result: { decision: 'accept' } }) + '\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(m.out.at(-1)).toMatchObject({ id: 0, method: expect.stringMatching(/^item\/(commandExecution|fileChange)\/requestApproval$/) });
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    // As the CLI: the turn is left as it was, the tool never run.
    expect(m.out.some((o) => o.method === 'turn/completed')).toBe(false);
    expect(completed(m.out).has(a.ask.tool_use_id!)).toBe(false);
  });

  it('ask-question: asks the question (item/tool/requestUserInput) and goes with the answer orcr sends', async () => {
    const m = startServer('codex-app', ['--scenario', 'ask-question', '--seed', '3'], (a) =>
      a.ask.questions ? { answers: [a.ask.questions[0]!.options[1]!.label] } : {},
    );
    await m.open();
    m.turn('set up the database', 1);
    await m.until(() => m.turnsEnded() === 1);
    const [q, ...tools] = m.approvals();
    expect(q!.ask).toMatchObject({ tool: 'AskUserQuestion', subject: null });
    const chosen = q!.ask.questions![0]!.options[1]!.label;
    expect(q!.ask.questions![0]!.options.length).toBeGreaterThanOrEqual(2);
    expect(m.signals).toContainEqual({ kind: 'text', text: `Going with ${chosen}.` });
    expect(tools.length).toBeGreaterThanOrEqual(1);
    expect(tools.every((t) => t.ask.questions === null)).toBe(true);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('a denied question is answered with nothing, and the model goes with its default', async () => {
    const m = startServer('codex-app', ['--scenario', 'ask-question', '--seed', '3'], (a) => (a.ask.questions ? { verdict: 'deny' } : {}));
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.turnsEnded() === 1);
    expect(m.signals).toContainEqual({ kind: 'text', text: 'No answer: going with the default.' });
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('limit: the turn fails on the usage limit as the CLI reports it (blocked limit); the server lives on until EOF', async () => {
    const m = startServer('codex-app', ['--scenario', 'limit']);
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.turnsEnded() === 1);
    expect(m.out.find((o) => o.method === 'error')).toMatchObject({
      params: { error: { message: 'You’ve hit your usage limit. Try again later.', codexErrorInfo: 'usageLimitExceeded' }, willRetry: false },
    });
    expect(foldSignals(plain(m.signals))).toMatchObject({ ok: false, blocked: { kind: 'limit' } });
    expect(plain(m.signals)).toContainEqual(expect.objectContaining({ kind: 'result', ok: false, detail: 'limit' }));
    expect(m.child.exitCode).toBeNull();
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('auth: each turn fails on a 401 (blocked login)', async () => {
    const m = startServer('codex-app', ['--scenario', 'auth']);
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.turnsEnded() === 1);
    expect(plain(m.signals)).toContainEqual(expect.objectContaining({ kind: 'result', ok: false, detail: 'login' }));
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('crash: its first turn dies half-way with exit 3', async () => {
    const m = startServer('codex-app', ['--scenario', 'crash', '--seed', '5']);
    await m.open();
    m.turn('one', 1);
    expect(await m.exited).toBe(3);
    expect(m.out.some((o) => o.method === 'turn/started')).toBe(true);
    expect(m.out.some((o) => o.method === 'turn/completed')).toBe(false);
  });

  it('loop: one turn that never ends, the same command again and again; SIGTERM ends it', async () => {
    const m = startServer('codex-app', ['--scenario', 'loop']);
    await m.open();
    m.turn('go', 1);
    await m.until(() => plain(m.signals).filter((s) => s.kind === 'tool').length >= 5);
    m.child.kill('SIGTERM');
    expect(await m.exited).toBe(143);
    const tools = plain(m.signals).filter((s) => s.kind === 'tool');
    expect(new Set(tools.map((t) => JSON.stringify(t))).size).toBe(1);
    expect(m.turnsEnded()).toBe(0);
  });

  it('answers what it does not serve as Codex does: -32600, a line that is no JSON said on stderr, and goes on', async () => {
    const m = startServer('codex-app', []);
    m.child.stdin.write(JSON.stringify({ id: 'e1', method: 'thread/start', params: {} }) + '\n');
    await m.until(() => m.out.length === 1);
    expect(m.out[0]).toEqual({ error: { code: -32600, message: 'Not initialized' }, id: 'e1' });
    await m.open();
    m.child.stdin.write('this is not json\n' + JSON.stringify({ id: 'e2', method: 'no/such/method', params: {} }) + '\n');
    await m.until(() => m.out.some((o) => o.id === 'e2'));
    expect(m.out.find((o) => o.id === 'e2')).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/^Invalid request: unknown variant `no\/such\/method`/) },
    });
    expect(m.stderr()).toMatch(/Failed to deserialize JSONRPCMessage/);
    // Its error answers are to orcr's requests, not its own: the adapter reads them as protocol errors, nothing fatal.
    expect(m.signals.filter((s) => s.kind === 'protocol_error').every((s) => s.kind === 'protocol_error' && !s.fatal)).toBe(true);
    m.turn('still there?', 1);
    await m.until(() => m.turnsEnded() === 1);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('is deterministic for a seed (timing aside)', async () => {
    const run = async (): Promise<Line[]> => {
      const m = startServer('codex-app', ['--seed', '9']);
      await m.open();
      m.turn('go', 1);
      await m.until(() => m.turnsEnded() === 1);
      m.child.stdin.end();
      await m.exited;
      return m.out;
    };
    expect(await run()).toEqual(await run());
  });
});

/** The session/update notifications of the mock's output, by their kind. */
const updates = (out: Line[], kind: string): Line[] =>
  out.filter((o) => o.method === 'session/update' && o.params.update.sessionUpdate === kind).map((o) => o.params.update);

describe('mock agent: acp, a JSON-RPC server as Gemini CLI’s --acp', () => {
  it('answers initialize, opens a session, runs a turn per session/prompt (answered at its end); a second turn; exit 0 at EOF', async () => {
    const m = startServer('acp', ['--seed', '11']);
    expect(m.out).toEqual([]);
    const session = await m.open();
    expect(m.out[0]).toMatchObject({ jsonrpc: '2.0', id: 'orcr:init', result: { protocolVersion: 1, agentCapabilities: { loadSession: true } } });
    expect(m.out.find((o) => o.id === 'orcr:open')).toMatchObject({ jsonrpc: '2.0', result: { sessionId: session } });

    m.turn('Fix the tests', 1);
    await m.until(() => m.turnsEnded() === 1);
    const fold1 = foldSignals(plain(m.signals));
    expect(fold1).toMatchObject({ turns: 1, ok: true, session_id: session });
    expect(fold1.tools.length).toBeGreaterThanOrEqual(1);
    expect(fold1.last_text).toMatch(/^Turn 1 done: \d steps? taken\.$/);
    expect(fold1.tokens.input + fold1.tokens.cached).toBeGreaterThan(0);
    // The prompt is answered last, when its turn is done.
    const answer = m.out.findIndex((o) => o.id === 'orcr:turn:1');
    expect(m.out[answer]).toMatchObject({ result: { stopReason: 'end_turn', usage: { inputTokens: expect.any(Number) } } });
    expect(m.out.slice(answer + 1)).toEqual([]);
    // Each tool call started, then completed, under one id.
    const calls = updates(m.out, 'tool_call');
    expect(calls.length).toBe(fold1.tools.length);
    for (const c of calls) expect(updates(m.out, 'tool_call_update').find((u) => u.toolCallId === c.toolCallId)).toMatchObject({ status: 'completed' });

    m.turn('And the docs', 2);
    await m.until(() => m.turnsEnded() === 2);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    assertTurnsPaired(plain(m.signals));
    expect(foldSignals(plain(m.signals))).toMatchObject({ turns: 2, ok: true, output_lines: 0 });
    expect(m.signals.filter((s) => s.kind === 'protocol_error')).toEqual([]);
  });

  it('loads the session it is named: its history replayed before the answer (not this run’s work), then a turn on it', async () => {
    const m = startServer('acp', ['--seed', '3']);
    const session = await m.open('sess-earlier');
    expect(session).toBe('sess-earlier');
    const answered = m.out.findIndex((o) => o.id === 'orcr:load:sess-earlier');
    expect(
      m.out
        .slice(0, answered)
        .filter((o) => o.method === 'session/update')
        .map((o) => o.params.update.sessionUpdate),
    ).toEqual(['user_message_chunk', 'agent_message_chunk']);
    expect(plain(m.signals).filter((s) => s.kind === 'text')).toEqual([]);
    m.turn('go on', 2);
    await m.until(() => m.turnsEnded() === 1);
    expect(m.out.filter((o) => o.method === 'session/update').every((o) => o.params.sessionId === session)).toBe(true);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('ask: a command or an edit is asked (session/request_permission with its options) and waits; allowed it runs, rejected the model is told', async () => {
    const m = startServer('acp', ['--scenario', 'ask', '--seed', '7'], (_a, nth) => (nth % 2 === 0 ? {} : { verdict: 'deny' }));
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.turnsEnded() === 1);
    m.turn('again', 2);
    await m.until(() => m.turnsEnded() === 2);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);

    const asked = m.approvals();
    expect(asked.length).toBeGreaterThanOrEqual(2);
    const requests = m.out.filter((o) => o.method === 'session/request_permission');
    expect(requests.map((r) => r.id)).toEqual(asked.map((_a, i) => i));
    expect(asked.map((a) => idOfRef(a.ask.ref))).toEqual(asked.map((_a, i) => i));
    asked.forEach((a, nth) => {
      const request = requests[nth]!;
      expect(request.params.options.map((o: Line) => o.kind)).toEqual(['allow_always', 'allow_once', 'reject_once']);
      expect(['Bash', 'Edit']).toContain(a.ask.tool);
      expect(a.ask.tool_use_id).toBe(request.params.toolCall.toolCallId);
      const done = updates(m.out, 'tool_call_update').find((u) => u.toolCallId === a.ask.tool_use_id);
      if (nth % 2 === 0) expect(done).toMatchObject({ status: 'completed' });
      else expect(done).toBeUndefined();
    });
    // What the model said of each refusal (its words gathered with what it said next, up to its next tool call).
    const said = plain(m.signals)
      .flatMap((s) => (s.kind === 'text' ? [s.text] : []))
      .join('\n');
    expect(said.match(/Tool "(run_shell_command|write_file|replace)" was canceled by the user\. Going on without it\./g)).toHaveLength(
      asked.filter((_a, nth) => nth % 2 === 1).length,
    );
    expect(foldSignals(plain(m.signals))).toMatchObject({ turns: 2, ok: true });
  });

  it('waits for the answer to its own request: another id changes nothing, and stdin closing with one waiting exits 0 at once', async () => {
    const m = startServer('acp', ['--scenario', 'ask', '--seed', '2']);
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.approvals().length === 1);
    m.child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 99, result: { outcome: { outcome: 'selected', optionId: 'proceed_once' } } }) + '\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(m.out.at(-1)).toMatchObject({ id: 0, method: 'session/request_permission' });
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    expect(m.out.some((o) => o.id === 'orcr:turn:1')).toBe(false);
  });

  it('limit: the prompt is answered with the 429 error Gemini gives (blocked limit); the agent lives on until EOF', async () => {
    const m = startServer('acp', ['--scenario', 'limit']);
    await m.open();
    m.turn('go', 1);
    await m.until(() => m.turnsEnded() === 1);
    expect(m.out.find((o) => o.id === 'orcr:turn:1')).toEqual({
      jsonrpc: '2.0',
      id: 'orcr:turn:1',
      error: { code: 429, message: 'Rate limit exceeded. Try again later.' },
    });
    expect(foldSignals(plain(m.signals))).toMatchObject({ ok: false, blocked: { kind: 'limit' } });
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('auth: the session is refused with ACP’s auth_required (-32000)', async () => {
    const m = startServer('acp', ['--scenario', 'auth']);
    m.child.stdin.write(agentProtocol('acp')!.conversation!.opening({ cwd: process.cwd(), session: null }));
    await m.until(() => m.out.some((o) => o.id === 'orcr:open'));
    expect(m.out.find((o) => o.id === 'orcr:open')).toEqual({ jsonrpc: '2.0', id: 'orcr:open', error: { code: -32000, message: 'Authentication required.' } });
    expect(m.signals.some((s) => s.kind === 'opened')).toBe(false);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('answers a method it does not serve -32601, a line that is no JSON said on stderr; a prompt to another session is refused', async () => {
    const m = startServer('acp', []);
    await m.open();
    m.child.stdin.write('this is not json\n' + JSON.stringify({ jsonrpc: '2.0', id: 'e1', method: 'no/such', params: {} }) + '\n');
    await m.until(() => m.out.some((o) => o.id === 'e1'));
    expect(m.out.find((o) => o.id === 'e1')).toEqual({
      jsonrpc: '2.0',
      id: 'e1',
      error: { code: -32601, message: '"Method not found": no/such', data: { method: 'no/such' } },
    });
    expect(m.stderr()).toMatch(/Failed to parse JSON message: this is not json/);
    m.child.stdin.write(
      JSON.stringify({ jsonrpc: '2.0', id: 'e2', method: 'session/prompt', params: { sessionId: 'other', prompt: [{ type: 'text', text: 'x' }] } }) + '\n',
    );
    await m.until(() => m.out.some((o) => o.id === 'e2'));
    expect(m.out.find((o) => o.id === 'e2')).toMatchObject({ error: { code: -32602, message: 'Session not found: other' } });
    m.turn('still there?', 1);
    await m.until(() => m.turnsEnded() === 1);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
  });

  it('loop: one prompt that never ends, the same command again and again', async () => {
    const m = startServer('acp', ['--scenario', 'loop']);
    await m.open();
    m.turn('go', 1);
    await m.until(() => plain(m.signals).filter((s) => s.kind === 'tool').length >= 5);
    m.child.kill('SIGTERM');
    expect(await m.exited).toBe(143);
    expect(new Set(plain(m.signals).flatMap((s) => (s.kind === 'tool' ? [JSON.stringify(s)] : []))).size).toBe(1);
  });
});
