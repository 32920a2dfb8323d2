// The run reducer, table-driven: every signal kind and every effect, without
// processes, timers or a journal.

import { describe, expect, it } from 'vitest';
import { newRun } from '../../src/core/run-record.js';
import { transition } from '../../src/core/run-state.js';
import { applySignals, initialProgress, type ProgressContext, type ProgressSignal, type ProgressState } from '../../src/core/run-progress.js';
import type { Run, RunLimits } from '../../src/core/types.js';

const NOW = 1_000_000;
const ctx = (over: Partial<ProgressContext> = {}): ProgressContext => ({
  now: NOW,
  price: null,
  fleetExceeded: false,
  limitHoldMs: 300_000,
  heldUntil: null,
  takesInput: true,
  ...over,
});

function run(status: Run['status'], over: Partial<Run> = {}, limits: Partial<RunLimits> = {}): Run {
  let r = newRun({ uuid: 'u1', name: 'r', provider: 'claude', workload: 'default', queue_seq: 1, command: ['x'], cwd: '/', now: 0, protocol: 'jsonl' });
  r = { ...r, limits: { ...r.limits, ...limits } };
  if (status !== 'queued') r = transition(r, 'starting', 1);
  if (status === 'working' || status === 'idle' || status === 'blocked') r = transition(r, 'working', 2);
  if (status === 'idle') r = transition(r, 'idle', 3);
  if (status === 'blocked') r = transition(r, 'blocked', 3, { blocked_kind: 'limit' });
  return { ...r, ...over };
}

const types = (p: { events: { type: string }[] }): string[] => p.events.map((e) => e.type);

describe('signals', () => {
  it.each<[string, Run, ProgressSignal[], Partial<Run>, string[]]>([
    ['alive: starting → working, session kept', run('starting'), [{ kind: 'alive', session_id: 's9' }], { status: 'working', session_id: 's9' }, ['working']],
    ['alive: an interactive run without a prompt waits for input', run('starting', { interactive: true }), [{ kind: 'alive' }], { status: 'idle' }, ['idle']],
    ['alive while working changes nothing but the session', run('working'), [{ kind: 'alive', session_id: 's2' }], { status: 'working', session_id: 's2' }, []],
    ['turn_start: idle → working', run('idle'), [{ kind: 'turn_start' }], { status: 'working' }, ['working']],
    ['turn_start: blocked → working', run('blocked'), [{ kind: 'turn_start' }], { status: 'working' }, ['working']],
    [
      'turn_end: an interactive run goes idle, turn counted',
      run('working', { interactive: true }),
      [{ kind: 'turn_end' }],
      { status: 'idle', turns: 1 },
      ['idle'],
    ],
    ['turn_end: a one-shot run stays working (its input closes)', run('working'), [{ kind: 'turn_end' }], { status: 'working', turns: 1 }, []],
    [
      'turn_end: an interactive run blocked on login stays blocked',
      run('working', { interactive: true }),
      [{ kind: 'blocked', blocked: 'login' }, { kind: 'turn_end' }],
      { status: 'blocked', blocked_kind: 'login', turns: 1 },
      ['blocked'],
    ],
    [
      'usage adds tokens and takes the reported cumulative cost',
      run('working'),
      [{ kind: 'usage', input: 3, output: 2, cached: 1, cost_usd_total: 0.25 }],
      { tokens: { input: 3, output: 2, cached: 1 }, cost_usd: 0.25 },
      [],
    ],
    ['usage after a block resumes work', run('blocked'), [{ kind: 'usage', input: 1, output: 1, cached: 0 }], { status: 'working' }, ['working']],
    [
      'a block on a request lasts whatever the agent prints: its answer lifts it, not its words',
      run('blocked', { blocked_kind: 'approval' }),
      [
        { kind: 'usage', input: 1, output: 1, cached: 0 },
        { kind: 'text', text: 'still here' },
        { kind: 'tool', name: 'Bash', input: {} },
        { kind: 'turn_start' },
      ],
      { status: 'blocked', blocked_kind: 'approval' },
      [],
    ],
    [
      "requests, their withdrawals and the CLI refusals are not the reducer's",
      run('working'),
      [
        {
          kind: 'approval',
          ask: { ref: 'r', tool: 'Bash', subject: 'ls', tool_use_id: null, size: null, questions: null, always: null },
          input: {},
          offers: null,
        },
        { kind: 'approval_withdrawn', ref: 'r' },
        { kind: 'denied', tool: 'Bash', tool_use_id: null, message: 'no' },
      ],
      { status: 'working' },
      [],
    ],
    ['tool: last tool', run('working'), [{ kind: 'tool', name: 'Bash', input: { command: 'ls' } }], { last_tool: 'Bash' }, []],
    ['text: last text, cut to 500', run('working'), [{ kind: 'text', text: 'y'.repeat(600) }], { last_text: 'y'.repeat(500) }, []],
    [
      'result: its text is the last word',
      run('working'),
      [{ kind: 'result', ok: false, text: 'quota exceeded', detail: 'limit' }],
      { last_text: 'quota exceeded' },
      [],
    ],
    [
      'blocked: working → blocked with its kind',
      run('working'),
      [{ kind: 'blocked', blocked: 'question' }],
      { status: 'blocked', blocked_kind: 'question' },
      ['blocked'],
    ],
    [
      'output: a plain run that prints is working',
      run('starting', { protocol: 'plain' }),
      [{ kind: 'output', line: 'hello' }],
      { status: 'working' },
      ['working'],
    ],
    ['output from a protocol run is only output', run('starting'), [{ kind: 'output', line: 'banner' }], { status: 'starting' }, []],
    [
      'model_turn: counted by the loop detector, not as a turn',
      run('working'),
      [{ kind: 'tool', name: 'Bash', input: 1 }, { kind: 'model_turn' }],
      { turns: 0, loop_flags: { detected: false, warned: false, repetitions: 1 } },
      [],
    ],
  ])('%s', (_what, before, signals, expected, events) => {
    const p = applySignals(before, initialProgress(), signals, ctx());
    expect(p.run).toMatchObject(expected);
    expect(types(p)).toEqual(events);
  });

  it('agent_retry: the agent waiting a limit out by itself is blocked on the limit, its provider held as long, the wait recorded once; work again ends it', () => {
    const wait: ProgressSignal[] = [
      { kind: 'blocked', blocked: 'limit', retry_after_s: 90 },
      { kind: 'agent_retry', attempt: 1, max: 300, error: 'rate_limit', delay_ms: 90_000 },
    ];
    const p = applySignals(run('working'), initialProgress(), wait, ctx());
    expect(p.run).toMatchObject({
      status: 'blocked',
      blocked_kind: 'limit',
      agent_retry: { attempt: 1, max: 300, error: 'rate_limit', delay_ms: 90_000, at: NOW },
    });
    expect(types(p)).toEqual(['hold', 'blocked', 'agent_retry']);
    // The same wait read again (a supervisor restarted reads its line anew): nothing new, its start kept.
    const again = applySignals(
      p.run,
      p.state,
      [
        { kind: 'blocked', blocked: 'limit', retry_after_s: 60 },
        { kind: 'agent_retry', attempt: 1, max: 300, error: 'rate_limit', delay_ms: 60_000 },
      ],
      ctx({ now: NOW + 30_000, heldUntil: NOW + 90_000 }),
    );
    expect(types(again)).toEqual([]);
    expect(again.run.agent_retry).toEqual(p.run.agent_retry);
    const back = applySignals(again.run, again.state, [{ kind: 'text', text: 'Carried on.' }], ctx({ now: NOW + 91_000 }));
    expect(back.run).toMatchObject({ status: 'working', agent_retry: null });
  });

  it('turn_start while idle after a limit: the agent went on by itself, so orcr no longer tells it to go on when the hold lifts', () => {
    const limited = applySignals(
      run('working', { interactive: true }),
      initialProgress(),
      [{ kind: 'result', ok: false, detail: 'limit' }, { kind: 'turn_end' }],
      ctx(),
    );
    expect(limited.run).toMatchObject({ status: 'idle', limited_at: NOW });
    const itself = applySignals(limited.run, limited.state, [{ kind: 'turn_start' }], ctx({ now: NOW + 60_000 }));
    expect(itself.run).toMatchObject({ status: 'working', limited_at: null });
    const done = applySignals(itself.run, itself.state, [{ kind: 'result', ok: true }, { kind: 'turn_end' }], ctx({ now: NOW + 70_000 }));
    expect(done.run).toMatchObject({ status: 'idle', limited_at: null });
  });

  it('approval, approval_withdrawn, denied: the server’s to handle; the run, its state and its effects are as they were', () => {
    const ask = { ref: 'r1', tool: 'Bash', subject: 'ls', tool_use_id: 't1', size: null, questions: null, always: 'Bash(ls)' };
    const signals: ProgressSignal[] = [
      { kind: 'approval', ask, input: { command: 'ls' }, offers: null },
      { kind: 'approval_withdrawn', ref: 'r1' },
      { kind: 'denied', tool: 'Write', tool_use_id: 't2', message: 'not granted' },
    ];
    for (const before of [
      run('working'),
      run('idle', { interactive: true }),
      run('blocked', { agent_retry: { attempt: 1, max: 3, error: 'e', delay_ms: 1, at: 0 } }),
    ]) {
      const p = applySignals(before, initialProgress(), signals, ctx());
      expect(p.run).toEqual(before);
      expect(p.state).toEqual(initialProgress());
      expect(p.events).toEqual([]);
      expect(p.effects).toEqual([]);
    }
  });

  it('result keeps the verdict for the exit reason on the run (journaled with it, not in this process alone)', () => {
    const p = applySignals(run('working'), initialProgress(), [{ kind: 'result', ok: false, detail: 'login' }], ctx());
    expect(p.run.last_result).toEqual({ ok: false, detail: 'login' });
    const ok = applySignals(p.run, p.state, [{ kind: 'result', ok: true }], ctx());
    expect(ok.run.last_result).toEqual({ ok: true, detail: null });
  });
});

describe('effects', () => {
  it('close_input: a one-shot turn is done, or an interactive one when the fleet budget is spent', () => {
    expect(applySignals(run('working'), initialProgress(), [{ kind: 'turn_end' }], ctx()).effects).toContainEqual({ kind: 'close_input' });
    const fleet = applySignals(run('working', { interactive: true }), initialProgress(), [{ kind: 'turn_end' }], ctx({ fleetExceeded: true }));
    expect(fleet.effects).toContainEqual({ kind: 'close_input' });
    expect(fleet.run.status).toBe('working');
  });

  it.each<[string, number | undefined, number | null, number | null]>([
    ['the time the agent named', 90, null, NOW + 90_000],
    ['the configured hold when it names none', undefined, null, NOW + 300_000],
    ['nothing when a longer hold is in force', 90, NOW + 1_000_000, null],
    ['a year, whole', 365 * 86_400, null, NOW + 365 * 86_400_000],
    ['at most a year (an agent naming 2099)', 80 * 365 * 86_400, null, NOW + 365 * 86_400_000],
  ])('hold: %s', (_what, retry, heldUntil, until) => {
    const sig: ProgressSignal = retry === undefined ? { kind: 'blocked', blocked: 'limit' } : { kind: 'blocked', blocked: 'limit', retry_after_s: retry };
    const p = applySignals(run('working'), initialProgress(), [sig], ctx({ heldUntil }));
    const holds = p.effects.filter((e) => e.kind === 'hold');
    if (until === null) expect(holds).toEqual([]);
    else {
      expect(holds).toEqual([{ kind: 'hold', provider: 'claude', until }]);
      expect(p.events.find((e) => e.type === 'hold')!.data).toMatchObject({ provider: 'claude', until, by: 'u1' });
    }
  });

  it('hold: the same reset said again a moment later (rounded to the second, read late) is the hold in force, not a new one; a later reset is', () => {
    const block = (retry: number): ProgressSignal => ({ kind: 'blocked', blocked: 'limit', retry_after_s: retry });
    // In force until NOW + 90.4 s (a rate_limit_event's reset, to the second); the agent's api_retry says 90.9 s.
    expect(applySignals(run('blocked'), initialProgress(), [block(90.9)], ctx({ heldUntil: NOW + 90_400 })).effects.filter((e) => e.kind === 'hold')).toEqual(
      [],
    );
    // In one batch, too.
    const both = applySignals(run('working'), initialProgress(), [block(90), block(90.5)], ctx());
    expect(both.effects.filter((e) => e.kind === 'hold')).toEqual([{ kind: 'hold', provider: 'claude', until: NOW + 90_000 }]);
    expect(types(both).filter((t) => t === 'hold')).toHaveLength(1);
    expect(applySignals(run('blocked'), initialProgress(), [block(95)], ctx({ heldUntil: NOW + 90_400 })).effects.filter((e) => e.kind === 'hold')).toEqual([
      { kind: 'hold', provider: 'claude', until: NOW + 95_000 },
    ]);
  });

  it('stop: a budget trips (strictly over), once', () => {
    const r = run('working', {}, { max_turns: 1 });
    const at = applySignals(r, initialProgress(), [{ kind: 'turn_end' }], ctx());
    expect(at.effects.filter((e) => e.kind === 'stop')).toEqual([]);
    const over = applySignals(at.run, at.state, [{ kind: 'turn_end' }], ctx());
    expect(over.effects).toContainEqual({ kind: 'stop', reason: 'budget', detail: 'turns' });
    const again = applySignals(over.run, over.state, [{ kind: 'turn_end' }], ctx());
    expect(again.effects.filter((e) => e.kind === 'stop')).toEqual([]);
  });

  it('max_turns N: turn N ends with the input closed, and the first sign of turn N+1 stops the run at N / N', () => {
    const r = run('working', {}, { max_turns: 2 });
    const one = applySignals(r, initialProgress(), [{ kind: 'turn_start' }, { kind: 'turn_end' }], ctx());
    expect(one.effects.filter((e) => e.kind === 'stop' || e.kind === 'close_input')).toEqual([{ kind: 'close_input' }]);
    const two = applySignals(one.run, one.state, [{ kind: 'turn_start' }, { kind: 'turn_end' }], ctx());
    expect(two.run.turns).toBe(2);
    expect(two.effects).toContainEqual({ kind: 'close_input' });
    expect(two.effects.filter((e) => e.kind === 'stop')).toEqual([]);
    const three = applySignals(two.run, two.state, [{ kind: 'turn_start' }], ctx());
    expect(three.effects).toContainEqual({ kind: 'stop', reason: 'budget', detail: 'turns' });
    expect(three.run.turns).toBe(2);
    expect(three.state.stoppedFor).toEqual({ reason: 'budget', detail: 'turns' });
  });

  it('max_turns N: what turn N+1 prints before the stop lands (the same read, or a later one) is not counted; its spend is', () => {
    const r = run('working', {}, { max_turns: 2 });
    const turn = (n: number) =>
      [
        { kind: 'turn_start' },
        { kind: 'tool', name: `Tool${n}`, input: n },
        { kind: 'text', text: `Turn ${n} done` },
        { kind: 'model_turn' },
        { kind: 'turn_end' },
      ] as const;
    const two = applySignals(r, initialProgress(), [...turn(1), ...turn(2)], ctx());
    expect(two.run).toMatchObject({ turns: 2, last_text: 'Turn 2 done', last_tool: 'Tool2' });
    // One read holds all of turn 3: stopped at its first line, the rest is not the run's.
    const three = applySignals(two.run, two.state, [...turn(3), { kind: 'usage', input: 10, output: 5, cached: 0 }], ctx());
    expect(three.effects.filter((e) => e.kind === 'stop')).toEqual([{ kind: 'stop', reason: 'budget', detail: 'turns' }]);
    expect(three.run).toMatchObject({ status: 'working', turns: 2, last_text: 'Turn 2 done', last_tool: 'Tool2' });
    expect(three.run.tokens).toMatchObject({ input: 10, output: 5 });
    expect(types(three)).not.toContain('idle');
    // A later read before the agent dies: still turn 3, still not counted; no second stop.
    const later = applySignals(three.run, three.state, [...turn(4)], ctx());
    expect(later.run).toMatchObject({ turns: 2, last_text: 'Turn 2 done' });
    expect(later.effects.filter((e) => e.kind === 'stop')).toEqual([]);
  });

  it('max_turns N: an interactive run does not go idle after turn N (no input could start N+1): its input closes', () => {
    const r = run('working', { interactive: true }, { max_turns: 1 });
    const p = applySignals(r, initialProgress(), [{ kind: 'turn_start' }, { kind: 'turn_end' }], ctx());
    expect(p.run).toMatchObject({ status: 'working', turns: 1 });
    expect(types(p)).not.toContain('idle');
    expect(p.effects).toContainEqual({ kind: 'close_input' });
    const under = applySignals(run('working', { interactive: true }, { max_turns: 2 }), initialProgress(), [{ kind: 'turn_end' }], ctx());
    expect(under.run.status).toBe('idle');
  });

  it('max_turns 0: the first turn never begins', () => {
    const p = applySignals(run('working', {}, { max_turns: 0 }), initialProgress(), [{ kind: 'turn_start' }], ctx());
    expect(p.effects).toContainEqual({ kind: 'stop', reason: 'budget', detail: 'turns' });
  });

  it('stop: a loop with action terminate ends the run `loop`', () => {
    let r = run('working', {}, { loop: 'terminate' });
    let st: ProgressState = initialProgress();
    const same: ProgressSignal[] = [{ kind: 'tool', name: 'Bash', input: { command: 'ls' } }, { kind: 'model_turn' }];
    const stops: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const p = applySignals(r, st, same, ctx());
      r = p.run;
      st = p.state;
      stops.push(...p.effects.filter((e) => e.kind === 'stop'));
      if (i === 2) expect(types(p)).toContain('loop_detected');
    }
    expect(stops).toEqual([{ kind: 'stop', reason: 'loop', detail: 'tool' }]);
  });

  it('send: a loop warning goes to an interactive agent once it is idle', () => {
    let r = run('working', { interactive: true }, { loop: 'warn' });
    let st: ProgressState = initialProgress();
    const turn: ProgressSignal[] = [{ kind: 'turn_start' }, { kind: 'text', text: 'same answer' }, { kind: 'turn_end' }];
    const sends: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const p = applySignals(r, st, turn, ctx());
      r = p.run;
      st = p.state;
      sends.push(...p.effects.filter((e) => e.kind === 'send'));
    }
    expect(sends).toHaveLength(1);
    expect(sends[0]).toMatchObject({ kind: 'send', text: expect.stringMatching(/loop/) });
    expect(st.pendingWarning).toBeNull();
  });

  it('fleet_usage: the tokens and cost this batch added, priced when the agent reports no cost', () => {
    const price = { input_per_mtok: 1_000_000, output_per_mtok: 2_000_000 };
    const p = applySignals(run('working'), initialProgress(), [{ kind: 'usage', input: 1, output: 2, cached: 0 }], ctx({ price }));
    expect(p.run.cost_usd).toBe(5);
    expect(p.effects).toContainEqual({ kind: 'fleet_usage', tokens: 3, cost: 5 });
    expect(applySignals(p.run, p.state, [{ kind: 'tool', name: 'x', input: null }], ctx({ price })).effects).toEqual([]);
  });

  it('budget_warning: once per meter at 80%', () => {
    const r = run('working', {}, { max_tokens: 10 });
    const p = applySignals(r, initialProgress(), [{ kind: 'usage', input: 8, output: 0, cached: 0 }], ctx());
    expect(p.events).toContainEqual({ type: 'budget_warning', data: { meter: 'tokens', used: 8, limit: 10, fraction: 0.8 } });
    const q = applySignals(p.run, p.state, [{ kind: 'usage', input: 1, output: 0, cached: 0 }], ctx());
    expect(types(q)).not.toContain('budget_warning');
  });

  it('leaves its inputs untouched', () => {
    const r = run('working', { interactive: true });
    const st = initialProgress();
    const copy = structuredClone({ r, st });
    applySignals(r, st, [{ kind: 'tool', name: 'x', input: 1 }, { kind: 'model_turn' }, { kind: 'turn_end' }], ctx());
    expect({ r, st }).toEqual(copy);
  });
});

describe('a two-way protocol opened (orcr starts its turns)', () => {
  const opened: ProgressSignal = { kind: 'opened', session_id: 'th-1' };
  const effects = (p: { effects: { kind: string }[] }): string[] => p.effects.map((e) => e.kind);

  it('starting with a prompt: at work, the prompt counted as input 1 and sent as the first turn', () => {
    const p = applySignals(run('starting', { prompt: 'fix it' }), initialProgress(), [opened], ctx());
    expect(p.run).toMatchObject({ status: 'working', session_id: 'th-1', input_seq: 1 });
    expect(types(p)).toEqual(['working']);
    expect(effects(p)).toContain('first_input');
  });

  it('the same answer read again (a restart re-reads it) sends nothing twice', () => {
    const first = applySignals(run('starting', { prompt: 'fix it' }), initialProgress(), [opened], ctx());
    const again = applySignals(first.run, first.state, [opened], ctx());
    expect(effects(again)).not.toContain('first_input');
    expect(again.run.input_seq).toBe(1);
    expect(types(again)).toEqual([]);
  });

  it('a later attempt (input counted before) sends its own prompt, numbered on', () => {
    const p = applySignals(run('starting', { prompt: 'go on', input_seq: 3 }), initialProgress(), [opened], ctx());
    expect(p.run.input_seq).toBe(4);
    expect(effects(p)).toContain('first_input');
  });

  it('an interactive run without a prompt waits for input; a one-shot one without a prompt is let exit', () => {
    const idle = applySignals(run('starting', { interactive: true }), initialProgress(), [opened], ctx());
    expect(idle.run.status).toBe('idle');
    expect(effects(idle)).not.toContain('first_input');
    const oneShot = applySignals(run('starting'), initialProgress(), [opened], ctx());
    expect(effects(oneShot)).toContain('close_input');
  });

  it('a reply is written back; a protocol error is an event, and a fatal one stops the run errored with its reason', () => {
    const reply = applySignals(run('working'), initialProgress(), [{ kind: 'reply', line: '{"id":1}\n' }], ctx());
    expect(reply.effects).toContainEqual({ kind: 'reply', line: '{"id":1}\n' });
    const soft = applySignals(run('working'), initialProgress(), [{ kind: 'protocol_error', message: 'bad frame', fatal: false }], ctx());
    expect(soft.events).toEqual([{ type: 'protocol_error', data: { message: 'bad frame', fatal: false } }]);
    expect(soft.effects.filter((e) => e.kind === 'stop')).toEqual([]);
    const fatal = applySignals(run('working'), initialProgress(), [{ kind: 'protocol_error', message: 'no session', fatal: true }], ctx());
    expect(fatal.effects).toContainEqual({ kind: 'stop', reason: 'errored', detail: 'protocol: no session' });
  });
});
