// After a hold lifts, its provider's waiting runs start at a pace (core/pace),
// and how long a usage limit holds (core/run-progress's holdFor). Pure: time
// is a parameter.

import { describe, expect, it } from 'vitest';
import { applyPaces, decidePaced, paceAfterLift, pacedWaiting, withPaceHolds } from '../../src/core/pace.js';
import { holdFor, RESET_RUSH_MS, SHORT_HOLD_MS } from '../../src/core/run-progress.js';
import { NOW, policy, waiter } from './admission-fixtures.js';

describe('a pace after a lift', () => {
  it('is set for as many runs as wait, when more than one does and the interval is not 0', () => {
    expect(paceAfterLift(5_000, 3, NOW)).toEqual({ interval_ms: 5_000, left: 3, next_at: NOW });
    expect(paceAfterLift(5_000, 1, NOW)).toBeNull();
    expect(paceAfterLift(0, 10, NOW)).toBeNull();
  });

  it('lets one run of its provider start, then holds it an interval; other providers start as they would', () => {
    const paces = { claude: { interval_ms: 1_000, left: 2, next_at: NOW } };
    const r = applyPaces([waiter('c1'), waiter('x1', { provider: 'codex' }), waiter('c2')], paces, NOW);
    expect(r.keep.map((w) => w.uuid)).toEqual(['c1', 'x1']);
    expect(r.back.map((w) => w.uuid)).toEqual(['c2']);
    expect(r.paces).toEqual({ claude: { interval_ms: 1_000, left: 1, next_at: NOW + 1_000 } });
    expect(applyPaces([waiter('c2')], r.paces, NOW + 999).back.map((w) => w.uuid)).toEqual(['c2']);
    // Its last paced start ends the pace.
    expect(applyPaces([waiter('c2')], r.paces, NOW + 1_000).paces).toEqual({});
  });

  it('decide under paces gives the slots a paced provider cannot take to others, in the same pass', () => {
    const waiters = [waiter('c1'), waiter('c2'), waiter('c3'), waiter('x1', { provider: 'codex' })];
    const r = decidePaced({ policy: policy({ max: 2 }), holders: [], waiters, now: NOW }, { claude: { interval_ms: 1_000, left: 3, next_at: NOW } });
    expect(r.promote).toEqual(['c1', 'x1']);
    expect(r.paces.claude).toMatchObject({ left: 2, next_at: NOW + 1_000 });
    // Without paces it is decide() itself.
    expect(decidePaced({ policy: policy({ max: 2 }), holders: [], waiters, now: NOW }, {}).promote).toEqual(['c1', 'c2']);
  });

  it('holds the provider until its next start, or its own hold if later; says why a run waits as the pace', () => {
    const paces = { claude: { interval_ms: 1_000, left: 2, next_at: NOW + 1_000 } };
    expect(withPaceHolds({ codex: NOW + 5 }, paces)).toEqual({ codex: NOW + 5, claude: NOW + 1_000 });
    expect(withPaceHolds({ claude: NOW + 9_000 }, paces)).toEqual({ claude: NOW + 9_000 });
    const held = {
      reason: 'hold' as const,
      name: 'claude',
      active: null,
      limit: null,
      reserved: null,
      until: new Date(NOW + 1_000).toISOString(),
      position: 2,
    };
    expect(pacedWaiting(held, paces, {}, NOW)).toMatchObject({ reason: 'pace', name: 'claude', active: 2, every_ms: 1_000 });
    // A hold of its own comes first.
    expect(pacedWaiting(held, paces, { claude: NOW + 9_000 }, NOW)).toBe(held);
  });
});

describe('how long a usage limit holds', () => {
  const LIMIT_HOLD = 300_000;
  it('as long as it says; briefly when what it says has passed (0)', () => {
    expect(holdFor(7_200, NOW, null, LIMIT_HOLD)).toBe(7_200_000);
    expect(holdFor(0, NOW, null, LIMIT_HOLD)).toBe(SHORT_HOLD_MS);
  });

  it("limit_hold when it says nothing, but briefly in the rush right after its provider's hold lifted", () => {
    expect(holdFor(null, NOW, null, LIMIT_HOLD)).toBe(LIMIT_HOLD);
    expect(holdFor(null, NOW, NOW - 5_000, LIMIT_HOLD)).toBe(SHORT_HOLD_MS);
    expect(holdFor(null, NOW, NOW - RESET_RUSH_MS, LIMIT_HOLD)).toBe(LIMIT_HOLD);
    // A new window met in the rush says so: it holds as long as it says.
    expect(holdFor(4 * 3_600, NOW, NOW - 5_000, LIMIT_HOLD)).toBe(4 * 3_600_000);
  });
});
