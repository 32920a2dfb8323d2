// ACP as the genuine Gemini CLI (0.61.0, `gemini --acp`) printed it
// (test/fixtures/acp, recorded by test/real/gemini-acp*.test.ts), read by
// orcr's acp adapter, and orcr's answers to it built as the probe found the
// CLI takes them.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerLine } from '../../src/agents/acp/answers.js';
import { openingLines, promptLine } from '../../src/agents/acp/ids.js';
import { createAdapter } from '../../src/agents/registry.js';
import type { ExtendedSignal } from '../../src/agents/signals.js';
import { readBothWays } from './helpers.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'acp');

type Rec = { dir: string; line?: Record<string, unknown> };

/**
 * What the CLI printed in a scenario, its answers' ids as orcr names its
 * requests (the probe named them its own way): initialize orcr:init,
 * session/new orcr:open, session/load orcr:load:SESSION, the Nth prompt
 * orcr:turn:N.
 */
function printed(scenario: string): string[] {
  const recs = fs
    .readFileSync(path.join(DIR, `${scenario}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
  const ours = new Map<unknown, string>();
  let turn = 0;
  for (const r of recs) {
    const m = r.line;
    if (r.dir !== 'in' || !m || typeof m.method !== 'string' || m.id === undefined) continue;
    const params = m.params as { sessionId?: string } | undefined;
    if (m.method === 'initialize') ours.set(m.id, 'orcr:init');
    else if (m.method === 'session/new') ours.set(m.id, 'orcr:open');
    else if (m.method === 'session/load') ours.set(m.id, `orcr:load:${params?.sessionId}`);
    else if (m.method === 'session/prompt') ours.set(m.id, `orcr:turn:${++turn}`);
  }
  return recs
    .filter((r) => r.dir === 'out' && r.line)
    .map((r) => {
      const m = r.line!;
      return JSON.stringify('result' in m || 'error' in m ? { ...m, id: ours.get(m.id) ?? m.id } : m);
    });
}

function read(scenario: string, opts: { attempt?: number } = {}): ExtendedSignal[] {
  const a = createAdapter('acp', { modelTurns: true, attempt: opts.attempt ?? 0, now: () => Date.parse('2026-12-06T22:00:00Z') });
  return [...printed(scenario).flatMap((l) => a.line(l)), ...(a.end?.() ?? [])];
}

const of = <K extends ExtendedSignal['kind']>(s: ExtendedSignal[], kind: K): Extract<ExtendedSignal, { kind: K }>[] =>
  s.filter((x): x is Extract<ExtendedSignal, { kind: K }> => x.kind === kind);

describe('acp reads the genuine gemini --acp', () => {
  it("reads a line from its head (a thought, a chunk of words, a counted call's update, a session opened) as it reads the line parsed whole", () => {
    // Spaced out, no line matches a head the fast paths look for: each is parsed whole.
    const read = readBothWays('acp', DIR, (scenario) => printed(scenario));
    expect(read.length).toBeGreaterThan(5);
    for (const { scenario, fast, whole } of read) expect(fast, scenario).toEqual(whole);
  });

  it('two prompts of one session: opened once, each turn ended by its answer, the tool call and the words, tokens from its _meta', () => {
    const s = read('handshake-two-turns');
    expect(of(s, 'opened')).toHaveLength(1);
    expect(of(s, 'turn_end')).toHaveLength(2);
    expect(of(s, 'result').map((r) => r.ok)).toEqual([true, true]);
    expect(of(s, 'tool')).toEqual([expect.objectContaining({ name: 'Bash' })]);
    expect(of(s, 'text').length).toBeGreaterThanOrEqual(2);
    const usage = of(s, 'usage');
    expect(usage).toHaveLength(2);
    expect(usage.every((u) => u.input > 0 && u.output > 0)).toBe(true);
    expect(of(s, 'protocol_error')).toEqual([]);
  });

  it('a session opened says when another process may load it: a later minute than it was opened in (Gemini refuses a load in that minute)', () => {
    // read()'s clock: 22:00:00.
    expect(of(read('handshake-two-turns'), 'opened')).toEqual([expect.objectContaining({ resume_after: Date.parse('2026-12-06T22:01:01Z') })]);
    const late = createAdapter('acp', { modelTurns: true, now: () => Date.parse('2026-12-06T22:00:59.500Z') });
    const opened = printed('handshake-two-turns').flatMap((l) => late.line(l));
    expect(of(opened, 'opened')[0]!.resume_after).toBe(Date.parse('2026-12-06T22:01:01Z'));
  });

  it('a permission request: Bash and its command (the title), the options kept; orcr picks the agent own option ids', () => {
    const s = read('permission-allow-once', { attempt: 1 });
    const [ask] = of(s, 'approval');
    expect(ask!.ask).toMatchObject({ ref: '1:0', tool: 'Bash' });
    expect(ask!.ask.subject).toMatch(/touch/);
    expect(ask!.ask.always).toMatch(/^Bash\(/);
    const asked = { input: ask!.input, offers: ask!.offers };
    const pick = (verdict: 'allow' | 'deny', always = false): unknown =>
      (JSON.parse(answerLine('1:0', { verdict, message: null, answers: null, always }, asked)) as { result: unknown }).result;
    expect(pick('allow')).toEqual({ outcome: { outcome: 'selected', optionId: 'proceed_once' } });
    expect(pick('allow', true)).toEqual({ outcome: { outcome: 'selected', optionId: 'proceed_always' } });
    expect(pick('deny')).toEqual({ outcome: { outcome: 'selected', optionId: 'cancel' } });
    // The call it asked about is counted once it runs (Gemini announces it no other way).
    expect(of(s, 'tool').map((t) => t.name)).toContain('Bash');
  });

  it('a 429 is a limit with the retry it suggests; a 500 a passing API error; a 401 a login', () => {
    const limit = read('error-429');
    expect(of(limit, 'blocked')).toEqual([expect.objectContaining({ blocked: 'limit' })]);
    expect(of(limit, 'result')).toEqual([expect.objectContaining({ ok: false, detail: 'limit' })]);
    expect(of(read('error-500'), 'result')).toEqual([expect.objectContaining({ ok: false, detail: 'api_error' })]);
    expect(of(read('error-401'), 'blocked')).toEqual([expect.objectContaining({ blocked: 'login' })]);
  });

  it("a limit is held into a later minute than the session was opened in (Gemini's next attempt loads it, and a load in that minute destroys it)", () => {
    // The 429 says 7 s; the session was opened at `opened`, the prompt refused at `failed`.
    const retry = (opened: string, failed: string): number | undefined => {
      let clock = Date.parse(opened);
      const a = createAdapter('acp', { now: () => clock });
      const lines = printed('error-429');
      const out = lines.slice(0, -1).flatMap((l) => a.line(l));
      clock = Date.parse(failed);
      out.push(...a.line(lines.at(-1)!));
      return of(out, 'blocked')[0]?.retry_after_s;
    };
    expect(retry('2026-12-06T22:00:00Z', '2026-12-06T22:00:00Z')).toBe(61);
    expect(retry('2026-12-06T22:00:05Z', '2026-12-06T22:00:50Z')).toBe(11);
    // A minute later already: the 7 s it said.
    expect(retry('2026-12-06T22:00:05Z', '2026-12-06T22:01:30Z')).toBe(7);
  });

  it('a load refused: the run cannot go on, and says why as Gemini does (in the error’s data)', () => {
    expect(of(read('load-same-minute'), 'protocol_error')).toEqual([
      expect.objectContaining({ fatal: true, message: expect.stringMatching(/refused to load session .*: Internal error: No previous sessions found/) }),
    ]);
  });

  it('no key: the session is refused, and the run cannot go on', () => {
    const s = read('error-no-key');
    // (The probe's own `authenticate` after it is an answer to no request of orcr's: told, not fatal.)
    expect(of(s, 'protocol_error').filter((e) => e.fatal)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/refused to open a session: Gemini API key is missing/) }),
    ]);
    expect(of(s, 'blocked')).toEqual([expect.objectContaining({ blocked: 'login' })]);
  });

  it('a loaded session: its replay, before and after the answer, is not counted as this run’s work', () => {
    const s = read('load-2-later-minute');
    expect(of(s, 'opened')).toHaveLength(1);
    // The replayed tool call is not counted; only the new prompt's turn is.
    expect(of(s, 'tool')).toEqual([]);
    expect(of(s, 'turn_end')).toHaveLength(1);
  });

  it('cancelled: the turn ends interrupted', () => {
    expect(of(read('cancel'), 'result').map((r) => r.detail ?? 'ok')).toContain('interrupted');
  });

  it("orcr's own lines: no fs or terminal capability, a session in the run's folder or the one loaded; a prompt on the session", () => {
    const [init, open] = openingLines({ cwd: '/w', session: null }, '1.0')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(init).toMatchObject({
      jsonrpc: '2.0',
      id: 'orcr:init',
      method: 'initialize',
      params: { clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } },
    });
    expect(open).toMatchObject({ id: 'orcr:open', method: 'session/new', params: { cwd: '/w', mcpServers: [] } });
    const loaded = openingLines({ cwd: '/w', session: 's-1' }, '1.0')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(loaded[1]).toMatchObject({ id: 'orcr:load:s-1', method: 'session/load', params: { sessionId: 's-1', cwd: '/w' } });
    expect(JSON.parse(promptLine('go', { session: 's-1', seq: 2 }))).toEqual({
      jsonrpc: '2.0',
      id: 'orcr:turn:2',
      method: 'session/prompt',
      params: { sessionId: 's-1', prompt: [{ type: 'text', text: 'go' }] },
    });
  });
});

describe('acp: a line whose params or answer alone are parsed (the envelope read from its head)', () => {
  const loop = printed('loop');
  const call = loop.find((l) => l.includes('"sessionUpdate":"tool_call"'))!;
  const answer = loop.find((l) => l.includes('"id":"orcr:turn:1"'))!;
  const opened = (): ReturnType<typeof createAdapter> => {
    const a = createAdapter('acp', { modelTurns: true, now: () => 0 });
    for (const l of loop.slice(0, 3)) a.line(l);
    return a;
  };
  const withMember = (l: string, member: string): string => `${l.slice(0, -1)},${member}}`;

  it('a member after the params or the answer (one a later version adds, plain or an object) is read to the same signals', () => {
    for (const member of ['"emittedAtMs":1796598255514', '"_meta":{"n":1}', '"note":"a } b"']) {
      expect(opened().line(withMember(call, member)), member).toEqual(opened().line(call));
      const a = opened();
      const b = opened();
      a.line(call);
      b.line(call);
      expect(a.line(withMember(answer, member)), member).toEqual(b.line(answer));
    }
  });

  it('a brace too many, or an answer that is also an error, is the protocol error it was, not a signal', () => {
    expect(opened().line(`${call}}`)).toEqual([
      expect.objectContaining({ kind: 'protocol_error', fatal: false }),
      expect.objectContaining({ kind: 'reply', line: expect.stringContaining('-32700') }),
    ]);
    const both = opened().line(withMember(answer, '"error":{"code":-32603,"message":"Internal error"}'));
    expect(of(both, 'result')).toEqual([expect.objectContaining({ kind: 'result', ok: false })]);
  });

  it('a request whose id comes after its params is still a request (asked), not a notification let pass', () => {
    const ask = printed('permission-allow-once').find((l) => l.includes('"method":"session/request_permission"'))!;
    const m = JSON.parse(ask) as { id: number; params: unknown };
    const late = JSON.stringify({ jsonrpc: '2.0', method: 'session/request_permission', params: m.params, id: m.id });
    const a = createAdapter('acp', { modelTurns: true, now: () => 0 });
    for (const l of printed('permission-allow-once').slice(0, 3)) a.line(l);
    expect(of(a.line(late), 'approval')).toHaveLength(1);
  });
});
