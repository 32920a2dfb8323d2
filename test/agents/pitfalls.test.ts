// The traps each agent format sets, one test each.

import { describe, expect, it } from 'vitest';
import {
  createClaudeAdapter,
  createCodexAdapter,
  createDetectingAdapter,
  createGeminiAdapter,
  createJsonlAdapter,
  createPlainAdapter,
  detectProtocol,
  foldSignals,
} from '../../src/agents/index.js';
import type { Signal } from '../../src/agents/signals.js';
import { assertTurnsPaired, feed } from './helpers.js';

const j = (o: unknown): string => JSON.stringify(o);
const kinds = (signals: Signal[]): string[] => signals.map((s) => s.kind);

const init = j({ type: 'system', subtype: 'init', session_id: 's1', model: 'claude-sonnet-4-5', tools: [] });
const assistant = (id: string, content: unknown[], usage: unknown = { input_tokens: 3, output_tokens: 1 }): string =>
  j({ type: 'assistant', message: { id, role: 'assistant', content, usage }, session_id: 's1' });
const result = (extra: Record<string, unknown> = {}): string =>
  j({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'done',
    session_id: 's1',
    total_cost_usd: 0.01,
    usage: { input_tokens: 10, output_tokens: 20 },
    ...extra,
  });

describe('claude', () => {
  it('counts a repeated message id once: one text, one tool, usage only from the result', () => {
    const text = assistant('msg_1', [{ type: 'text', text: 'Looking.' }]);
    const tool = assistant('msg_1', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }]);
    const both = assistant('msg_1', [
      { type: 'text', text: 'Looking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
    ]);
    const signals = feed(createClaudeAdapter(), [init, text, tool, both, tool, result()]);
    const fold = foldSignals(signals);
    expect(signals.filter((s) => s.kind === 'text')).toHaveLength(1);
    expect(fold.tools).toEqual(['Bash']);
    expect(signals.filter((s) => s.kind === 'usage')).toHaveLength(1);
    expect(fold.tokens).toEqual({ input: 10, output: 20, cached: 0 });
  });

  it('keeps different blocks of one message split over several lines', () => {
    const a = assistant('msg_1', [{ type: 'text', text: 'First.' }]);
    const b = assistant('msg_1', [{ type: 'text', text: 'Second.' }]);
    const texts = feed(createClaudeAdapter(), [init, a, b]).filter((s) => s.kind === 'text');
    expect(texts).toEqual([
      { kind: 'text', text: 'First.' },
      { kind: 'text', text: 'Second.' },
    ]);
  });

  it('maps result usage: cache writes count as input, cache reads as cached', () => {
    const usage = { input_tokens: 16, cache_creation_input_tokens: 3102, cache_read_input_tokens: 44502, output_tokens: 287 };
    const signals = createClaudeAdapter().line(result({ usage, total_cost_usd: 0.5 }));
    expect(signals.find((s) => s.kind === 'usage')).toEqual({ kind: 'usage', input: 3118, cached: 44502, output: 287, cost_usd_total: 0.5 });
  });

  it('replaces the cumulative session cost instead of summing it', () => {
    const signals = feed(createClaudeAdapter(), [
      init,
      assistant('m1', [{ type: 'text', text: 'a' }]),
      result({ total_cost_usd: 0.04 }),
      init,
      assistant('m2', [{ type: 'text', text: 'b' }]),
      result({ total_cost_usd: 0.07 }),
    ]);
    const fold = foldSignals(signals);
    expect(fold.cost_usd).toBe(0.07);
    expect(fold.turns).toBe(2);
    expect(fold.tokens).toEqual({ input: 20, output: 40, cached: 0 });
    expect(signals.filter((s) => s.kind === 'alive')).toHaveLength(1);
    assertTurnsPaired(signals);
  });

  it('treats subtype success with is_error:true as an error; the API failing (5xx, overloaded) is named api_error, a passing failure', () => {
    const signals = feed(createClaudeAdapter(), [init, result({ is_error: true, result: 'API Error: 500' })]);
    expect(signals.find((s) => s.kind === 'result')).toEqual({ kind: 'result', ok: false, text: 'API Error: 500', detail: 'api_error' });
    const other = feed(createClaudeAdapter(), [init, result({ is_error: true, result: 'Something else went wrong' })]);
    expect(other.find((s) => s.kind === 'result')).toMatchObject({ ok: false, detail: 'is_error' });
    const overloaded = feed(createClaudeAdapter(), [init, result({ is_error: true, api_error_status: 529, result: 'Overloaded' })]);
    expect(overloaded.find((s) => s.kind === 'result')).toMatchObject({ ok: false, detail: 'api_error' });
    expect(kinds(signals)).toEqual(['alive', 'turn_start', 'usage', 'result', 'turn_end']);
  });

  it('treats error_* subtypes as errors', () => {
    const signals = createClaudeAdapter().line(j({ type: 'result', subtype: 'error_max_turns', is_error: false, session_id: 's1' }));
    expect(signals.find((s) => s.kind === 'result')).toEqual({ kind: 'result', ok: false, detail: 'error_max_turns' });
  });

  it('reports a login block on authentication_failed', () => {
    const line = j({
      type: 'assistant',
      message: { id: 'x', role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: 'Not logged in · Please run /login' }] },
      session_id: 's1',
      error: 'authentication_failed',
    });
    const signals = createClaudeAdapter().line(line);
    expect(signals).toContainEqual({ kind: 'blocked', blocked: 'login', message: 'Not logged in · Please run /login' });
  });

  it('reports a limit block with the retry delay on api_retry 429, and the CLI waiting for it itself', () => {
    const line = j({ type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 10, retry_delay_ms: 3000, error_status: 429, error: 'rate_limit' });
    const signals = createClaudeAdapter().line(line);
    expect(signals).toHaveLength(2);
    expect(signals[0]).toMatchObject({ kind: 'blocked', blocked: 'limit', retry_after_s: 3 });
    expect(signals[1]).toEqual({ kind: 'agent_retry', attempt: 1, max: 10, error: 'rate_limit', delay_ms: 3000 });
  });

  it('reads a wait restated under the same attempt (the retry watchdog, every 30 s) as that wait, and a new attempt or a later end as a new one', () => {
    let now = 1_000_000;
    const a = createClaudeAdapter({ now: () => now });
    const retry = (attempt: number, delay: number): string =>
      j({ type: 'system', subtype: 'api_retry', attempt, max_retries: 300, retry_delay_ms: delay, error_status: 429, error: 'rate_limit' });
    expect(a.line(retry(1, 90_000)).map((s) => s.kind)).toEqual(['blocked', 'agent_retry']);
    now += 30_000;
    expect(a.line(retry(1, 60_000))).toEqual([]);
    // Read a second late: still that wait.
    now += 31_000;
    expect(a.line(retry(1, 30_000))).toEqual([]);
    // The reset moved on: a wait ending later is said again.
    expect(a.line(retry(1, 600_000)).map((s) => s.kind)).toEqual(['blocked', 'agent_retry']);
    expect(a.line(retry(2, 1_000)).map((s) => s.kind)).toEqual(['blocked', 'agent_retry']);
  });

  it('reads api_retry for errors that are not limits as the CLI retrying by itself (not a block)', () => {
    const line = j({ type: 'system', subtype: 'api_retry', attempt: 3, max_retries: 10, retry_delay_ms: 4000, error_status: 529, error: 'overloaded_error' });
    expect(createClaudeAdapter().line(line)).toEqual([{ kind: 'agent_retry', error: 'overloaded_error', attempt: 3, max: 10, delay_ms: 4000 }]);
    expect(createClaudeAdapter().line(j({ type: 'system', subtype: 'api_retry', error_status: 503 }))).toEqual([{ kind: 'agent_retry', error: 'HTTP 503' }]);
  });

  it("a usage-limit result after a rejecting rate_limit_event is held until that event's exact reset, not the text's minute", () => {
    const now = Date.UTC(2026, 11, 3, 16, 1, 13);
    const a = createClaudeAdapter({ now: () => now });
    const resetsAt = Math.floor(now / 1000) + 3;
    a.line(j({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt, rateLimitType: 'five_hour' } }));
    const out = a.line(
      j({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: "You've hit your limit · resets 4:01pm (UTC)", session_id: 's' }),
    );
    expect(out.find((s) => s.kind === 'blocked')).toMatchObject({ blocked: 'limit', retry_after_s: 3 });
  });

  it('blocks on a rejected rate_limit_event and ignores an allowed one', () => {
    const a = createClaudeAdapter();
    // Every one says where the window stands (a quota signal); only a rejected one blocks.
    expect(
      a.line(j({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed', resetsAt: 1762200000, rateLimitType: 'five_hour', utilization: 0.42 } })),
    ).toEqual([{ kind: 'quota', window: 'five_hour', status: 'allowed', utilization: 0.42, resets_at: 1762200000_000 }]);
    expect(a.line(j({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning' } }))).toEqual([
      { kind: 'quota', window: 'unknown', status: 'allowed_warning' },
    ]);
    const hit = a.line(j({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1762200000, rateLimitType: 'seven_day' } }));
    expect(hit).toHaveLength(2);
    expect(hit[0]).toMatchObject({ kind: 'quota', window: 'seven_day', status: 'rejected' });
    expect(hit[1]).toMatchObject({ kind: 'blocked', blocked: 'limit' });
    // Nonsense utilization is left out, not shown as 4200%.
    expect(a.line(j({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed', utilization: 42 } }))[0]).not.toHaveProperty('utilization');
  });

  it('reports a limit block for an error result that mentions a usage limit, plus the result', () => {
    const signals = feed(createClaudeAdapter(), [init, result({ is_error: true, result: 'Claude AI usage limit reached|1762200000' })]);
    expect(kinds(signals)).toEqual(['alive', 'turn_start', 'usage', 'blocked', 'result', 'turn_end']);
    expect(foldSignals(signals)).toMatchObject({ ok: false, blocked: { kind: 'limit' } });
  });

  it('emits a once-per-message lower bound at end() when the process dies mid-turn', () => {
    const u1 = { input_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000, output_tokens: 1 };
    const u2 = { input_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 1200, output_tokens: 1 };
    const signals = feed(createClaudeAdapter(), [
      init,
      assistant('m1', [{ type: 'text', text: 'a' }], u1),
      assistant('m1', [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }], u1),
      assistant('m2', [{ type: 'tool_use', id: 't2', name: 'Bash', input: {} }], u2),
    ]);
    const usage = signals.filter((s) => s.kind === 'usage');
    expect(usage).toEqual([{ kind: 'usage', input: 112, output: 2, cached: 2200 }]);
    expect(signals.at(-1)?.kind).toBe('usage');
    expect(signals.filter((s) => s.kind === 'turn_end')).toHaveLength(0);
  });

  it('emits nothing at end() after a completed turn', () => {
    const a = createClaudeAdapter();
    feed(a, [init, assistant('m1', [{ type: 'text', text: 'a' }]), result()]);
    expect(a.end?.()).toEqual([]);
  });

  it('keeps lines of the wrong shape as output', () => {
    const a = createClaudeAdapter();
    for (const line of [j({ type: 'assistant', message: null }), j({ type: 'assistant' }), '[1,2,3]', '42', 'null', '"str"', j({ type: 7 })]) {
      expect(a.line(line)).toEqual([{ kind: 'output', line }]);
    }
  });

  it('keeps non-JSON and truncated JSON as output', () => {
    const a = createClaudeAdapter();
    const truncated = init.slice(0, 40);
    expect(a.line('Welcome to Claude Code')).toEqual([{ kind: 'output', line: 'Welcome to Claude Code' }]);
    expect(a.line(truncated)).toEqual([{ kind: 'output', line: truncated }]);
  });
});

describe('codex', () => {
  const started = j({ type: 'thread.started', thread_id: 'th_1' });
  const turn = j({ type: 'turn.started' });
  const done = (input: number, cached: number, output: number): string =>
    j({ type: 'turn.completed', usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output } });

  it('uses thread_id as the session id', () => {
    expect(createCodexAdapter().line(started)).toEqual([{ kind: 'alive', session_id: 'th_1' }]);
  });

  it('keeps a reconnect error as output, not fatal', () => {
    const reconnect = j({ type: 'error', message: 'Reconnecting... 2/5 (stream disconnected before completion)' });
    const signals = feed(createCodexAdapter(), [started, turn, reconnect, done(100, 0, 10)]);
    expect(signals).toContainEqual({ kind: 'output', line: reconnect });
    expect(foldSignals(signals)).toMatchObject({ ok: true, turns: 1, blocked: null });
  });

  it('reports a usage-limit turn.failed as a limit block, then a failed result', () => {
    const failed = j({ type: 'turn.failed', error: { message: "You've hit your usage limit. Try again in 2 hours." } });
    const signals = feed(createCodexAdapter(), [started, turn, failed]);
    expect(kinds(signals)).toEqual(['alive', 'turn_start', 'blocked', 'result', 'turn_end']);
    expect(signals[2]).toMatchObject({ kind: 'blocked', blocked: 'limit' });
    expect(signals[3]).toMatchObject({ kind: 'result', ok: false });
  });

  it('reports other turn failures without a block', () => {
    const failed = j({ type: 'turn.failed', error: { message: 'stream disconnected before completion' } });
    const signals = feed(createCodexAdapter(), [started, turn, failed]);
    expect(kinds(signals)).toEqual(['alive', 'turn_start', 'result', 'turn_end']);
    // A dropped stream, a 5xx: the API's trouble, a passing failure (api_error); anything else stays turn.failed.
    expect(signals.find((s) => s.kind === 'result')).toMatchObject({ ok: false, detail: 'api_error' });
    const other = feed(createCodexAdapter(), [started, turn, j({ type: 'turn.failed', error: { message: 'sandbox denied the command' } })]);
    expect(other.find((s) => s.kind === 'result')).toMatchObject({ ok: false, detail: 'turn.failed' });
  });

  it('subtracts cached from input and diffs the running totals', () => {
    const signals = feed(createCodexAdapter(), [started, turn, done(1000, 800, 50), turn, done(2500, 2000, 120)]);
    expect(signals.filter((s) => s.kind === 'usage')).toEqual([
      { kind: 'usage', input: 200, cached: 800, output: 50 },
      { kind: 'usage', input: 300, cached: 1200, output: 70 },
    ]);
    expect(foldSignals(signals).tokens).toEqual({ input: 500, output: 120, cached: 2000 });
  });

  it('parses usage leniently: missing fields are 0', () => {
    const signals = createCodexAdapter().line(j({ type: 'turn.completed', usage: { output_tokens: 6 } }));
    expect(signals.find((s) => s.kind === 'usage')).toEqual({ kind: 'usage', input: 0, cached: 0, output: 6 });
  });

  it('maps items to tools and text, once per item id', () => {
    const item = (it: Record<string, unknown>): string => j({ type: 'item.completed', item: it });
    const signals = feed(createCodexAdapter(), [
      started,
      turn,
      j({ type: 'item.started', item: { id: 'i1', type: 'command_execution', command: 'ls', status: 'in_progress' } }),
      item({ id: 'i1', type: 'command_execution', command: 'ls', exit_code: 0, status: 'completed' }),
      item({ id: 'i1', type: 'command_execution', command: 'ls', exit_code: 0, status: 'completed' }),
      item({ id: 'i2', type: 'mcp_tool_call', server: 'gh', tool: 'search', arguments: { q: 'x' }, status: 'completed' }),
      item({ id: 'i3', type: 'file_change', changes: [{ path: 'a.ts', kind: 'add' }], status: 'completed' }),
      item({ id: 'i4', type: 'web_search', query: 'node 20' }),
      item({ id: 'i5', type: 'reasoning', text: 'thinking' }),
      item({ id: 'i6', type: 'agent_message', text: 'Done.' }),
    ]);
    expect(signals.filter((s) => s.kind === 'tool' || s.kind === 'text')).toEqual([
      { kind: 'tool', name: 'shell', input: { command: 'ls' } },
      { kind: 'tool', name: 'gh.search', input: { q: 'x' } },
      { kind: 'tool', name: 'apply_patch', input: { changes: [{ path: 'a.ts', kind: 'add' }] } },
      { kind: 'tool', name: 'web_search', input: { query: 'node 20' } },
      { kind: 'text', text: 'Done.' },
    ]);
  });
});

describe('gemini', () => {
  const ts = '2025-11-03T10:00:00.000Z';
  const init = j({ type: 'init', timestamp: ts, session_id: 'g1', model: 'gemini-2.5-pro' });
  const msg = (content: string, delta = true): string => j({ type: 'message', timestamp: ts, role: 'assistant', content, delta });

  it('concatenates delta chunks into one text per assistant message', () => {
    const signals = feed(createGeminiAdapter(), [
      init,
      j({ type: 'message', timestamp: ts, role: 'user', content: 'hi' }),
      msg('Hel'),
      msg('lo.'),
      j({ type: 'tool_use', timestamp: ts, tool_name: 'read_file', tool_id: 't1', parameters: { absolute_path: '/a' } }),
      msg('Bye'),
      msg('.'),
    ]);
    expect(signals.filter((s) => s.kind === 'text' || s.kind === 'tool')).toEqual([
      { kind: 'text', text: 'Hello.' },
      { kind: 'tool', name: 'read_file', input: { absolute_path: '/a' } },
      { kind: 'text', text: 'Bye.' }, // flushed by end()
    ]);
  });

  it('reports a 429 error as a limit block and ignores warnings', () => {
    const a = createGeminiAdapter();
    expect(a.line(j({ type: 'error', timestamp: ts, severity: 'warning', message: 'rate limit soon' }))).toEqual([]);
    const hit = a.line(j({ type: 'error', timestamp: ts, severity: 'error', message: 'got status: 429 Too Many Requests' }));
    expect(hit).toEqual([{ kind: 'blocked', blocked: 'limit', message: 'got status: 429 Too Many Requests' }]);
  });

  it("tells a daily quota (a usage limit) from a per-minute rate limit (a passing failure), as Gemini CLI's own classifier does", () => {
    const fail = (message: string, type = 'Error'): unknown =>
      feed(createGeminiAdapter(), [init, j({ type: 'result', timestamp: ts, status: 'error', error: { type, message } })]).find((s) => s.kind === 'result');
    expect(fail('You have exhausted your daily quota on this model.')).toMatchObject({ detail: 'limit' });
    expect(fail('Quota exceeded', 'QUOTA_EXHAUSTED')).toMatchObject({ detail: 'limit' });
    expect(fail('Quota exceeded for requests per minute. Please retry in 12s.')).toMatchObject({ detail: 'rate_limited' });
    expect(fail('429 rate limit', 'RATE_LIMIT_EXCEEDED')).toMatchObject({ detail: 'rate_limited' });
    expect(fail('Too many requests: quota exceeded, retry in 3600s')).toMatchObject({ detail: 'limit' });
  });

  it('is ok only for status success, and takes usage from stats', () => {
    const stats = { total_tokens: 150, input_tokens: 120, output_tokens: 30, cached: 100, duration_ms: 5, tool_calls: 0 };
    const ok = feed(createGeminiAdapter(), [init, j({ type: 'result', timestamp: ts, status: 'success', stats })]);
    expect(foldSignals(ok)).toMatchObject({ ok: true, turns: 1, tokens: { input: 20, output: 30, cached: 100 } });
    const bad = feed(createGeminiAdapter(), [init, j({ type: 'result', timestamp: ts, status: 'error', error: { type: 'Error', message: 'boom' } })]);
    expect(foldSignals(bad)).toMatchObject({ ok: false, turns: 1, last_text: 'boom', blocked: null });
  });
});

describe('jsonl', () => {
  it('treats cost_usd as an increment and emits the running total', () => {
    const a = createJsonlAdapter();
    const signals = feed(a, [
      j({ type: 'ready' }),
      j({ type: 'usage', input_tokens: 10, output_tokens: 1, cost_usd: 0.25 }),
      j({ type: 'usage', input_tokens: 10, output_tokens: 1 }),
      j({ type: 'usage', input_tokens: 10, output_tokens: 1, cost_usd: 0.5 }),
    ]);
    expect(signals.filter((s) => s.kind === 'usage').map((s) => (s.kind === 'usage' ? s.cost_usd_total : null))).toEqual([0.25, 0.25, 0.75]);
    expect(foldSignals(signals).cost_usd).toBe(0.75);
  });

  it("follows orcr's own agent protocol (as the README states it) line by line", () => {
    const signals = feed(createJsonlAdapter(), [
      j({ type: 'ready' }),
      j({ type: 'turn_start' }),
      j({ type: 'tool', name: 'shell', input: { command: 'ls' } }),
      j({ type: 'text', text: 'hi' }),
      j({ type: 'blocked', kind: 'question', retry_after_s: 5 }),
      j({ type: 'blocked', kind: 'nonsense' }),
      j({ type: 'result', ok: true, text: 'done' }),
      j({ type: 'turn_end' }),
      j({ type: 'input', text: 'echoed' }),
    ]);
    expect(signals.slice(0, 8)).toEqual([
      { kind: 'alive' },
      { kind: 'turn_start' },
      { kind: 'tool', name: 'shell', input: { command: 'ls' } },
      { kind: 'text', text: 'hi' },
      { kind: 'blocked', blocked: 'question', retry_after_s: 5 },
      { kind: 'blocked', blocked: 'unknown' },
      { kind: 'result', ok: true, text: 'done' },
      { kind: 'turn_end' },
    ]);
    expect(signals[8]?.kind).toBe('output');
  });

  it('opens a turn for a turn_end whose start was missed', () => {
    const signals = feed(createJsonlAdapter(), [j({ type: 'ready' }), j({ type: 'turn_end' })]);
    expect(kinds(signals)).toEqual(['alive', 'turn_start', 'turn_end']);
  });

  it('treats a non-boolean ok as not ok', () => {
    expect(createJsonlAdapter().line(j({ type: 'result', ok: 'yes' }))).toContainEqual({ kind: 'result', ok: false });
  });
});

describe('plain', () => {
  it('is alive at the first line, and every line is output', () => {
    const signals = feed(createPlainAdapter(), ['aider v0.86', '{"type":"ready"}', '']);
    expect(signals).toEqual([
      { kind: 'alive' },
      { kind: 'output', line: 'aider v0.86' },
      { kind: 'output', line: '{"type":"ready"}' },
      { kind: 'output', line: '' },
    ]);
  });
});

describe('detection', () => {
  it.each([
    [{ type: 'system', subtype: 'init', session_id: 's', model: 'm' }, 'claude'],
    [{ type: 'assistant', message: { content: [] }, session_id: 's' }, 'claude'],
    [{ type: 'result', subtype: 'success', session_id: 's' }, 'claude'],
    [{ type: 'thread.started', thread_id: 't' }, 'codex'],
    [{ type: 'turn.started' }, 'codex'],
    [{ type: 'item.completed', item: {} }, 'codex'],
    [{ type: 'init', timestamp: 'x', session_id: 's', model: 'm' }, 'gemini'],
    [{ type: 'message', timestamp: 'x', role: 'user', content: 'c' }, 'gemini'],
    [{ type: 'result', timestamp: 'x', status: 'success', stats: {} }, 'gemini'],
    [{ type: 'ready' }, 'jsonl'],
    [{ type: 'turn_start' }, 'jsonl'],
    [{ type: 'result', ok: true }, 'jsonl'],
    [{ type: 'something_else' }, null],
    [{ level: 'info', msg: 'hello' }, null],
  ])('%j → %s', (obj, protocol) => {
    expect(detectProtocol(JSON.stringify(obj))).toBe(protocol);
  });

  it('returns null for non-JSON and non-objects', () => {
    for (const l of ['', 'hello', '[{"type":"ready"}]', '7', '{"type":', '{"type":"ready"']) expect(detectProtocol(l)).toBeNull();
  });

  it('passes a non-JSON preamble through, then delegates from the first JSON line', () => {
    const a = createDetectingAdapter();
    expect(a.line('npm warn: something')).toEqual([{ kind: 'output', line: 'npm warn: something' }]);
    expect(a.protocol()).toBeNull();
    expect(a.line(init)).toEqual([{ kind: 'alive', session_id: 's1', model: 'claude-sonnet-4-5' }]);
    expect(a.protocol()).toBe('claude');
    expect(a.line('not json')).toEqual([{ kind: 'output', line: 'not json' }]);
  });

  it('falls back to plain after a JSON line of no known shape', () => {
    const a = createDetectingAdapter();
    const line = j({ level: 'info', msg: 'booting' });
    expect(a.line(line)).toEqual([{ kind: 'alive' }, { kind: 'output', line }]);
    expect(a.protocol()).toBe('plain');
    expect(a.line(j({ type: 'ready' }))).toEqual([{ kind: 'output', line: j({ type: 'ready' }) }]);
  });

  it('settles on plain after a long non-JSON preamble, and reports life at end() otherwise', () => {
    const a = createDetectingAdapter({ plainAfterLines: 3 });
    expect(kinds(feed(a, ['a', 'b', 'c', 'd']))).toEqual(['output', 'output', 'alive', 'output', 'output']);
    expect(a.protocol()).toBe('plain');
    const b = createDetectingAdapter();
    expect(kinds(feed(b, ['a']))).toEqual(['output', 'alive']);
    expect(b.protocol()).toBeNull();
    expect(createDetectingAdapter().end?.()).toEqual([]);
  });
});

describe('turn pairing', () => {
  it('closes an open turn when a new one begins (jsonl, codex)', () => {
    const jsonl = feed(createJsonlAdapter(), ['{"type":"ready"}', '{"type":"turn_start"}', '{"type":"turn_start"}', '{"type":"turn_end"}']);
    expect(kinds(jsonl)).toEqual(['alive', 'turn_start', 'turn_end', 'turn_start', 'turn_end']);
    const codex = feed(createCodexAdapter(), ['{"type":"turn.started"}', '{"type":"turn.started"}']);
    expect(kinds(codex)).toEqual(['alive', 'turn_start', 'turn_end', 'turn_start']);
    assertTurnsPaired(jsonl);
    assertTurnsPaired(codex);
  });
});
