// Transcripts recorded from the REAL CLIs (Claude Code 2.1.332, Codex 0.171.0,
// Gemini CLI 0.61.0) against the scripted model server, through orcr's
// adapters. These need no CLI installed, so they always run: what the live
// suite (claude/codex/gemini.test.ts) proves end to end, pinned line by line.
// Temp paths in the files were rewritten to /tmp/orcr-real.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAdapter, createDetectingAdapter, detectProtocol, foldSignals } from '../../src/agents/index.js';
import type { ExtendedSignal, Signal } from '../../src/agents/signals.js';
import type { Protocol } from '../../src/core/types.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'transcripts');

function lines(name: string): string[] {
  return fs
    .readFileSync(path.join(DIR, name), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

interface Seen {
  signals: ExtendedSignal[];
  plain: Signal[];
  fold: ReturnType<typeof foldSignals>;
  modelTurns: number;
  kinds: string[];
  results: Extract<Signal, { kind: 'result' }>[];
  blocks: Extract<Signal, { kind: 'blocked' }>[];
}

function run(protocol: Protocol, name: string, now?: () => number): Seen {
  const a = createAdapter(protocol, { modelTurns: true, ...(now ? { now } : {}) });
  const signals: ExtendedSignal[] = [];
  for (const l of lines(name)) signals.push(...a.line(l));
  signals.push(...(a.end?.() ?? []));
  const plain = signals.filter((s): s is Signal => s.kind !== 'model_turn');
  return {
    signals,
    plain,
    fold: foldSignals(plain),
    modelTurns: signals.filter((s) => s.kind === 'model_turn').length,
    kinds: signals.map((s) => s.kind).filter((k) => k !== 'output'),
    results: plain.filter((s): s is Extract<Signal, { kind: 'result' }> => s.kind === 'result'),
    blocks: plain.filter((s): s is Extract<Signal, { kind: 'blocked' }> => s.kind === 'blocked'),
  };
}

/** The JSON objects of a transcript. */
function objects(name: string): any[] {
  return lines(name)
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

describe('real transcripts: every one is detected as its protocol, and without model turns unless asked', () => {
  const all = fs.readdirSync(DIR).flatMap((p) => fs.readdirSync(path.join(DIR, p)).map((f) => [p, `${p}/${f}`] as const));
  it.each(all)('%s: %s', (protocol, name) => {
    const first = lines(name).find((l) => l.startsWith('{'))!;
    expect(detectProtocol(first)).toBe(protocol);
    const detecting = createDetectingAdapter();
    const plain = createAdapter(protocol);
    for (const l of lines(name)) {
      for (const s of [...detecting.line(l), ...plain.line(l)]) expect((s as ExtendedSignal).kind).not.toBe('model_turn');
    }
    expect(detecting.protocol()).toBe(protocol);
  });
});

describe('Claude Code 2.1.332', () => {
  it('tool turn: usage only from the result (input + cache writes, cache reads apart), its cost, one model turn per message', () => {
    const s = run('claude', 'claude/tool-turn.jsonl');
    const result = objects('claude/tool-turn.jsonl').find((o) => o.type === 'result');
    expect(s.fold).toMatchObject({
      turns: 1,
      ok: true,
      tools: ['Bash'],
      tokens: { input: 120 + 50 + 160, output: 42, cached: 850 },
      last_text: 'The marker exists now.',
    });
    expect(s.fold.cost_usd).toBe(result.total_cost_usd);
    expect(s.modelTurns).toBe(2);
    // The boundary of the last message comes before the turn's usage and result.
    expect(s.kinds.slice(-4)).toEqual(['model_turn', 'usage', 'result', 'turn_end']);
  });

  it('two input turns: an init per turn but one alive; tokens add up, cost is the latest cumulative figure', () => {
    const s = run('claude', 'claude/two-turns.jsonl');
    const results = objects('claude/two-turns.jsonl').filter((o) => o.type === 'result');
    expect(objects('claude/two-turns.jsonl').filter((o) => o.subtype === 'init')).toHaveLength(2);
    expect(s.signals.filter((x) => x.kind === 'alive')).toHaveLength(1);
    expect(s.fold.turns).toBe(2);
    expect(s.fold.tokens).toEqual({ input: 100 + 130 + 200 + 30, output: 38, cached: 150 });
    expect(results[1].total_cost_usd).toBeGreaterThan(results[0].total_cost_usd);
    expect(s.fold.cost_usd).toBe(results[1].total_cost_usd);
    expect(s.modelTurns).toBe(3);
  });

  it('429s: each api_retry is a limit block with the CLI’s own delay; the retried answer follows', () => {
    const s = run('claude', 'claude/rate-limit-retry.jsonl');
    expect(s.blocks.map((b) => b.blocked)).toEqual(['limit', 'limit']);
    // The CLI waits the retry-after (2 s) and up to a quarter more: the hold is as long as it says.
    const retries = objects('claude/rate-limit-retry.jsonl').filter((o) => o.subtype === 'api_retry');
    expect(retries[0].retry_delay_ms).toBeGreaterThanOrEqual(2000);
    expect(s.blocks.map((b) => b.retry_after_s)).toEqual(retries.map((o) => o.retry_delay_ms / 1000));
    expect(s.fold).toMatchObject({ ok: true, turns: 1, last_text: 'Recovered.' });
  });

  it("a subscription's usage limit in -p: the CLI stops at once (limit blocks, a failed result with detail limit); it says of no wait of its own", () => {
    const s = run('claude', 'claude/usage-limit.jsonl');
    expect(s.blocks.length).toBeGreaterThan(0);
    expect(s.blocks.every((b) => b.blocked === 'limit')).toBe(true);
    expect(s.results).toMatchObject([{ ok: false, detail: 'limit', text: expect.stringMatching(/^You've hit your limit · resets /) }]);
    expect(s.kinds).not.toContain('agent_retry');
  });

  it('the same limit under CLAUDE_CODE_RETRY_WATCHDOG=1: the CLI waits for the reset itself, one agent retry of the limit however often it restates it, then a good result', () => {
    const objs = objects('claude/usage-limit-wait.jsonl');
    const retries = objs.filter((o) => o.subtype === 'api_retry');
    // The first says the wait, the next ones (every 30 s) what is left of it, under the same attempt.
    expect(retries.map((o) => o.attempt)).toEqual([1, 1]);
    expect(retries[1].retry_delay_ms).toBe(retries[0].retry_delay_ms - 30_000);
    const resetsAt = objs.find((o) => o.type === 'rate_limit_event').rate_limit_info.resetsAt * 1000;
    // Read as it was written: each line 30 s after the one before, the first at the reset less its delay.
    const first = resetsAt - retries[0].retry_delay_ms;
    let at = first;
    const a = createAdapter('claude', { now: () => at });
    const signals: Signal[] = [];
    let seen = 0;
    for (const l of lines('claude/usage-limit-wait.jsonl')) {
      if (l.includes('"api_retry"')) at = first + 30_000 * seen++;
      signals.push(...a.line(l));
    }
    const waits = signals.filter((x) => x.kind === 'agent_retry');
    expect(waits).toEqual([{ kind: 'agent_retry', attempt: 1, max: 300, error: 'rate_limit', delay_ms: retries[0].retry_delay_ms }]);
    const blocks = signals.filter((x): x is Extract<Signal, { kind: 'blocked' }> => x.kind === 'blocked');
    expect(blocks.every((b) => b.blocked === 'limit')).toBe(true);
    expect(signals.filter((x) => x.kind === 'result')).toEqual([{ kind: 'result', ok: true, text: 'Carried on and done.' }]);
  });

  it('not logged in: a login block, then a failed result with detail login, and no usage at all', () => {
    const s = run('claude', 'claude/not-logged-in.jsonl');
    expect(s.blocks).toEqual([{ kind: 'blocked', blocked: 'login', message: 'Not logged in · Please run /login' }]);
    expect(s.results).toEqual([{ kind: 'result', ok: false, text: 'Not logged in · Please run /login', detail: 'login' }]);
    expect(s.kinds).not.toContain('usage');
  });

  it('a refused key (401): the CLI’s retry is already a login block; the result names login', () => {
    const s = run('claude', 'claude/bad-key.jsonl');
    expect(objects('claude/bad-key.jsonl').find((o) => o.subtype === 'api_retry')).toMatchObject({ error_status: 401, error: 'authentication_failed' });
    expect(s.blocks[0]).toMatchObject({ blocked: 'login' });
    expect(s.blocks.every((b) => b.blocked === 'login')).toBe(true);
    expect(s.results[0]).toMatchObject({ ok: false, detail: 'login' });
  });

  it('one tool call repeated inside one input turn: a model turn per message, no turn end', () => {
    const s = run('claude', 'claude/repeating-tool.jsonl');
    const messages = new Set(
      objects('claude/repeating-tool.jsonl')
        .filter((o) => o.type === 'assistant')
        .map((o) => o.message.id),
    );
    // Every message but the last (still open when the transcript stops) is closed.
    expect(s.modelTurns).toBe(messages.size - 1);
    expect(s.fold.turns).toBe(0);
    expect(new Set(s.fold.tools)).toEqual(new Set(['Bash']));
  });
});

describe('Codex CLI 0.171.0', () => {
  it('tool turn: the error item printed before turn.started opens no phantom turn; tokens split cached from input', () => {
    const s = run('codex', 'codex/tool-turn.jsonl');
    const objs = objects('codex/tool-turn.jsonl');
    expect(objs.findIndex((o) => o.item?.type === 'error')).toBeLessThan(objs.findIndex((o) => o.type === 'turn.started'));
    expect(s.fold).toMatchObject({ turns: 1, turns_started: 1, ok: true, tools: ['shell'], last_text: 'The marker is there.' });
    const u = objs.find((o) => o.type === 'turn.completed').usage;
    expect(s.fold.tokens).toEqual({ input: u.input_tokens - u.cached_input_tokens, output: u.output_tokens, cached: u.cached_input_tokens });
    expect(s.modelTurns).toBe(2);
  });

  it('usage limit: a limit block and a failed result with detail limit', () => {
    const s = run('codex', 'codex/usage-limit.jsonl');
    expect(s.blocks.map((b) => b.blocked)).toEqual(['limit']);
    expect(s.results[0]).toMatchObject({ ok: false, detail: 'limit' });
  });

  it.each(['codex/bad-key.jsonl', 'codex/missing-key.jsonl'])('%s: a login block and a failed result with detail login', (name) => {
    const s = run('codex', name);
    expect(s.blocks.map((b) => b.blocked)).toEqual(['login']);
    expect(s.results[0]).toMatchObject({ ok: false, detail: 'login' });
  });

  it('offline: "waiting for network" is a block (unknown), and the turn never ends', () => {
    const s = run('codex', 'codex/offline.jsonl');
    expect(s.blocks.length).toBeGreaterThan(0);
    expect(s.blocks.every((b) => b.blocked === 'unknown' && /waiting for network/.test(b.message ?? ''))).toBe(true);
    expect(s.fold.turns).toBe(0);
  });

  it('one tool call repeated: each completed item is a model turn', () => {
    const s = run('codex', 'codex/repeating-tool.jsonl');
    const items = objects('codex/repeating-tool.jsonl').filter((o) => o.type === 'item.completed' && o.item.type === 'command_execution');
    expect(s.modelTurns).toBe(items.length);
  });
});

describe('Gemini CLI 0.61.0', () => {
  it('tool turn: tokens from stats, text once per message, a model turn per response', () => {
    const s = run('gemini', 'gemini/tool-turn.jsonl');
    const stats = objects('gemini/tool-turn.jsonl').find((o) => o.type === 'result').stats;
    expect(s.fold).toMatchObject({ turns: 1, ok: true, tools: ['run_shell_command'], last_text: 'The marker is there.' });
    expect(s.fold.tokens).toEqual({ input: stats.input, output: stats.output_tokens, cached: stats.cached });
    expect(s.modelTurns).toBe(2);
  });

  it('quota (429) with a short suggested retry: a limit block with that delay, detail rate_limited (a passing failure: --retries tries it again)', () => {
    const s = run('gemini', 'gemini/quota.jsonl');
    expect(s.blocks).toHaveLength(1);
    expect(s.blocks[0]).toMatchObject({ blocked: 'limit', retry_after_s: 7 });
    expect(s.results[0]).toMatchObject({ ok: false, detail: 'rate_limited' });
  });

  it('a refused key (401): a login block, detail login', () => {
    const s = run('gemini', 'gemini/bad-key.jsonl');
    expect(s.blocks.map((b) => b.blocked)).toEqual(['login']);
    expect(s.results[0]).toMatchObject({ ok: false, detail: 'login' });
  });

  it('offline: a failed result whose text is the reason, no block', () => {
    const s = run('gemini', 'gemini/offline.jsonl');
    expect(s.blocks).toEqual([]);
    expect(s.results[0]!.ok).toBe(false);
    expect(s.results[0]!.text).toMatch(/fetch failed/);
  });

  it('the CLI’s own loop detector: a warning and a "success" result, which is not ok (detail loop)', () => {
    const s = run('gemini', 'gemini/self-loop.jsonl');
    expect(objects('gemini/self-loop.jsonl').find((o) => o.type === 'result').status).toBe('success');
    expect(s.results[0]).toMatchObject({ ok: false, detail: 'loop' });
    expect(s.modelTurns).toBeGreaterThanOrEqual(4);
  });
});
