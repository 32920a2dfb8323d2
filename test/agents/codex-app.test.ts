// Codex's app-server as the genuine CLI (0.171.0) printed it
// (test/fixtures/codex-app, recorded by test/real/codex-app-probe.test.ts),
// read by orcr's codex-app adapter, and orcr's own lines to it built as the
// probe found the CLI takes them.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/agents/registry.js';
import { answerLine } from '../../src/agents/codex-app/answers.js';
import { openingLines, turnLine } from '../../src/agents/codex-app/ids.js';
import { scriptOf, shellWords } from '../../src/agents/codex-app/command.js';
import { parseRule, ruleMatches, type Rule } from '../../src/core/approval-rules.js';
import type { ExtendedSignal } from '../../src/agents/signals.js';
import { readBothWays } from './helpers.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'codex-app');

/** What the CLI printed in a scenario, as lines (the probe named its thread requests `orcr:thread` and `orcr:resume`; orcr names both `orcr:open`). */
function printed(scenario: string, proc = 1): string[] {
  return fs
    .readFileSync(path.join(DIR, `${scenario}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { dir: string; proc?: number; line?: unknown })
    .filter((r) => r.dir === 'out' && (r.proc ?? 1) === proc && r.line !== undefined)
    .map((r) => JSON.stringify(r.line).replace(/"id":"orcr:(thread|resume)"/, '"id":"orcr:open"'));
}

function read(scenario: string, opts: { now?: number; attempt?: number; proc?: number } = {}): ExtendedSignal[] {
  const a = createAdapter('codex-app', { modelTurns: true, now: () => opts.now ?? Date.parse('2026-12-06T22:00:00Z'), attempt: opts.attempt ?? 0 });
  return [...printed(scenario, opts.proc).flatMap((l) => a.line(l)), ...(a.end?.() ?? [])];
}

const kinds = (s: ExtendedSignal[]): string[] => s.map((x) => x.kind);
const of = <K extends ExtendedSignal['kind']>(s: ExtendedSignal[], kind: K): Extract<ExtendedSignal, { kind: K }>[] =>
  s.filter((x): x is Extract<ExtendedSignal, { kind: K }> => x.kind === kind);

describe('codex-app reads the genuine app-server', () => {
  it('two turns of one thread: opened once with the thread id, each turn begun and ended, its words, the usage diffed', () => {
    const s = read('handshake-two-turns');
    const opened = of(s, 'opened');
    expect(opened).toHaveLength(1);
    expect(opened[0]!.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(kinds(s).indexOf('opened')).toBeLessThan(kinds(s).indexOf('turn_start'));
    expect(of(s, 'turn_start')).toHaveLength(2);
    expect(of(s, 'turn_end')).toHaveLength(2);
    expect(of(s, 'result').map((r) => r.ok)).toEqual([true, true]);
    expect(of(s, 'text').length).toBeGreaterThanOrEqual(2);
    const usage = of(s, 'usage');
    expect(usage.length).toBeGreaterThanOrEqual(2);
    // The thread's total is diffed: no turn counts the one before it again.
    expect(usage.every((u) => u.input >= 0 && u.output >= 0)).toBe(true);
    expect(of(s, 'protocol_error')).toEqual([]);
  });

  it('a command outside the policy asks: Bash and its command, the ref scoped to the attempt; orcr accepts by the request id', () => {
    const s = read('approval-command-accept', { attempt: 2 });
    const [ask] = of(s, 'approval');
    // The script Codex's shell runs, not its `/bin/bash -lc '…'` form: what orcr's rules read.
    expect(ask!.ask).toMatchObject({ ref: '2:0', tool: 'Bash', subject: 'touch /tmp/orcr-real/work/marker && echo made-it' });
    // A chained command offers no rule for "always": a Bash rule is held to each part, and no part is the whole.
    expect(ask!.ask.always).toBeNull();
    expect(of(s, 'tool').map((t) => t.name)).toContain('shell');
    const allow = answerLine('2:0', { verdict: 'allow', message: null, answers: null, always: false }, { input: ask!.input, offers: ask!.offers });
    expect(allow).toBe('{"id":0,"result":{"decision":"accept"}}\n');
    const deny = answerLine('2:0', { verdict: 'deny', message: 'no', answers: null, always: false }, { input: ask!.input, offers: ask!.offers });
    expect(deny).toBe('{"id":0,"result":{"decision":"decline"}}\n');
    // Not offered here (untrusted offers accept, an execpolicy amendment, cancel): "always" is orcr's own rule, Codex hears accept.
    const always = answerLine('2:0', { verdict: 'allow', message: null, answers: null, always: true }, { input: ask!.input, offers: ask!.offers });
    expect(always).toBe('{"id":0,"result":{"decision":"accept"}}\n');
  });

  it('a single command offers itself as the rule for "always", without its shell; user rules read the script, a deny rule a part of it', () => {
    const [ask] = of(read('stdin-closed-mid-turn', { proc: 2 }), 'approval');
    expect(ask!.ask).toMatchObject({ subject: 'touch /tmp/orcr-real/work/marker', always: 'Bash(touch /tmp/orcr-real/work/marker)' });
    const [chained] = of(read('approval-command-accept'), 'approval');
    const ctx = { cwd: '/tmp/orcr-real/work', home: '/root' };
    const rule = (text: string) => parseRule(text) as Rule;
    // Before: `/bin/bash -lc '…'` was the subject, and no rule written as for Claude Code matched it.
    expect(ruleMatches(rule('Bash(touch /tmp/orcr-real/work/marker)'), ask!.ask, ctx)).toBe(true);
    expect(ruleMatches(rule('Bash(touch:*)'), ask!.ask, ctx)).toBe(true);
    expect(ruleMatches(rule('Bash(echo:*)'), chained!.ask, ctx, 'any')).toBe(true);
    expect(ruleMatches(rule('Bash(touch:*)'), chained!.ask, ctx)).toBe(false);
  });

  it('a patch asks as Edit of its file, read from the item Codex started before it asked', () => {
    const [ask] = of(read('approval-file-accept'), 'approval');
    expect(ask!.ask).toMatchObject({ tool: 'Edit', subject: '/tmp/orcr-real/work/hello.txt' });
  });

  it('a usage limit: blocked limit until the spent window resets (its epoch from the rate-limit notice), the turn failed as a limit', () => {
    const now = Date.parse('2026-12-06T22:00:00Z');
    const s = read('usage-limit-headers', { now });
    const [blocked] = of(s, 'blocked');
    expect(blocked).toMatchObject({ blocked: 'limit' });
    expect(blocked!.retry_after_s).toBe(Math.ceil((1796601886 * 1000 - now) / 1000));
    expect(of(s, 'result')).toEqual([expect.objectContaining({ ok: false, detail: 'limit' })]);
    expect(of(s, 'quota').map((q) => q.window)).toEqual(expect.arrayContaining(['five_hour', 'seven_day']));
  });

  it('a 401 is a login; a 500 after its retries a passing API error, its retry seen', () => {
    expect(of(read('unauthorized'), 'blocked')).toEqual([expect.objectContaining({ blocked: 'login' })]);
    const s = read('server-error-retried');
    expect(of(s, 'agent_retry')).toHaveLength(1);
    expect(of(s, 'result')).toEqual([expect.objectContaining({ ok: false, detail: 'api_error' })]);
  });

  it('resumed after a SIGKILL: the new process opens the same thread', () => {
    const first = of(read('resume-after-kill', { proc: 1 }), 'opened')[0]!.session_id;
    const second = of(read('resume-after-kill', { proc: 2 }), 'opened')[0]!.session_id;
    expect(second).toBe(first);
  });

  it("orcr's own lines: the opening in one write (a new thread in the run's folder, or the given one resumed), a turn on the thread", () => {
    const fresh = openingLines({ cwd: '/w', session: null }, '1.0')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(fresh.map((m) => m.method)).toEqual(['initialize', 'initialized', 'thread/start']);
    expect(fresh[2]).toMatchObject({ id: 'orcr:open', params: { cwd: '/w' } });
    const resumed = openingLines({ cwd: '/w', session: 'th-1' }, '1.0')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(resumed[2]).toMatchObject({ id: 'orcr:open', method: 'thread/resume', params: { threadId: 'th-1', excludeTurns: true } });
    expect(JSON.parse(turnLine('go', { session: 'th-1', seq: 3 }))).toEqual({
      method: 'turn/start',
      id: 'orcr:turn:3',
      params: { threadId: 'th-1', input: [{ type: 'text', text: 'go' }] },
    });
  });
});

describe('codex-app reads a line from its head as it reads it parsed whole', () => {
  it('every recorded session, as printed and spaced out (no head matches): the same signals', () => {
    const read = readBothWays('codex-app', DIR, (scenario) => printed(scenario));
    expect(read.length).toBeGreaterThan(5);
    for (const { scenario, fast, whole } of read) expect(fast, scenario).toEqual(whole);
  });
});

describe('codex-app when the peer breaks the protocol', () => {
  const adapter = () => createAdapter('codex-app', { modelTurns: true, attempt: 0 });

  it('a cut or malformed frame, an answer to nothing, a request orcr does not serve: told, answered where the spec says, never thrown', () => {
    const a = adapter();
    const cut = a.line('{"method":"item/completed","params":{"item":{"type":"agentMes');
    expect(cut).toEqual([
      expect.objectContaining({ kind: 'protocol_error', fatal: false }),
      { kind: 'reply', line: '{"id":null,"error":{"code":-32700,"message":"Parse error"}}\n' },
    ]);
    expect(a.line('{"id":"x9","result":{}}')).toEqual([expect.objectContaining({ kind: 'protocol_error', message: expect.stringContaining('no request') })]);
    const unserved = a.line('{"method":"fs/readFile","id":7,"params":{}}');
    expect(unserved).toContainEqual({ kind: 'reply', line: '{"id":7,"error":{"code":-32601,"message":"Method not found"}}\n' });
    expect(a.line('plain words on stdout')).toEqual([{ kind: 'output', line: 'plain words on stdout' }]);
    expect(a.line('{"id":[1],"method":"x"}')).toContainEqual(expect.objectContaining({ kind: 'protocol_error' }));
  });

  it('a thread Codex will not open is fatal: the run cannot go on', () => {
    const s = adapter().line('{"error":{"code":-32600,"message":"thread not found"},"id":"orcr:open"}');
    expect(s).toEqual([{ kind: 'protocol_error', message: 'Codex refused to open its thread: thread not found', fatal: true }]);
  });

  it('a request orcr cannot read is answered invalid params, so Codex does not wait on it', () => {
    const s = adapter().line('{"method":"item/commandExecution/requestApproval","id":4,"params":"nonsense"}');
    expect(s).toContainEqual({ kind: 'reply', line: '{"id":4,"error":{"code":-32602,"message":"Invalid params"}}\n' });
  });
});

describe('codex-app: the script of a command as Codex names it', () => {
  it('unwraps `SHELL -lc SCRIPT` in the quoting Codex writes (single and double quotes run together)', () => {
    expect(scriptOf("/bin/bash -lc 'touch a && echo b'")).toBe('touch a && echo b');
    // As the genuine CLI named `printf 'real %s\n' "$(pwd)" > one.txt && cat one.txt` (test/real/codex-app.test.ts).
    expect(scriptOf(`/bin/bash -lc "printf 'real %s\\n' \\""'$(pwd)" > one.txt && cat one.txt'`)).toBe(`printf 'real %s\\n' "$(pwd)" > one.txt && cat one.txt`);
    expect(scriptOf("bash -c 'it'\\''s'")).toBe("it's");
    expect(scriptOf('/usr/bin/zsh -lc ls')).toBe('ls');
    expect(scriptOf('sh -c "a \\$HOME b"')).toBe('a $HOME b');
  });

  it('anything else is no script: another program, other flags, shell syntax or an expansion around it, broken quotes', () => {
    for (const c of [
      'ls -la',
      "python -c 'print(1)'",
      "/bin/bash -lc 'a' 'b'",
      "/bin/bash -x -c 'a'",
      "/bin/bash -lc 'a'; rm x",
      '/bin/bash -lc "$(x)"',
      "/bin/bash -lc 'open",
      '/bin/bash -lc "open',
    ])
      expect(scriptOf(c), c).toBeNull();
    expect(shellWords('a \'b c\'"d" e\\ f')).toEqual(['a', 'b cd', 'e f']);
    expect(shellWords('')).toEqual([]);
  });
});

describe('codex-app usage across a resume', () => {
  it("a resumed thread's total, restated before the new process's first turn, is not counted again", () => {
    const first = read('resume-after-kill', { proc: 1 });
    const second = read('resume-after-kill', { proc: 2 });
    const sum = (s: ExtendedSignal[]): number => of(s, 'usage').reduce((n, u) => n + u.input + u.output + u.cached, 0);
    expect(sum(first)).toBeGreaterThan(0);
    // The second process counts only its own turn: less than the thread's whole total it restates.
    const lines = printed('resume-after-kill', 2).map(
      (l) => JSON.parse(l) as { method?: string; params?: { tokenUsage?: { total?: Record<string, number> } } },
    );
    const totals = lines.filter((o) => o.method === 'thread/tokenUsage/updated').map((o) => o.params!.tokenUsage!.total!);
    const last = totals.at(-1)!;
    const lastAll = Math.max(0, last.inputTokens! - last.cachedInputTokens!) + last.outputTokens! + last.cachedInputTokens!;
    expect(sum(first) + sum(second)).toBe(lastAll);
  });
});
