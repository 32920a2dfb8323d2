// The supervisor's one lifecycle mode: what each mode writes and admits, and
// that a degrade keeps the pause and the drain it interrupted.

import { describe, expect, it } from 'vitest';
import { admits, degraded, degradedReason, isDraining, isPaused, recovered, RUNNING, STOPPING, withDraining, withPaused, writes } from '../../src/core/mode.js';

describe('mode', () => {
  it('only running admits; degraded and stopping write nothing', () => {
    expect([RUNNING, withPaused(RUNNING, true), withDraining(RUNNING), degraded(RUNNING, 'disk'), STOPPING].map((m) => [m.kind, admits(m), writes(m)])).toEqual(
      [
        ['running', true, true],
        ['paused', false, true],
        ['draining', false, true],
        ['degraded', false, false],
        ['stopping', false, false],
      ],
    );
  });

  it('a degrade remembers the pause and the drain, and a recovery resumes them', () => {
    const m = degraded(withDraining(withPaused(RUNNING, true)), 'disk full');
    expect(degradedReason(m)).toBe('disk full');
    expect([isPaused(m), isDraining(m)]).toEqual([true, true]);
    const back = recovered(m);
    expect(back).toEqual({ kind: 'draining', paused: true });
    expect(recovered(withPaused(degraded(RUNNING, 'x'), true))).toEqual({ kind: 'paused' });
    expect(withPaused(back, false)).toEqual({ kind: 'draining', paused: false });
  });

  it('a second degrade keeps the first reason; stopping is final', () => {
    expect(degradedReason(degraded(degraded(RUNNING, 'first'), 'second'))).toBe('first');
    expect(degraded(STOPPING, 'x')).toBe(STOPPING);
    expect(withPaused(STOPPING, true)).toBe(STOPPING);
    expect(withDraining(STOPPING)).toBe(STOPPING);
  });
});
