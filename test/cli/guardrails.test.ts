// Issue 4 acceptance through the real supervisor: budgets, cost, the fleet
// ceiling, loop detection and provider holds.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCK_AGENT, NODE, ROOT, script, until, useHomes } from '../support/harness.js';
import { useLiveHomes, useServedHomes } from '../support/in-process.js';
import { roundCost } from '../../src/core/budget.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor the spawned CLI starts: to see it refuse a config. */
const spawned = useHomes();
/** Homes whose supervisor is a process of its own, to SIGKILL it. */
const served = useServedHomes();

/** A jsonl agent printing the given objects, one per line; `{"gate": "x"}` waits for file x in the home. */
function jsonlAgent(h: { dir: string }, name: string, steps: (Record<string, unknown> | { gate: string })[], exitCode = 0): string {
  const body = steps
    .map((s) => ('gate' in s ? `while [ ! -f "${path.join(h.dir, String(s.gate))}" ]; do sleep 0.02; done` : `printf '%s\\n' '${JSON.stringify(s)}'`))
    .join('\n');
  return script(h, name, `#!/bin/sh\n${body}\nexit ${exitCode}\n`);
}

const turn = (input: number, output: number, cached = 0) => [
  { type: 'turn_start' },
  { type: 'usage', input_tokens: input, output_tokens: output, cached_tokens: cached },
  { type: 'turn_end' },
];

describe('guardrails', () => {
  it('a token budget of 1,000 lets a run reach exactly 1,000 and ends one at 1,001; cached tokens do not count', async () => {
    const h = await home();
    const exact = jsonlAgent(h, 'exact.sh', [{ type: 'ready' }, ...turn(900, 100, 50_000), { type: 'result', ok: true }]);
    const over = jsonlAgent(h, 'over.sh', [{ type: 'ready' }, ...turn(900, 101), { gate: 'never' }]);
    await h.run(['-n', 'exact', '--protocol', 'jsonl', '--max-tokens', '1000', '--', exact]);
    await h.run(['-n', 'over', '--protocol', 'jsonl', '--max-tokens', '1000', '--', over]);
    const w = await h.wait('exact', 'over');
    expect(w).toContain('exact completed');
    expect(w).toContain('over budget');
    const e = await h.show('exact');
    expect(e.budget.tokens).toMatchObject({ used: 1000, limit: 1000, fraction: 1 });
    expect(e.tokens.cached).toBe(50_000);
    expect(await h.show('over')).toMatchObject({ exit_reason: 'budget', exit_detail: 'tokens' });
  });

  it.each(['jsonl', 'claude', 'codex'])(
    '--max-turns 2 on the %s mock: turn 3 never runs (budget at 2 / 2); an agent done in 2 turns completes',
    async (format) => {
      const h = await home();
      const mock = (turns: number) => [NODE, MOCK_AGENT, '--format', format, '--turns', String(turns), '--delay', '20'];
      await h.run(['-n', 'over', '--max-turns', '2', '--', ...mock(5)]);
      await h.run(['-n', 'exact', '--max-turns', '2', '--', ...mock(2)]);
      const w = await h.wait('over', 'exact');
      expect(w).toContain('over budget');
      expect(w).toContain('exact completed');
      const over = await h.show('over');
      expect(over).toMatchObject({ exit_reason: 'budget', exit_detail: 'turns', turns: 2 });
      expect(over.budget.turns).toMatchObject({ used: 2, limit: 2 });
      expect(over.last_text).not.toMatch(/Turn 3/);
      expect(await h.show('exact')).toMatchObject({ exit_reason: 'completed', turns: 2 });
    },
  );

  it('--max-turns 1 on an interactive run: no idle after its turn (no input could be taken), it completes', async () => {
    const h = await home();
    await h.run([
      '-n',
      'chat',
      '--interactive',
      '--max-turns',
      '1',
      '--',
      NODE,
      MOCK_AGENT,
      '--format',
      'claude',
      '--scenario',
      'interactive',
      '--prompt',
      'hi',
      '--delay',
      '10',
    ]);
    // orcr was given no prompt (the agent has its own): the run is idle at turn 0, waiting for a first input, until
    // the agent starts on it; a wait may settle there. What matters is after the turn: it ends, never idle.
    const chat = await until(async () => {
      const r = await h.show('chat');
      return r.status === 'ended' && r;
    }, 'chat to end');
    expect(chat).toMatchObject({ turns: 1, exit_reason: 'completed' });
    expect(await h.wait('chat')).toBe('chat completed');
    const idles = (await h.events<{ run: string; type: string; data: { turn: number } }>()).filter((e) => e.run === chat.uuid && e.type === 'idle');
    expect(idles.map((e) => e.data.turn)).toEqual([0]);
  });

  it("uses Claude's reported cost as is and prices a jsonl agent's tokens from config", async () => {
    const h = await home({ providers: { pricey: { protocol: 'jsonl', price: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 } } } });
    const fixture = path.join(ROOT, 'test/fixtures/claude/two-turns.jsonl');
    const expected = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/claude/two-turns.expected.json'), 'utf8'));
    await h.run(['-n', 'claude', '--protocol', 'claude', '--', 'cat', fixture]);
    const agent = jsonlAgent(h, 'priced.sh', [{ type: 'ready' }, ...turn(1_000_000, 100_000, 1_000_000), { type: 'result', ok: true }]);
    await h.run(['-n', 'priced', '-a', 'pricey', '--', agent]);
    // The claude transcript meets a rate limit on its way (blocked a moment): wait past it.
    await until(async () => (await h.settle(['claude', 'priced'])).every((r) => r.token !== 'blocked'), 'both runs to settle past the block');
    expect(await h.waitCode('claude', 'priced')).toBe(0);
    expect((await h.show('claude')).cost_usd).toBe(roundCost(expected.cost_usd));
    // 1M input × $3 + 100k output × $15 + 1M cached × $0.30
    expect((await h.show('priced')).cost_usd).toBe(4.8);
  });

  it('refuses a cost ceiling without a price source at config load, naming the provider', async () => {
    const h = spawned({ concurrency: { providers: { codex: 2 } }, budgets: { run: { max_cost_usd: 5 } } });
    const r = h.cli(['stats']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/providers\.codex\.price: .*provider "codex".*no price/);
    // Claude reports its own cost: no price needed.
    const ok = await home({ concurrency: { providers: { claude: 2 } }, budgets: { run: { max_cost_usd: 5 } } });
    expect((await ok.cli(['stats'])).code).toBe(0);
    // On the command line too.
    const flag = await ok.cli(['run', '--max-cost', '1', '--', 'true']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/price for provider "true"/);
  });

  it('--max-cost on a command: the refusal says how to get it accepted; claude and jsonl agents meter their own cost, codex needs a price', async () => {
    const h = await home();
    const unknown = await h.cli(['run', '--max-cost', '1', '--', 'true']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'orcr: a cost ceiling (--max-cost) needs a price for provider "true" (providers.true.price in config.json), or an agent that reports its own cost: give --protocol claude or --protocol jsonl ("protocol" in a spec) if it does\n',
    );
    const codex = await h.cli(['run', '--max-cost', '1', '--protocol', 'codex', '--', NODE, MOCK_AGENT, '--format', 'codex']);
    expect(codex.code).toBe(2);
    expect(codex.stderr).toMatch(/needs a price for provider "node" \(providers\.node\.price in config\.json\): codex agents do not report their own cost/);
    // A jsonl agent reports cost_usd with its usage: the ceiling is metered from that, and trips.
    const spender = jsonlAgent(h, 'spend.sh', [
      { type: 'ready' },
      { type: 'turn_start' },
      { type: 'usage', input_tokens: 10, output_tokens: 10, cost_usd: 0.6 },
      { type: 'usage', input_tokens: 10, output_tokens: 10, cost_usd: 0.6 },
      { gate: 'never' },
    ]);
    await h.run(['-n', 'j', '--max-cost', '1', '--protocol', 'jsonl', '--', spender]);
    expect(await h.wait('j')).toBe('j budget');
    expect(await h.show('j')).toMatchObject({ exit_detail: 'cost_usd', cost_usd: 1.2 });
    // The claude mock reports total_cost_usd.
    await h.run(['-n', 'c', '--max-cost', '5', '--protocol', 'claude', '--', NODE, MOCK_AGENT, '--format', 'claude', '--turns', '1', '--delay', '5']);
    expect(await h.wait('c')).toBe('c completed');
    // A provider whose preset says jsonl needs no price in config.json either: a supervisor starts on it.
    const mine = await home({ providers: { mine: { protocol: 'jsonl' } }, budgets: { run: { max_cost_usd: 5 } } });
    await mine.startSupervisor();
    expect(mine.running).toBe(true);
  });

  it('a crossed fleet budget lets in-flight runs finish their turn, cancels queued runs, and says so once', async () => {
    const h = await home({ concurrency: { max: 2 }, budgets: { fleet: { max_tokens: 1000 } } });
    // a and b each spend 600 tokens mid-turn, then wait for a gate before ending their turn.
    const spender = (n: string) =>
      jsonlAgent(h, `${n}.sh`, [
        { type: 'ready' },
        { type: 'turn_start' },
        { type: 'usage', input_tokens: 500, output_tokens: 100 },
        { gate: `go-${n}` },
        { type: 'turn_end' },
        { type: 'result', ok: true },
      ]);
    const lines = [
      { name: 'a', protocol: 'jsonl', command: [spender('a')] },
      { name: 'b', protocol: 'jsonl', command: [spender('b')] },
      { name: 'q1', command: ['true'] },
      { name: 'q2', command: ['true'] },
    ];
    expect(await h.runFrom(lines)).toHaveLength(4);
    await until(async () => (await h.events<{ type: string }>()).some((e) => e.type === 'budget_exceeded'), 'the fleet budget to be exceeded');
    expect(await h.show('q1')).toMatchObject({ exit_reason: 'canceled', exit_detail: 'fleet_budget' });
    expect(await h.show('q2')).toMatchObject({ exit_reason: 'canceled', exit_detail: 'fleet_budget' });
    expect((await h.show('a')).status).toBe('working');
    const refused = await h.cli(['run', '--', 'true']);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toMatch(/fleet budget/);
    fs.writeFileSync(path.join(h.dir, 'go-a'), '');
    fs.writeFileSync(path.join(h.dir, 'go-b'), '');
    const w = await h.wait('a', 'b');
    expect(w).toContain('a completed');
    expect(w).toContain('b completed');
    const events = await h.events<{ type: string }>();
    expect(events.filter((e) => e.type === 'budget_exceeded')).toHaveLength(1);
    expect((await h.stats<{ fleet: { exceeded: boolean; meters: Record<string, { used: number; limit: number }> } }>()).fleet).toMatchObject({
      exceeded: true,
      meters: { tokens: { used: 1200, limit: 1000 } },
    });
  });

  it('terminate ends a looping agent as loop; warn flags it, sends one warning, then terminates on the next detection', async () => {
    const h = await home();
    await h.run([
      '-n',
      'looper',
      '--loop',
      'terminate',
      '--protocol',
      'jsonl',
      '--',
      NODE,
      MOCK_AGENT,
      '--format',
      'jsonl',
      '--scenario',
      'loop',
      '--delay',
      '10',
    ]);
    expect(await h.wait('looper')).toBe('looper loop');
    // 3 at the detection; a line more may be read before the agent is gone (its lines 10 ms apart, a loaded machine's reads batched).
    const { loop } = await h.show('looper');
    expect(loop.detected).toBe(true);
    expect(loop.repetitions).toBeGreaterThanOrEqual(3);

    // An interactive agent that repeats one tool call every turn, whatever it is told.
    const repeat = script(
      h,
      'repeat.sh',
      `#!/bin/sh
echo '{"type":"ready"}'
turn() { echo '{"type":"turn_start"}'; echo '{"type":"tool","name":"Bash","input":{"command":"npm test"}}'; echo '{"type":"turn_end"}'; }
turn
while IFS= read -r line; do echo "$line" >> "${h.dir}/inputs"; turn; done
`,
    );
    const stubborn = await h.run(['-n', 'stubborn', '--interactive', '--protocol', 'jsonl', '--', repeat]);
    for (let i = 0; i < 2; i++) {
      expect(await h.wait('stubborn')).toBe('stubborn turn_complete');
      await h.send('stubborn', `try again ${i}`);
    }
    // Turn 3 is detected (warn: one warning is sent, which is turn 4), turn 4 is detected again: terminated.
    // A wait asked while the run is still idle after turn 3 answers turn_complete at once, before the warning
    // has gone out — 200 such answers took 100 ms of a loaded CI run — so the run's end is waited for, then asked.
    await until(async () => (await h.show('stubborn')).status === 'ended', 'stubborn to be terminated');
    expect(await h.wait('stubborn')).toBe('stubborn loop');
    const inputs = fs.readFileSync(path.join(h.dir, 'inputs'), 'utf8').trim().split('\n');
    expect(inputs).toHaveLength(3);
    expect(inputs[2]).toMatch(/repeat|loop/i);
    const events = (await h.events<{ run: string; type: string; data: { action: string } }>()).filter(
      (e) => e.type === 'loop_detected' && e.run === stubborn.uuid,
    );
    expect(events.map((e) => e.data.action)).toEqual(['warn', 'terminate']);
  });

  it('a usage limit holds only that provider, lifts on time, and the hold survives a restart', async () => {
    const h = served({ concurrency: { max: 4 } });
    await h.start();
    // Long enough for every check before the restart on a loaded machine (at 8 s it lifted before them there).
    const limited = jsonlAgent(h, 'limited.sh', [
      { type: 'ready' },
      { type: 'turn_start' },
      { type: 'blocked', kind: 'limit', retry_after_s: 20 },
      { gate: 'never' },
    ]);
    await h.run(['-n', 'hit', '-a', 'acme', '--protocol', 'jsonl', '--', limited]);
    await until(async () => (await h.show('hit')).status === 'blocked', 'the run to be blocked');
    const hit = await h.show('hit');
    expect(hit.blocked_kind).toBe('limit');
    expect(hit.held_until).not.toBeNull();
    expect(await h.wait('hit')).toBe('hit blocked');
    expect(await h.waitCode('hit')).toBe(4);

    await h.run(['-n', 'acme-2', '-a', 'acme', '--', 'true']);
    await h.run(['-n', 'other', '-a', 'zeta', '--', 'true']);
    expect(await h.wait('other')).toBe('other completed');
    expect((await h.show('acme-2')).status).toBe('queued');
    const stats = await h.stats<{ holds: Record<string, number>; caps: { cap: string; held_until: number | null }[] }>();
    expect(stats.holds.acme).toBeGreaterThan(Date.now());
    expect(stats.caps.find((c) => c.cap === 'provider:acme')!.held_until).toBe(stats.holds.acme);

    // Restart: the hold is still there.
    await h.killSupervisor();
    await h.start();
    expect((await h.stats<{ holds: Record<string, number> }>()).holds.acme).toBe(stats.holds.acme);
    expect((await h.show('acme-2')).status).toBe('queued');

    // It lifts on time by itself.
    expect((await h.settle(['acme-2'], 60_000)).map((r) => `${r.name} ${r.token}`)).toEqual(['acme-2 completed']);
    // (the supervisor's clock is monotonic from its start: allow it a little drift from Date.now)
    expect(Date.now() + 100).toBeGreaterThanOrEqual(stats.holds.acme!);
    const types = (await h.events<{ type: string }>()).map((e) => e.type);
    expect(types).toContain('hold');
    expect(types).toContain('hold_lifted');
  });

  it('provider resume lifts a hold early', async () => {
    const h = await home({ timings: { limit_hold: '1h' } });
    const limited = jsonlAgent(h, 'limited.sh', [{ type: 'ready' }, { type: 'blocked', kind: 'limit' }, { gate: 'never' }]);
    await h.run(['-n', 'hit', '-a', 'acme', '--protocol', 'jsonl', '--', limited]);
    await until(async () => (await h.show('hit')).status === 'blocked', 'the run to be blocked');
    await h.run(['-n', 'next', '-a', 'acme', '--', 'true']);
    expect((await h.show('next')).status).toBe('queued');
    const r = await h.cli(['provider', 'resume', 'acme']);
    expect(r.stdout.trim()).toBe('acme resumed');
    expect(await h.wait('next')).toBe('next completed');
    const again = await h.cli(['provider', 'resume', 'acme']);
    expect(again.stderr).toBe('orcr: acme is not on hold\n');
    expect(again.code).toBe(4);
  });

  it('show --json and stats --json expose every meter and flag', async () => {
    const h = await home({ budgets: { fleet: { max_tokens: 1_000_000 } } });
    const agent = jsonlAgent(h, 'm.sh', [{ type: 'ready' }, ...turn(800, 50), { type: 'result', ok: true }]);
    await h.run(['-n', 'm', '--protocol', 'jsonl', '--max-tokens', '1000', '--max-turns', '5', '--timeout', '1h', '--', agent]);
    await h.wait('m');
    const r = await h.show('m');
    expect(Object.keys(r.budget).sort()).toEqual(['cost_usd', 'time_ms', 'tokens', 'turns']);
    expect(r.budget.tokens).toMatchObject({ used: 850, limit: 1000, fraction: 0.85, warn: true });
    expect(r.budget.turns).toMatchObject({ used: 1, limit: 5, fraction: 0.2, warn: false });
    expect(r.budget.time_ms.limit).toBe(3_600_000);
    expect(r.loop).toEqual({ detected: false, warned: false, repetitions: expect.any(Number) });
    expect(r).toHaveProperty('held_until', null);
    const warnings = (await h.events<{ type: string; data: { meter: string } }>()).filter((e) => e.type === 'budget_warning');
    expect(warnings.map((e) => e.data.meter)).toEqual(['tokens']);
    const s = await h.stats<{ fleet: { meters: Record<string, { used: number; limit: number | null; fraction: number | null }> }; holds: object }>();
    expect(s.fleet.meters.tokens).toMatchObject({ used: 850, limit: 1_000_000 });
    expect(s.fleet.meters.cost_usd).toMatchObject({ limit: null });
    expect(s.holds).toEqual({});
  });
});
