// The agent protocols' records (src/agents/registry.ts): each says how its
// sessions resume, how its output is recognized, how input is written, and
// how the mock agent speaks it — and the parts of one record agree with one
// another. The lists that name protocols are the registry's.

import { describe, expect, it } from 'vitest';
import { AGENT_PROTOCOLS, agentProtocol, createAdapter, detectProtocol, foldSignals, PROTOCOLS } from '../../src/agents/index.js';
import { acceptsInput, inputLine } from '../../src/agents/input.js';
import { accountOf } from '../../src/agents/accounts.js';
import { planAskTurn, planTurn } from '../../src/agents/mock/plan.js';
import type { Reply } from '../../src/agents/mock/render.js';
import type { Signal } from '../../src/agents/signals.js';
import { createRng } from '../../src/agents/mock/rng.js';
import { MOCK_FORMATS, PRESET_NAMES, reportsOwnCost } from '../../src/agents/registry.js';
import { BUILTIN_PROVIDERS } from '../../src/config/schema.js';

const resume = (protocol: string | null, command: string[], session: string): string[] | null => agentProtocol(protocol)?.resume?.(command, session) ?? null;

describe('how a session resumes (core/attempts.ts is handed the record’s function)', () => {
  it("carries the session on with the command's own flags, as each CLI takes it", () => {
    expect(resume('claude', ['claude', '-p', '--output-format', 'stream-json'], 'S')).toEqual([
      'claude',
      '--resume',
      'S',
      '-p',
      '--output-format',
      'stream-json',
    ]);
    expect(resume('claude', ['claude', '--resume', 'OLD', '-p'], 'S')).toEqual(['claude', '--resume', 'S', '-p']);
    expect(resume('claude', ['claude', '--resume=OLD', '-p'], 'S')).toEqual(['claude', '--resume', 'S', '-p']);
    expect(resume('codex', ['codex', 'exec', '--json', '--skip-git-repo-check', '-'], 'T')).toEqual([
      'codex',
      'exec',
      'resume',
      '--json',
      '--skip-git-repo-check',
      'T',
      '-',
    ]);
  });

  it('knows no resume for gemini, a plain command, orcr jsonl, a codex command without exec, or an empty one', () => {
    // Gemini CLI resumes by ID, but the turns orcr would resume (stopped before the model answered) saved no session: test/real/gemini.test.ts.
    expect(resume('gemini', ['gemini', '--output-format', 'stream-json'], 'S')).toBeNull();
    expect(resume(null, ['sh', '-c', 'x'], 'S')).toBeNull();
    expect(resume('plain', ['sh', '-c', 'x'], 'S')).toBeNull();
    expect(resume('jsonl', ['agent'], 'S')).toBeNull();
    expect(resume('codex', ['codex', '--json'], 'S')).toBeNull();
    expect(resume('codex', ['codex', 'exec', 'resume', 'X', '-'], 'S')).toBeNull();
    expect(resume('claude', [], 'S')).toBeNull();
  });
});

describe('detection from the first JSON line', () => {
  it('names each protocol by its own first line', () => {
    expect(detectProtocol('{"type":"system","subtype":"init","session_id":"s"}')).toBe('claude');
    expect(detectProtocol('{"type":"thread.started","thread_id":"t"}')).toBe('codex');
    expect(detectProtocol('{"type":"init","timestamp":"2025-01-01T00:00:00Z","session_id":"g"}')).toBe('gemini');
    expect(detectProtocol('{"type":"ready"}')).toBe('jsonl');
    expect(detectProtocol('{"type":"nothing known"}')).toBeNull();
  });

  it('settles the type names protocols share on the surest claim, whatever the registry’s order', () => {
    // A result: stamped with Claude's session_id, in Gemini's stats, or orcr's `ok`.
    expect(detectProtocol('{"type":"result","session_id":"s","stats":{},"ok":true}')).toBe('claude');
    expect(detectProtocol('{"type":"result","stats":{},"ok":true}')).toBe('gemini');
    expect(detectProtocol('{"type":"result","ok":true}')).toBe('jsonl');
    // An error: Gemini's has a severity; Codex's bare notice is claimed only when nothing else does.
    expect(detectProtocol('{"type":"error","severity":"error","message":"m"}')).toBe('gemini');
    expect(detectProtocol('{"type":"error","message":"Reconnecting... 1/5"}')).toBe('codex');
  });
});

describe("a record's parts agree", () => {
  it.each(MOCK_FORMATS)('%s: the mock agent’s turn is detected as its protocol and read by its adapter', async (name) => {
    const p = agentProtocol(name)!;
    const r = (await p.mock!())(createRng(3));
    const a = createAdapter(name);
    const signals: Signal[] = [];
    const read = (lines: readonly string[]): void => lines.forEach((l) => signals.push(...a.line(l)));
    if (p.conversation) {
      // A two-way protocol's agent says nothing before orcr opens its session (so it is never detected: orcr spoke first),
      // and works on what orcr sends it: the opening, then the first input.
      for (const l of p.conversation.opening({ cwd: '/w', session: null }).trimEnd().split('\n')) {
        const served = r.server!.read(l);
        if (served?.kind === 'served') read(served.lines);
      }
      const session = signals.flatMap((s) => (s.kind === 'opened' ? [s.session_id] : []))[0] ?? null;
      expect(session).not.toBeNull();
      const first = r.server!.read(inputLine(name, 'go', { session, seq: 1 }).trimEnd());
      expect(first).toMatchObject({ kind: 'input', text: 'go' });
      if (first?.kind === 'input') read(first.reply ?? []);
    }
    const lines = [...r.start(), ...r.turn(planTurn(createRng(4), 0, 'go'))];
    if (!p.conversation) expect(detectProtocol(lines.find((l) => l.startsWith('{'))!)).toBe(name);
    read(lines);
    const fold = foldSignals(signals);
    expect(fold.turns).toBe(1);
    expect(fold.cost_usd !== undefined && fold.cost_usd > 0).toBe(p.reportsCost);
  });

  it.each(AGENT_PROTOCOLS.filter((p) => p.input && p.mock).map((p) => p.name))('%s: the mock agent reads the input line its protocol writes', async (name) => {
    const r = (await agentProtocol(name)!.mock!())(createRng(1));
    expect(r.parseInput(inputLine(name, 'keep going', { session: null, seq: 2 }).trimEnd())).toBe('keep going');
  });

  it.each(AGENT_PROTOCOLS.filter((p) => p.approvals && p.mock).map((p) => p.name))(
    '%s: the mock agent’s requests are read as approvals, and the record’s answers are read by the mock agent as answers to them',
    async (name) => {
      const p = agentProtocol(name)!;
      const asking = (await p.mock!())(createRng(3)).asking!;
      const a = createAdapter(name);
      const steps = asking.turn(planAskTurn(createRng(4), 0, 'go', true));
      const refs: string[] = [];
      let reply: Reply | undefined;
      for (let step = steps.next(); !step.done; step = steps.next(reply)) {
        for (const l of step.value.lines) a.line(l);
        reply = undefined;
        if (!step.value.ask) continue;
        const signal = a.line(step.value.ask.line).find((s) => s.kind === 'approval');
        expect(signal).toMatchObject({ kind: 'approval' });
        const asked = signal as Extract<Signal, { kind: 'approval' }>;
        refs.push(asked.ask.ref);
        const verdict = refs.length % 2 === 0 ? 'deny' : 'allow';
        const answer = p.approvals!.answer(asked.ask.ref, { verdict, message: null, answers: asked.ask.questions ? ['Yes'] : null, always: true }, asked);
        const read = asking.read(answer.trimEnd());
        // The answer reaches the request that waits for it (orcr's ref may say more: a two-way protocol's names the agent's attempt).
        expect(read).toMatchObject({ kind: 'answer', ref: step.value.ask.ref, reply: { allow: verdict === 'allow' } });
        reply = (read as { reply: Reply }).reply;
      }
      expect(refs.length).toBeGreaterThanOrEqual(2);
    },
  );

  it('a protocol that takes no input is written the text itself; an unknown one reads as plain', () => {
    expect(acceptsInput('codex')).toBe(false);
    expect(inputLine('codex', 'hi', { session: null, seq: 2 })).toBe('hi\n');
    expect(acceptsInput('no-such')).toBe(false);
    expect(reportsOwnCost('no-such')).toBe(false);
    expect(foldSignals(createAdapter('no-such').line('{"type":"ready"}')).alive).toBe(true);
  });

  it('an account is the folder its protocol’s variable names', () => {
    expect(accountOf('claude', { CLAUDE_CONFIG_DIR: '/h/.claude-work', CODEX_HOME: '/h/.codex' })).toBe('/h/.claude-work');
    expect(accountOf('codex', { CODEX_HOME: '/h/.codex' })).toBe('/h/.codex');
    expect(accountOf('gemini', { CLAUDE_CONFIG_DIR: '/h/.claude-work' })).toBeNull();
    expect(accountOf('claude', { CLAUDE_CONFIG_DIR: ' ' })).toBeNull();
  });
});

describe('the lists that name protocols are the registry’s', () => {
  it('names, presets and mock formats', () => {
    expect(PROTOCOLS).toEqual(AGENT_PROTOCOLS.map((p) => p.name));
    expect(PROTOCOLS).toEqual(['claude', 'codex', 'codex-app', 'gemini', 'acp', 'jsonl', 'plain']);
    expect(Object.keys(BUILTIN_PROVIDERS)).toEqual(PRESET_NAMES);
    expect(BUILTIN_PROVIDERS.claude).toEqual({
      command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--permission-prompt-tool', 'stdio'],
      protocol: 'claude',
      interactive_input: true,
    });
    // The `codex` preset is Codex's app-server; its exec stream keeps the protocol name `codex` under the preset `codex-exec`.
    expect(PRESET_NAMES).toEqual(['claude', 'codex-exec', 'codex', 'gemini', 'gemini-acp']);
    expect(BUILTIN_PROVIDERS.codex).toEqual({ command: ['codex', 'app-server'], protocol: 'codex-app' });
    expect(BUILTIN_PROVIDERS['codex-exec']).toEqual({ command: ['codex', 'exec', '--json', '--skip-git-repo-check', '-'], protocol: 'codex' });
    expect(BUILTIN_PROVIDERS['gemini-acp']).toEqual({ command: ['gemini', '--acp'], protocol: 'acp' });
    expect(MOCK_FORMATS).toEqual(['claude', 'codex', 'codex-app', 'gemini', 'acp', 'jsonl']);
  });
});
