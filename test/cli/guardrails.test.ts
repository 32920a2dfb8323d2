// Issue 4 acceptance through the real supervisor: budgets, cost, the fleet
// ceiling, loop detection and provider holds.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, MOCK_AGENT, NODE, ROOT, script, TestHome, until, useHomes } from '../support/harness.js';
import { roundCost } from '../../src/core/budget.js';
import type { PublicRun } from '../../src/protocol/views.js';

const home = useHomes();

/** A jsonl agent printing the given objects, one per line; `{"gate": "x"}` waits for file x in the home. */
function jsonlAgent(h: TestHome, name: string, steps: (Record<string, unknown> | { gate: string })[], exitCode = 0): string {
  const body = steps
    .map((s) =>
      'gate' in s
        ? `while [ ! -f "${path.join(h.dir, String(s.gate))}" ]; do sleep 0.02; done`
        : `printf '%s\\n' '${JSON.stringify(s)}'`,
    )
    .join('\n');
  return script(h, name, `#!/bin/sh\n${body}\nexit ${exitCode}\n`);
}


const turn = (input: number, output: number, cached = 0) => [
  { type: 'turn_start' },
  { type: 'usage', input_tokens: input, output_tokens: output, cached_tokens: cached },
  { type: 'turn_end' },
];

describe('guardrails', () => {
  it('a token budget of 1,000 lets a run reach exactly 1,000 and ends one at 1,001; cached tokens do not count', () => {
    const h = home();
    const exact = jsonlAgent(h, 'exact.sh', [{ type: 'ready' }, ...turn(900, 100, 50_000), { type: 'result', ok: true }]);
    const over = jsonlAgent(h, 'over.sh', [{ type: 'ready' }, ...turn(900, 101), { gate: 'never' }]);
    h.json(['run', '-n', 'exact', '--protocol', 'jsonl', '--max-tokens', '1000', '--', exact]);
    h.json(['run', '-n', 'over', '--protocol', 'jsonl', '--max-tokens', '1000', '--', over]);
    const w = h.cli(['wait', 'exact', 'over']);
    expect(w.stdout).toContain('exact completed');
    expect(w.stdout).toContain('over budget');
    const e = h.json<PublicRun>(['show', 'exact']);
    expect(e.budget.tokens).toMatchObject({ used: 1000, limit: 1000, fraction: 1 });
    expect(e.tokens.cached).toBe(50_000);
    expect(h.json<PublicRun>(['show', 'over'])).toMatchObject({ exit_reason: 'budget', exit_detail: 'tokens' });
  });

  it.each(['jsonl', 'claude', 'codex'])('--max-turns 2 on the %s mock: turn 3 never runs (budget at 2 / 2); an agent done in 2 turns completes', (format) => {
    const h = home();
    const mock = (turns: number) => [NODE, MOCK_AGENT, '--format', format, '--turns', String(turns), '--delay', '20'];
    h.json(['run', '-n', 'over', '--max-turns', '2', '--', ...mock(5)]);
    h.json(['run', '-n', 'exact', '--max-turns', '2', '--', ...mock(2)]);
    const w = h.cli(['wait', 'over', 'exact']);
    expect(w.stdout).toContain('over budget');
    expect(w.stdout).toContain('exact completed');
    const over = h.json<PublicRun>(['show', 'over']);
    expect(over).toMatchObject({ exit_reason: 'budget', exit_detail: 'turns', turns: 2 });
    expect(over.budget.turns).toMatchObject({ used: 2, limit: 2 });
    expect(over.last_text).not.toMatch(/Turn 3/);
    expect(h.json<PublicRun>(['show', 'exact'])).toMatchObject({ exit_reason: 'completed', turns: 2 });
  });

  it('--max-turns 1 on an interactive run: no idle after its turn (no input could be taken), it completes', () => {
    const h = home();
    h.json(['run', '-n', 'chat', '--interactive', '--max-turns', '1', '--', NODE, MOCK_AGENT, '--format', 'claude', '--scenario', 'interactive', '--prompt', 'hi', '--delay', '10']);
    expect(h.cli(['wait', 'chat']).stdout.trim()).toBe('chat completed');
    expect(h.json<PublicRun>(['show', 'chat'])).toMatchObject({ turns: 1, exit_reason: 'completed' });
  });

  it("uses Claude's reported cost as is and prices a jsonl agent's tokens from config", () => {
    const h = home({ providers: { pricey: { protocol: 'jsonl', price: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 } } } });
    const fixture = path.join(ROOT, 'test/fixtures/claude/two-turns.jsonl');
    const expected = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/claude/two-turns.expected.json'), 'utf8'));
    h.json(['run', '-n', 'claude', '--protocol', 'claude', '--', 'cat', fixture]);
    const agent = jsonlAgent(h, 'priced.sh', [{ type: 'ready' }, ...turn(1_000_000, 100_000, 1_000_000), { type: 'result', ok: true }]);
    h.json(['run', '-n', 'priced', '-a', 'pricey', '--', agent]);
    expect(h.cli(['wait', 'claude', 'priced']).code).toBe(0);
    expect(h.json<PublicRun>(['show', 'claude']).cost_usd).toBe(roundCost(expected.cost_usd));
    // 1M input × $3 + 100k output × $15 + 1M cached × $0.30
    expect(h.json<PublicRun>(['show', 'priced']).cost_usd).toBe(4.8);
  });

  it('refuses a cost ceiling without a price source at config load, naming the provider', () => {
    const h = home({ concurrency: { providers: { codex: 2 } }, budgets: { run: { max_cost_usd: 5 } } });
    const r = h.cli(['stats']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/providers\.codex\.price: .*provider "codex".*no price/);
    // Claude reports its own cost: no price needed.
    const ok = home({ concurrency: { providers: { claude: 2 } }, budgets: { run: { max_cost_usd: 5 } } });
    expect(ok.cli(['stats']).code).toBe(0);
    // On the command line too.
    const flag = ok.cli(['run', '--max-cost', '1', '--', 'true']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/price for provider "true"/);
  });

  it('--max-cost on a command: the refusal says how to get it accepted; claude and jsonl agents meter their own cost, codex needs a price', () => {
    const h = home();
    const unknown = h.cli(['run', '--max-cost', '1', '--', 'true']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'orcr: a cost ceiling (--max-cost) needs a price for provider "true" (providers.true.price in config.json), or an agent that reports its own cost: give --protocol claude or --protocol jsonl ("protocol" in a spec) if it does\n',
    );
    const codex = h.cli(['run', '--max-cost', '1', '--protocol', 'codex', '--', NODE, MOCK_AGENT, '--format', 'codex']);
    expect(codex.code).toBe(2);
    expect(codex.stderr).toMatch(/needs a price for provider "node" \(providers\.node\.price in config\.json\): codex agents do not report their own cost/);
    // A jsonl agent reports cost_usd with its usage: the ceiling is metered from that, and trips.
    const spender = jsonlAgent(h, 'spend.sh', [{ type: 'ready' }, { type: 'turn_start' }, { type: 'usage', input_tokens: 10, output_tokens: 10, cost_usd: 0.6 }, { type: 'usage', input_tokens: 10, output_tokens: 10, cost_usd: 0.6 }, { gate: 'never' }]);
    h.json(['run', '-n', 'j', '--max-cost', '1', '--protocol', 'jsonl', '--', spender]);
    expect(h.cli(['wait', 'j']).stdout.trim()).toBe('j budget');
    expect(h.json<PublicRun>(['show', 'j'])).toMatchObject({ exit_detail: 'cost_usd', cost_usd: 1.2 });
    // The claude mock reports total_cost_usd.
    h.json(['run', '-n', 'c', '--max-cost', '5', '--protocol', 'claude', '--', NODE, MOCK_AGENT, '--format', 'claude', '--turns', '1', '--delay', '5']);
    expect(h.cli(['wait', 'c']).stdout.trim()).toBe('c completed');
    // A provider whose preset says jsonl needs no price in config.json either.
    expect(home({ providers: { mine: { protocol: 'jsonl' } }, budgets: { run: { max_cost_usd: 5 } } }).cli(['stats']).code).toBe(0);
  });

  it('a crossed fleet budget lets in-flight runs finish their turn, cancels queued runs, and says so once', async () => {
    const h = home({ concurrency: { max: 2 }, budgets: { fleet: { max_tokens: 1000 } } });
    // a and b each spend 600 tokens mid-turn, then wait for a gate before ending their turn.
    const spender = (n: string) =>
      jsonlAgent(h, `${n}.sh`, [{ type: 'ready' }, { type: 'turn_start' }, { type: 'usage', input_tokens: 500, output_tokens: 100 }, { gate: `go-${n}` }, { type: 'turn_end' }, { type: 'result', ok: true }]);
    const lines = [
      { name: 'a', protocol: 'jsonl', command: [spender('a')] },
      { name: 'b', protocol: 'jsonl', command: [spender('b')] },
      { name: 'q1', command: ['true'] },
      { name: 'q2', command: ['true'] },
    ];
    expect(h.cli(['run', '--from', '-'], { input: lines.map((l) => JSON.stringify(l)).join('\n') }).code).toBe(0);
    await until(() => h.json<{ type: string }[]>(['events']).some((e) => e.type === 'budget_exceeded'), 'the fleet budget to be exceeded');
    expect(h.json<PublicRun>(['show', 'q1'])).toMatchObject({ exit_reason: 'canceled', exit_detail: 'fleet_budget' });
    expect(h.json<PublicRun>(['show', 'q2'])).toMatchObject({ exit_reason: 'canceled', exit_detail: 'fleet_budget' });
    expect(h.json<PublicRun>(['show', 'a']).status).toBe('working');
    const refused = h.cli(['run', '--', 'true']);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toMatch(/fleet budget/);
    fs.writeFileSync(path.join(h.dir, 'go-a'), '');
    fs.writeFileSync(path.join(h.dir, 'go-b'), '');
    const w = h.cli(['wait', 'a', 'b']);
    expect(w.stdout).toContain('a completed');
    expect(w.stdout).toContain('b completed');
    const events = h.json<{ type: string }[]>(['events']);
    expect(events.filter((e) => e.type === 'budget_exceeded')).toHaveLength(1);
    expect(h.json<{ fleet: { exceeded: boolean; meters: Record<string, { used: number; limit: number }> } }>(['stats']).fleet).toMatchObject({
      exceeded: true,
      meters: { tokens: { used: 1200, limit: 1000 } },
    });
  });

  it('terminate ends a looping agent as loop; warn flags it, sends one warning, then terminates on the next detection', () => {
    const h = home();
    h.json(['run', '-n', 'looper', '--loop', 'terminate', '--protocol', 'jsonl', '--', NODE, MOCK_AGENT, '--format', 'jsonl', '--scenario', 'loop', '--delay', '10']);
    expect(h.cli(['wait', 'looper']).stdout.trim()).toBe('looper loop');
    expect(h.json<PublicRun>(['show', 'looper']).loop).toMatchObject({ detected: true, repetitions: 3 });

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
    const stubborn = h.json<PublicRun>(['run', '-n', 'stubborn', '--interactive', '--protocol', 'jsonl', '--', repeat]);
    for (let i = 0; i < 2; i++) {
      expect(h.cli(['wait', 'stubborn']).stdout.trim()).toBe('stubborn turn_complete');
      h.cli(['send', 'stubborn', `try again ${i}`]);
    }
    const w = h.cli(['wait', 'stubborn']);
    // Turn 3 is detected (warn: one warning is sent, which is turn 4), turn 4 is detected again: terminated.
    const final = w.stdout.trim() === 'stubborn turn_complete' ? h.cli(['wait', 'stubborn']).stdout.trim() : w.stdout.trim();
    expect(final).toBe('stubborn loop');
    const inputs = fs.readFileSync(path.join(h.dir, 'inputs'), 'utf8').trim().split('\n');
    expect(inputs).toHaveLength(3);
    expect(inputs[2]).toMatch(/repeat|loop/i);
    const events = h.json<{ run: string; type: string; data: { action: string } }[]>(['events']).filter((e) => e.type === 'loop_detected' && e.run === stubborn.uuid);
    expect(events.map((e) => e.data.action)).toEqual(['warn', 'terminate']);
  });

  it('a usage limit holds only that provider, lifts on time, and the hold survives a restart', async () => {
    const h = home({ concurrency: { max: 4 } });
    // Long enough for every check before the restart on a loaded machine (at 8 s it lifted before them there).
    const limited = jsonlAgent(h, 'limited.sh', [{ type: 'ready' }, { type: 'turn_start' }, { type: 'blocked', kind: 'limit', retry_after_s: 20 }, { gate: 'never' }]);
    h.json(['run', '-n', 'hit', '-a', 'acme', '--protocol', 'jsonl', '--', limited]);
    await until(() => h.json<PublicRun>(['show', 'hit']).status === 'blocked', 'the run to be blocked');
    const hit = h.json<PublicRun>(['show', 'hit']);
    expect(hit.blocked_kind).toBe('limit');
    expect(hit.held_until).not.toBeNull();
    const wb = h.cli(['wait', 'hit']);
    expect(wb.stdout.trim()).toBe('hit blocked');
    expect(wb.code).toBe(4);

    h.json(['run', '-n', 'acme-2', '-a', 'acme', '--', 'true']);
    h.json(['run', '-n', 'other', '-a', 'zeta', '--', 'true']);
    expect(h.cli(['wait', 'other']).stdout.trim()).toBe('other completed');
    expect(h.json<PublicRun>(['show', 'acme-2']).status).toBe('queued');
    const stats = h.json<{ holds: Record<string, number>; caps: { cap: string; held_until: number | null }[] }>(['stats']);
    expect(stats.holds.acme).toBeGreaterThan(Date.now());
    expect(stats.caps.find((c) => c.cap === 'provider:acme')!.held_until).toBe(stats.holds.acme);

    // Restart: the hold is still there.
    const pid = h.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 'the supervisor to die');
    expect(h.json<{ holds: Record<string, number> }>(['stats']).holds.acme).toBe(stats.holds.acme);
    expect(h.json<PublicRun>(['show', 'acme-2']).status).toBe('queued');

    // It lifts on time by itself.
    expect(h.cli(['wait', 'acme-2', '--timeout', '60s']).stdout.trim()).toBe('acme-2 completed');
    // (the supervisor's clock is monotonic from its start: allow it a little drift from Date.now)
    expect(Date.now() + 100).toBeGreaterThanOrEqual(stats.holds.acme);
    const types = h.json<{ type: string }[]>(['events']).map((e) => e.type);
    expect(types).toContain('hold');
    expect(types).toContain('hold_lifted');
  });

  it('provider resume lifts a hold early', async () => {
    const h = home({ timings: { limit_hold: '1h' } });
    const limited = jsonlAgent(h, 'limited.sh', [{ type: 'ready' }, { type: 'blocked', kind: 'limit' }, { gate: 'never' }]);
    h.json(['run', '-n', 'hit', '-a', 'acme', '--protocol', 'jsonl', '--', limited]);
    await until(() => h.json<PublicRun>(['show', 'hit']).status === 'blocked', 'the run to be blocked');
    h.json(['run', '-n', 'next', '-a', 'acme', '--', 'true']);
    expect(h.json<PublicRun>(['show', 'next']).status).toBe('queued');
    const r = h.cli(['provider', 'resume', 'acme']);
    expect(r.stdout.trim()).toBe('acme resumed');
    expect(h.cli(['wait', 'next']).stdout.trim()).toBe('next completed');
    const again = h.cli(['provider', 'resume', 'acme']);
    expect(again.stderr).toBe('orcr: acme is not on hold\n');
    expect(again.code).toBe(4);
  });

  it('show --json and stats --json expose every meter and flag', () => {
    const h = home({ budgets: { fleet: { max_tokens: 1_000_000 } } });
    const agent = jsonlAgent(h, 'm.sh', [{ type: 'ready' }, ...turn(800, 50), { type: 'result', ok: true }]);
    h.json(['run', '-n', 'm', '--protocol', 'jsonl', '--max-tokens', '1000', '--max-turns', '5', '--timeout', '1h', '--', agent]);
    h.cli(['wait', 'm']);
    const r = h.json<PublicRun>(['show', 'm']);
    expect(Object.keys(r.budget).sort()).toEqual(['cost_usd', 'time_ms', 'tokens', 'turns']);
    expect(r.budget.tokens).toMatchObject({ used: 850, limit: 1000, fraction: 0.85, warn: true });
    expect(r.budget.turns).toMatchObject({ used: 1, limit: 5, fraction: 0.2, warn: false });
    expect(r.budget.time_ms!.limit).toBe(3_600_000);
    expect(r.loop).toEqual({ detected: false, warned: false, repetitions: expect.any(Number) });
    expect(r).toHaveProperty('held_until', null);
    const warnings = h.json<{ type: string; data: { meter: string } }[]>(['events']).filter((e) => e.type === 'budget_warning');
    expect(warnings.map((e) => e.data.meter)).toEqual(['tokens']);
    const s = h.json<{ fleet: { meters: Record<string, { used: number; limit: number | null; fraction: number | null }> }; holds: object }>(['stats']);
    expect(s.fleet.meters.tokens).toMatchObject({ used: 850, limit: 1_000_000 });
    expect(s.fleet.meters.cost_usd).toMatchObject({ limit: null });
    expect(s.holds).toEqual({});
  });
});
