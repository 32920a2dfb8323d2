// The per-turn deadline's decision, time as a parameter.

import { describe, expect, it } from 'vitest';
import { mergeLimits } from '../../src/core/budget.js';
import { stallVerdict } from '../../src/core/stall.js';

const base = { status: 'working' as const, turnTimeoutMs: 1000, lastOutputAt: 10_000, stalled: false };

describe('stallVerdict', () => {
  it('waits until the last output plus the turn timeout, then calls it a stall with how long it was silent', () => {
    expect(stallVerdict({ ...base, now: 10_500 })).toEqual({ kind: 'wait', at: 11_000 });
    expect(stallVerdict({ ...base, now: 11_000 })).toEqual({ kind: 'stall', silentMs: 1000 });
    expect(stallVerdict({ ...base, now: 12_345 })).toEqual({ kind: 'stall', silentMs: 2345 });
  });

  it('runs no clock outside a turn, without a turn timeout, or once warned', () => {
    for (const status of ['starting', 'idle', 'blocked', 'queued', 'ended'] as const)
      expect(stallVerdict({ ...base, status, now: 99_000 })).toEqual({ kind: 'off' });
    expect(stallVerdict({ ...base, turnTimeoutMs: null, now: 99_000 })).toEqual({ kind: 'off' });
    expect(stallVerdict({ ...base, turnTimeoutMs: undefined, now: 99_000 })).toEqual({ kind: 'off' });
    expect(stallVerdict({ ...base, stalled: true, now: 99_000 })).toEqual({ kind: 'off' });
  });
});

describe('turn timeout scopes', () => {
  it('the lowest turn timeout wins; on_stall is the narrowest scope that sets it, terminate by default', () => {
    expect(mergeLimits({}).on_stall).toBe('terminate');
    expect(mergeLimits({ turn_timeout_ms: 60_000 }, { turn_timeout_ms: 5000 }, { turn_timeout_ms: null }).turn_timeout_ms).toBe(5000);
    expect(mergeLimits({ on_stall: 'warn' }, {}).on_stall).toBe('warn');
    expect(mergeLimits({ on_stall: 'warn' }, { on_stall: 'terminate' }).on_stall).toBe('terminate');
  });
});
