// The mock agent asking before its tools (`--scenario ask`, `ask-question`),
// spawned for real: its requests read by the Claude Code adapter and answered
// with the lines orcr writes (the protocol record's approvals channel).

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentProtocol, createAdapter, foldSignals } from '../../src/agents/index.js';
import type { AgentAnswer } from '../../src/agents/protocol.js';
import type { Signal } from '../../src/agents/signals.js';
import { until } from '../support/harness.js';
import { assertTurnsPaired } from './helpers.js';

const BIN = fileURLToPath(new URL('../../dist/src/agents/mock-agent.js', import.meta.url));

beforeAll(() => {
  expect(existsSync(BIN), `${BIN}: build with npm run build`).toBe(true);
});

type Approval = Extract<Signal, { kind: 'approval' }>;
/** How a test answers a request: an answer, or null to leave it waiting. */
type Decide = (a: Approval, nth: number) => Partial<AgentAnswer> | null;

interface Asked {
  child: ChildProcessWithoutNullStreams;
  signals: Signal[];
  /** Every stdout line, parsed. */
  out: Record<string, unknown>[];
  stderr: () => string;
  approvals: () => Approval[];
  until(pred: () => boolean): Promise<void>;
  answer(a: Approval, answer: Partial<AgentAnswer>): void;
  exited: Promise<number | null>;
}

const channel = agentProtocol('claude')!.approvals!;
const input = (text: string) =>
  JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: 'default' }) + '\n';

function startAsking(args: string[], decide: Decide | null): Asked {
  const child = spawn(process.execPath, [BIN, '--format', 'claude', '--delay', '0', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const adapter = createAdapter('claude');
  const signals: Signal[] = [];
  const out: Record<string, unknown>[] = [];
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const approvals = (): Approval[] => signals.filter((s): s is Approval => s.kind === 'approval');
  const m: Asked = {
    child,
    signals,
    out,
    stderr: () => err,
    approvals,
    until: (pred) => until(pred, () => `the mock to go on; signals: ${JSON.stringify(signals.map((s) => s.kind))}`, 15_000).then(() => undefined),
    answer: (a, answer) => child.stdin.write(channel.answer(a.ask.ref, { verdict: 'allow', message: null, answers: null, always: false, ...answer }, a)),
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
  const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
  rl.on('line', (line) => {
    out.push(JSON.parse(line) as Record<string, unknown>);
    for (const s of adapter.line(line)) {
      signals.push(s);
      const answer = s.kind === 'approval' && decide ? decide(s, approvals().length - 1) : null;
      if (s.kind === 'approval' && answer) m.answer(s, answer);
    }
  });
  const drained = new Promise<void>((resolve) => rl.on('close', resolve));
  m.exited = Promise.all([m.exited, drained]).then(([code]) => code);
  return m;
}

/** The tool results the agent printed, by tool_use_id. */
function results(out: Record<string, unknown>[]): Map<string, { content: string; is_error: boolean }> {
  const map = new Map<string, { content: string; is_error: boolean }>();
  for (const o of out) {
    if (o.type !== 'user') continue;
    for (const b of (o.message as { content: Record<string, unknown>[] }).content)
      map.set(b.tool_use_id as string, { content: b.content as string, is_error: b.is_error === true });
  }
  return map;
}

/** The tool_use blocks the agent printed, by id. */
function toolUses(out: Record<string, unknown>[]): Map<string, { name: string; input: unknown }> {
  const map = new Map<string, { name: string; input: unknown }>();
  for (const o of out) {
    if (o.type !== 'assistant') continue;
    for (const b of (o.message as { content: Record<string, unknown>[] }).content)
      if (b.type === 'tool_use') map.set(b.id as string, { name: b.name as string, input: b.input });
  }
  return map;
}

describe('mock agent: ask (claude)', () => {
  it('asks before each tool and waits; an allowed tool runs, a denied one gives the model the message; exit 0 at EOF', async () => {
    // Every other request denied, the first allowed.
    const m = startAsking(['--scenario', 'ask', '--seed', '7', '--prompt', 'first'], (_a, nth) =>
      nth % 2 === 0 ? {} : { verdict: 'deny', message: `no #${nth}` },
    );
    await m.until(() => m.signals.filter((s) => s.kind === 'turn_end').length === 1);
    m.child.stdin.write(input('second'));
    await m.until(() => m.signals.filter((s) => s.kind === 'turn_end').length === 2);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    assertTurnsPaired(m.signals);
    expect(foldSignals(m.signals)).toMatchObject({ turns: 2, ok: true, output_lines: 0 });

    const asked = m.approvals();
    expect(asked.length).toBeGreaterThanOrEqual(2);
    const uses = toolUses(m.out);
    const got = results(m.out);
    asked.forEach((a, nth) => {
      // The request is about the tool_use printed before it, with its input whole.
      const use = uses.get(a.ask.tool_use_id!)!;
      expect(use).toEqual({ name: a.ask.tool, input: a.input });
      expect(['Bash', 'Write', 'Edit']).toContain(a.ask.tool);
      if (a.ask.tool === 'Bash') expect(a.ask.always).toBe(`Bash(${a.ask.subject})`);
      else expect(a.ask.subject).toBe((a.input as { file_path: string }).file_path);
      expect(got.get(a.ask.tool_use_id!)).toEqual(
        nth % 2 === 0 ? { content: expect.not.stringMatching(/^no #/), is_error: false } : { content: `no #${nth}`, is_error: true },
      );
    });
    // Each turn's result lists what was denied in it.
    const denied = m.out.filter((o) => o.type === 'result').flatMap((o) => (o.permission_denials as { tool_use_id: string }[]).map((d) => d.tool_use_id));
    expect(denied).toEqual(asked.filter((_a, nth) => nth % 2 === 1).map((a) => a.ask.tool_use_id));
  });

  it('waits for its own request: answers to other ids change nothing, the right one lets it go on', async () => {
    const m = startAsking(['--scenario', 'ask', '--seed', '2', '--prompt', 'go'], null);
    await m.until(() => m.approvals().length === 1);
    const first = m.approvals()[0]!;
    m.child.stdin.write(channel.answer('no-such-request', { verdict: 'allow', message: null, answers: null, always: false }, first));
    // A flat envelope (no inner subtype) is no answer either.
    m.child.stdin.write(JSON.stringify({ type: 'control_response', request_id: first.ask.ref, response: { behavior: 'allow' } }) + '\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(m.out.at(-1)).toMatchObject({ type: 'control_request', request_id: first.ask.ref });
    m.answer(first, { always: true });
    await m.until(() => results(m.out).has(first.ask.tool_use_id!));
    expect(results(m.out).get(first.ask.tool_use_id!)!.is_error).toBe(false);
    m.child.kill('SIGTERM');
    await m.exited;
  });

  it('stdin closed while a request waits: denied as the CLI does, the turn ends, exit 0', async () => {
    const m = startAsking(['--scenario', 'ask', '--seed', '4', '--prompt', 'go'], null);
    await m.until(() => m.approvals().length === 1);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    const a = m.approvals()[0]!;
    expect(results(m.out).get(a.ask.tool_use_id!)).toEqual({
      content: 'Tool permission request failed: AbortError: Tool permission stream closed before response received',
      is_error: true,
    });
    // Nothing is asked once stdin is closed.
    expect(m.approvals()).toHaveLength(1);
    expect(foldSignals(m.signals)).toMatchObject({ turns: 1, ok: true });
  });

  it('a line that is not JSON ends it at once with exit 1, as the CLI does', async () => {
    const m = startAsking(['--scenario', 'ask', '--seed', '4', '--prompt', 'go'], null);
    await m.until(() => m.approvals().length === 1);
    m.child.stdin.write('this is not json\n');
    expect(await m.exited).toBe(1);
    expect(m.stderr()).toMatch(/Error parsing streaming input line \(type=unknown, 16 chars\): SyntaxError/);
  });

  it('an answer the CLI could not read denies the call with its words', async () => {
    const m = startAsking(['--scenario', 'ask', '--seed', '4', '--prompt', 'go'], null);
    await m.until(() => m.approvals().length === 1);
    const a = m.approvals()[0]!;
    m.child.stdin.write(
      JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: a.ask.ref, response: { behavior: 'deny' } } }) + '\n',
    );
    await m.until(() => results(m.out).has(a.ask.tool_use_id!));
    expect(results(m.out).get(a.ask.tool_use_id!)).toMatchObject({
      content: expect.stringMatching(/^The canUseTool callback returned an invalid permission result/),
      is_error: true,
    });
    m.child.kill('SIGTERM');
    await m.exited;
  });
});

describe('mock agent: ask-question (claude)', () => {
  // Seed 3 asks for one option, seed 1 for several.
  it.each(['3', '1'])('asks a question first and goes with the answer it gets; the tools after it are asked as usual (seed %s)', async (seed) => {
    const m = startAsking(['--scenario', 'ask-question', '--seed', seed, '--prompt', 'go'], (a) =>
      a.ask.questions ? { answers: a.ask.questions.map((q) => (q.multi ? q.options.map((o) => o.label).join(', ') : q.options[1]!.label)) } : {},
    );
    await m.until(() => m.signals.some((s) => s.kind === 'turn_end'));
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    const [q, ...tools] = m.approvals();
    expect(q!.ask).toMatchObject({ tool: 'AskUserQuestion', subject: null, always: null });
    const asked = q!.ask.questions![0]!;
    expect(asked.multi).toBe(seed === '1');
    expect(asked.options.length).toBeGreaterThanOrEqual(2);
    expect(asked.options.length).toBeLessThanOrEqual(3);
    const chosen = asked.multi ? asked.options.map((o) => o.label).join(', ') : asked.options[1]!.label;
    expect(results(m.out).get(q!.ask.tool_use_id!)).toEqual({
      content: `Your questions have been answered: "${asked.question}"="${chosen}". You can now continue with these answers in mind.`,
      is_error: false,
    });
    expect(m.signals).toContainEqual({ kind: 'text', text: `Going with ${chosen}.` });
    expect(tools.length).toBeGreaterThanOrEqual(1);
    for (const t of tools) expect(t.ask.questions).toBeNull();
  });

  it('an allow without answers is no answer; a denied question is the denial', async () => {
    const m = startAsking(['--scenario', 'ask-question', '--seed', '3', '--prompt', 'go'], (a) => (a.ask.questions ? {} : { verdict: 'deny', message: null }));
    await m.until(() => m.signals.some((s) => s.kind === 'turn_end'));
    const n = m.approvals().length;
    m.child.stdin.write(input('again'));
    await m.until(() => m.signals.filter((s) => s.kind === 'turn_end').length === 2);
    m.child.stdin.end();
    expect(await m.exited).toBe(0);
    const q = m.approvals()[0]!;
    expect(results(m.out).get(q.ask.tool_use_id!)).toEqual({ content: 'The user did not answer the questions.', is_error: false });
    // Only the first turn asks a question; the denials carry orcr's default message.
    const later = m.approvals().slice(n);
    expect(later.every((a) => a.ask.questions === null)).toBe(true);
    for (const a of m.approvals().slice(1)) expect(results(m.out).get(a.ask.tool_use_id!)).toEqual({ content: 'denied by orcr', is_error: true });
  });

  it('a format that never asks has no ask scenario', () => {
    const r = spawnSync(process.execPath, [BIN, '--format', 'codex', '--scenario', 'ask'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/never asks/);
  });
});
