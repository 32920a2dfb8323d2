// A live run's guard deadline and the fleet's verdict, time as a parameter: no timers.

import { describe, expect, it } from 'vitest';
import { fleetMeters, fleetVerdict, NO_LIMITS } from '../../src/core/budget.js';
import { nextGuard } from '../../src/core/guard.js';
import { newRun } from '../../src/core/run-record.js';
import type { Run, RunLimits, RunStatus } from '../../src/core/types.js';

const MAX_STARTING = 30_000;

function run(status: RunStatus, limits: Partial<RunLimits> = {}, over: Partial<Run> = {}): Run {
  return {
    ...newRun({ uuid: 'u', name: 'r', provider: 'p', workload: 'w', queue_seq: 1, command: ['x'], cwd: '/', now: 1_000, limits: { ...NO_LIMITS, ...limits } }),
    status,
    started_at: 1_000,
    status_at: 2_000,
    ...over,
  };
}

const clocks = { startedAt: 1_000, lastOutputAt: 2_000, stopping: false };

describe('nextGuard', () => {
  it('a starting run is failed stuck_start at start + timings.max_starting', () => {
    const g = nextGuard(run('starting', {}, { status_at: 1_000 }), clocks, MAX_STARTING, 5_000);
    expect(g).toEqual({ at: 31_000, due: { kind: 'stop', reason: 'failed', detail: 'stuck_start: no sign of life within timings.max_starting' } });
    // A continued run started long ago: its new attempt has max_starting from when it began starting again.
    expect(nextGuard(run('starting', {}, { started_at: 1_000, status_at: 900_000 }), clocks, MAX_STARTING, 900_500)?.at).toBe(930_000);
  });

  it('an idle run with idle_after is reaped as completed at its idle time + idle_after', () => {
    expect(nextGuard(run('idle', { idle_after_ms: 1500 }), clocks, MAX_STARTING, 2_100)).toEqual({
      at: 3_500,
      due: { kind: 'stop', reason: 'completed', detail: 'idle_reaped' },
    });
    expect(nextGuard(run('idle'), clocks, MAX_STARTING, 2_100)).toBeNull();
  });

  it('the timeout counts from the start, not from the last status change, and the earliest clock wins', () => {
    expect(nextGuard(run('working', { timeout_ms: 10_000 }), clocks, MAX_STARTING, 5_000)).toEqual({
      at: 11_000,
      due: { kind: 'stop', reason: 'timeout', detail: null },
    });
    expect(nextGuard(run('idle', { timeout_ms: 1_000, idle_after_ms: 60_000 }), clocks, MAX_STARTING, 1_500)?.due).toEqual({
      kind: 'stop',
      reason: 'timeout',
      detail: null,
    });
    // The start guard stands alone while starting: a timeout counts from the agent's start.
    expect(nextGuard(run('starting', { timeout_ms: 1 }, { status_at: 1_000 }), clocks, MAX_STARTING, 1_500)?.due.kind).toBe('stop');
    expect(nextGuard(run('starting', { timeout_ms: 1 }, { status_at: 1_000 }), clocks, MAX_STARTING, 1_500)?.at).toBe(31_000);
  });

  it("a continued run's timeout counts from its first attempt's start, the wait between attempts included", () => {
    const attempt = {
      n: 1,
      kind: 'continue' as const,
      started_at: 1_000,
      ended_at: 4_000,
      reason: 'errored' as const,
      detail: 'limit',
      session_id: 's',
      prompt: null,
    };
    const r = run('working', { timeout_ms: 10_000 }, { attempts: [attempt] });
    // This attempt's watch began at 50,000: the whole run's 10 s were over long before.
    expect(nextGuard(r, { ...clocks, startedAt: 50_000, lastOutputAt: 50_000 }, MAX_STARTING, 50_001)).toEqual({
      at: 11_000,
      due: { kind: 'stop', reason: 'timeout', detail: null },
    });
  });

  it('a silent turn is a stall at its last output (or its start, if later) + turn_timeout; due now once past it', () => {
    const working = run('working', { turn_timeout_ms: 1_000 });
    expect(nextGuard(working, { ...clocks, lastOutputAt: 2_500 }, MAX_STARTING, 3_000)).toEqual({
      at: 3_500,
      due: { kind: 'stall', silentMs: 1_000, since: 2_500 },
    });
    expect(nextGuard(working, { ...clocks, lastOutputAt: 500 }, MAX_STARTING, 3_000)?.at).toBe(3_000);
    expect(nextGuard(working, clocks, MAX_STARTING, 4_000)).toEqual({ at: 4_000, due: { kind: 'stall', silentMs: 2_000, since: 2_000 } });
  });

  it('runs no stall clock once warned or while a kill is under way, and no clock at all once a stop is under way', () => {
    const working = run('working', { turn_timeout_ms: 1_000, timeout_ms: 60_000 });
    expect(nextGuard({ ...working, stalled_since: 2_000 }, clocks, MAX_STARTING, 9_000)?.due.kind).toBe('stop');
    expect(nextGuard({ ...working, kill_requested_at: 3_000 }, clocks, MAX_STARTING, 9_000)?.due.kind).toBe('stop');
    expect(nextGuard(working, { ...clocks, stopping: true }, MAX_STARTING, 9_000)).toBeNull();
  });

  it('queued and ended runs have no clocks', () => {
    expect(nextGuard(run('queued', { timeout_ms: 1 }), clocks, MAX_STARTING, 9_000)).toBeNull();
    expect(nextGuard(run('ended', { timeout_ms: 1 }), clocks, MAX_STARTING, 9_000)).toBeNull();
  });
});

describe('fleetVerdict', () => {
  const budget = { max_tokens: 1000, max_cost_usd: null, window: 'all' as const };
  it('warns once past 80%, trips once over, resets once back under', () => {
    const at = (tokens: number) => fleetMeters({ tokens, cost_usd: 0 }, budget);
    expect(fleetVerdict(at(100), false, new Set())).toEqual({ warn: [], change: { kind: 'same' } });
    expect(fleetVerdict(at(850), false, new Set()).warn.map((m) => m.name)).toEqual(['tokens']);
    expect(fleetVerdict(at(850), false, new Set(['tokens'])).warn).toEqual([]);
    const over = fleetVerdict(at(1001), false, new Set(['tokens']));
    expect(over.change.kind).toBe('trip');
    expect(over.change.kind === 'trip' && over.change.meter.name).toBe('tokens');
    expect(fleetVerdict(at(1200), true, new Set()).change).toEqual({ kind: 'same' });
    expect(fleetVerdict(at(10), true, new Set()).change).toEqual({ kind: 'reset' });
  });
});
