import { describe, expect, it } from 'vitest';
import { mergeLimits, NO_LIMITS } from '../../src/core/budget.js';
import { CEILING_NAMES, flagCeilings, limitsOf, lineAliases } from '../../src/core/limits.js';

describe("a run's ceilings, declared once", () => {
  it('keep the names people write: config.json says timeout, a line timeout (or max_cost), a flag --timeout', () => {
    expect(CEILING_NAMES).toEqual(['max_turns', 'max_tokens', 'max_cost_usd', 'timeout_ms', 'idle_after_ms', 'turn_timeout_ms']);
    expect(lineAliases()).toEqual({ timeout: 'timeout_ms', idle_after: 'idle_after_ms', turn_timeout: 'turn_timeout_ms', max_cost: 'max_cost_usd' });
    expect(flagCeilings()).toEqual({
      'max-turns': 'max_turns',
      'max-tokens': 'max_tokens',
      'max-cost': 'max_cost_usd',
      timeout: 'timeout_ms',
      'idle-after': 'idle_after_ms',
      'turn-timeout': 'turn_timeout_ms',
    });
  });

  it("a config scope's limits are under the run's names; what it leaves out it does not set", () => {
    expect(limitsOf({ max_turns: 3, max_tokens: null, max_cost_usd: null, timeout: 60_000, turn_timeout: 5_000, on_stall: 'warn' })).toEqual({
      max_turns: 3,
      max_tokens: null,
      max_cost_usd: null,
      timeout_ms: 60_000,
      turn_timeout_ms: 5_000,
      on_stall: 'warn',
    });
    expect(limitsOf({ timeout: 1000 })).toEqual({ timeout_ms: 1000 });
    expect(limitsOf(undefined)).toEqual({});
    // budgets.run, a provider's, then a spec (its names are the run's): the lowest ceiling wins.
    const merged = mergeLimits(limitsOf({ timeout: 60_000, max_turns: 10 }), limitsOf({ timeout: 30_000 }), { max_turns: 4, timeout_ms: 45_000 });
    expect(merged).toEqual({ ...NO_LIMITS, timeout_ms: 30_000, max_turns: 4 });
  });
});
