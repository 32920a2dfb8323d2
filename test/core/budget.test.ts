import { describe, expect, it } from 'vitest';
import {
  mayBeginTurn,
  costFromTokens,
  firstTrip,
  fleetMeters,
  fullest,
  mergeLimits,
  NO_LIMITS,
  runCost,
  runMeters,
  tripReason,
  type FleetBudget,
  type Meter,
  type RunUsage,
} from '../../src/core/budget.js';
import type { RunLimits } from '../../src/core/types.js';

const limits = (l: Partial<RunLimits>): RunLimits => ({ ...NO_LIMITS, ...l });
const usage = (u: Partial<RunUsage> & { input?: number; output?: number; cached?: number } = {}): RunUsage => ({
  turns: u.turns ?? 0,
  tokens: { input: u.input ?? 0, output: u.output ?? 0, cached: u.cached ?? 0 },
  cost_usd: u.cost_usd ?? 0,
  elapsed_ms: u.elapsed_ms ?? 0,
});
const get = (meters: Meter[], name: Meter['name']): Meter => {
  const m = meters.find((x) => x.name === name);
  if (!m) throw new Error(`no meter ${name}`);
  return m;
};

describe('run meters', () => {
  it('token budget 1,000: exactly 1,000 does not trip, 1,001 trips', () => {
    const at = get(runMeters(usage({ input: 600, output: 400 }), limits({ max_tokens: 1000 })), 'tokens');
    expect(at).toMatchObject({ used: 1000, limit: 1000, fraction: 1, tripped: false, warn: true });
    const over = get(runMeters(usage({ input: 600, output: 401 }), limits({ max_tokens: 1000 })), 'tokens');
    expect(over).toMatchObject({ used: 1001, tripped: true });
  });

  it('cached tokens do not count against max_tokens', () => {
    const m = get(runMeters(usage({ input: 500, output: 500, cached: 1_000_000 }), limits({ max_tokens: 1000 })), 'tokens');
    expect(m).toMatchObject({ used: 1000, tripped: false });
  });

  it('warns at 80% and not below', () => {
    const l = limits({ max_turns: 10, max_tokens: 1000 });
    expect(get(runMeters(usage({ turns: 8 }), l), 'turns')).toMatchObject({ fraction: 0.8, warn: true, tripped: false });
    expect(get(runMeters(usage({ turns: 7 }), l), 'turns')).toMatchObject({ warn: false });
    expect(get(runMeters(usage({ input: 799 }), l), 'tokens').warn).toBe(false);
    expect(get(runMeters(usage({ input: 800 }), l), 'tokens').warn).toBe(true);
  });

  it('cost warns at 80% and trips only above the ceiling despite float rounding', () => {
    const l = limits({ max_cost_usd: 0.3 });
    expect(get(runMeters(usage({ cost_usd: 0.24 }), l), 'cost_usd').warn).toBe(true);
    expect(get(runMeters(usage({ cost_usd: 0.1 + 0.2 }), l), 'cost_usd').tripped).toBe(false);
    expect(get(runMeters(usage({ cost_usd: 0.31 }), l), 'cost_usd').tripped).toBe(true);
  });

  it('timeout trips only when elapsed > limit', () => {
    const l = limits({ timeout_ms: 60_000 });
    expect(get(runMeters(usage({ elapsed_ms: 59_999 }), l), 'time_ms').tripped).toBe(false);
    expect(get(runMeters(usage({ elapsed_ms: 60_000 }), l), 'time_ms').tripped).toBe(false);
    const over = runMeters(usage({ elapsed_ms: 60_001 }), l);
    const trip = firstTrip(over);
    expect(trip?.name).toBe('time_ms');
    expect(tripReason(trip as Meter)).toBe('timeout');
  });

  it('turns trip strictly above max_turns and map to the budget reason', () => {
    const l = limits({ max_turns: 3 });
    expect(firstTrip(runMeters(usage({ turns: 3 }), l))).toBeNull();
    const trip = firstTrip(runMeters(usage({ turns: 4 }), l));
    expect(trip?.name).toBe('turns');
    expect(tripReason(trip as Meter)).toBe('budget');
  });

  it('a turn may begin only while fewer than max_turns have ended: turn N+1 never starts', () => {
    expect(mayBeginTurn(0, null)).toBe(true);
    expect(mayBeginTurn(1e9, null)).toBe(true);
    expect(mayBeginTurn(1, 2)).toBe(true);
    expect(mayBeginTurn(2, 2)).toBe(false);
    expect(mayBeginTurn(3, 2)).toBe(false);
    expect(mayBeginTurn(0, 0)).toBe(false);
  });

  it('no ceiling: fraction null, never warns or trips', () => {
    for (const m of runMeters(usage({ turns: 1e9, input: 1e12, cost_usd: 1e6, elapsed_ms: 1e12 }), NO_LIMITS)) {
      expect(m).toMatchObject({ limit: null, fraction: null, warn: false, tripped: false });
    }
  });

  it('a zero ceiling reads as full and trips on any use', () => {
    const l = limits({ max_cost_usd: 0 });
    expect(get(runMeters(usage({ cost_usd: 0 }), l), 'cost_usd')).toMatchObject({ fraction: 1, tripped: false });
    expect(get(runMeters(usage({ cost_usd: 0.01 }), l), 'cost_usd')).toMatchObject({ fraction: 1, tripped: true });
  });

  it('fullest picks the highest fraction and skips meters without a limit', () => {
    const meters = runMeters(usage({ turns: 5, input: 900, elapsed_ms: 1 }), limits({ max_turns: 10, max_tokens: 1000, timeout_ms: 1000 }));
    expect(fullest(meters)?.name).toBe('tokens');
    expect(fullest(runMeters(usage({ turns: 5 }), NO_LIMITS))).toBeNull();
  });
});

describe('mergeLimits', () => {
  it('defaults to no ceilings and loop warn', () => {
    expect(mergeLimits()).toEqual(NO_LIMITS);
  });

  it('keeps the lower of two ceilings, whatever the scope order', () => {
    const global = { max_tokens: 10_000, max_turns: 50, timeout_ms: 600_000 };
    const run = { max_tokens: 2_000, max_turns: 80 };
    const merged = mergeLimits(global, run);
    expect(merged).toMatchObject({ max_tokens: 2_000, max_turns: 50, timeout_ms: 600_000 });
    expect(mergeLimits(run, global)).toEqual(merged);
  });

  it('null at a narrower scope does not widen a wider ceiling', () => {
    expect(mergeLimits({ max_cost_usd: 5, idle_after_ms: 1000 }, { max_cost_usd: null, idle_after_ms: null })).toMatchObject({
      max_cost_usd: 5,
      idle_after_ms: 1000,
    });
    expect(mergeLimits({ max_cost_usd: null }, { max_cost_usd: 5 }).max_cost_usd).toBe(5);
  });

  it('loop is not a ceiling: the last scope that sets it wins', () => {
    expect(mergeLimits({ loop: 'terminate' }, { loop: 'off' }).loop).toBe('off');
    expect(mergeLimits({ loop: 'terminate' }, { max_turns: 3 }).loop).toBe('terminate');
  });
});

describe('fleet', () => {
  it('meters the usage it is given against the fleet ceilings', () => {
    const budget: FleetBudget = { max_tokens: 1_000, max_cost_usd: null, window: 'all' };
    const [tokens, cost] = fleetMeters({ tokens: 6_100, cost_usd: 6.1 }, budget);
    expect(tokens).toMatchObject({ name: 'tokens', used: 6_100, tripped: true });
    expect(cost).toMatchObject({ name: 'cost_usd', fraction: null, tripped: false });
  });

  it('fleet trips are strictly greater-than too', () => {
    const budget: FleetBudget = { max_tokens: 1_100, max_cost_usd: 1, window: { rolling_ms: 60_000 } };
    expect(firstTrip(fleetMeters({ tokens: 1_100, cost_usd: 1 }, budget))).toBeNull();
    expect(firstTrip(fleetMeters({ tokens: 1_101, cost_usd: 1 }, budget))).toMatchObject({ name: 'tokens' });
  });
});

describe('cost', () => {
  const price = { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 };

  it('computes cost from tokens, cached priced at the cached rate', () => {
    expect(costFromTokens({ input: 1_000_000, output: 100_000, cached: 2_000_000 }, price)).toBeCloseTo(3 + 1.5 + 0.6);
  });

  it('cached tokens fall back to the input price', () => {
    expect(costFromTokens({ input: 0, output: 0, cached: 1_000_000 }, { input_per_mtok: 3, output_per_mtok: 15 })).toBeCloseTo(3);
  });

  it('the reported cost is used as is', () => {
    expect(runCost(1.2345, { input: 1_000_000, output: 0, cached: 0 }, price)).toBe(1.2345);
    expect(runCost(0, { input: 1_000_000, output: 0, cached: 0 }, price)).toBe(0);
  });

  it('otherwise it is computed from prices, or unknown without one', () => {
    expect(runCost(null, { input: 1_000_000, output: 0, cached: 0 }, price)).toBeCloseTo(3);
    expect(runCost(null, { input: 1_000_000, output: 0, cached: 0 }, null)).toBeNull();
  });
});
