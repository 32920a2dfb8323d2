import { describe, expect, it } from 'vitest';
import { quotaNear, quotaText, windowName } from '../../src/text/quota.js';

describe('a usage window in words', () => {
  const now = new Date(2026, 11, 3, 12, 0).getTime();
  const at = (h: number, m: number, day = 3): string => new Date(2026, 11, day, h, m).toISOString();
  it('names the window, its share and its reset by the local clock (the day when not today)', () => {
    expect(quotaText({ provider: 'claude', window: 'five_hour', status: 'allowed_warning', utilization: 0.912, resets_at: at(16, 50) }, now)).toBe(
      'claude 5h 91% · resets 16:50',
    );
    expect(quotaText({ provider: 'claude', window: 'seven_day', status: 'allowed', utilization: 0.5, resets_at: at(9, 5, 7) }, now)).toBe(
      'claude 7d 50% · resets Dec 7 09:05',
    );
    expect(quotaText({ provider: 'claude', window: 'seven_day_opus', status: 'allowed_warning', utilization: null, resets_at: null }, now)).toBe(
      'claude 7d opus allowed warning',
    );
    expect(windowName('some_new_window')).toBe('some new window');
  });
  it("is near at 80% or at the agent's warning", () => {
    const q = { provider: 'claude', window: 'five_hour', resets_at: null };
    expect(quotaNear({ ...q, status: 'allowed', utilization: 0.79 })).toBe(false);
    expect(quotaNear({ ...q, status: 'allowed', utilization: 0.8 })).toBe(true);
    expect(quotaNear({ ...q, status: 'allowed_warning', utilization: null })).toBe(true);
  });
});
