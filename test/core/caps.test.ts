import { describe, expect, it } from 'vitest';
import { capKey, GLOBAL_CAP, parseCap, providerCap, workloadCap, type Cap } from '../../src/core/caps.js';

describe('caps on the wire', () => {
  it('are written as stats --json has always named them, and read back to the same cap', () => {
    const caps: [Cap, string][] = [
      [GLOBAL_CAP, 'global'],
      [{ kind: 'provider', name: 'claude' }, 'provider:claude'],
      [{ kind: 'workload', name: 'batch' }, 'workload:batch'],
      // A loop's workload has a colon of its own: the kind is what comes before the first.
      [{ kind: 'workload', name: 'loop:nightly' }, 'workload:loop:nightly'],
    ];
    for (const [cap, key] of caps) {
      expect(capKey(cap)).toBe(key);
      expect(parseCap(key)).toEqual(cap);
    }
    expect(providerCap('codex')).toBe('provider:codex');
    expect(workloadCap('default')).toBe('workload:default');
  });

  it('a name of no kind known here reads as null, not as a guess', () => {
    for (const key of ['', 'globa', ':x', 'account:claude', 'provider', 'Global']) expect(parseCap(key), key).toBeNull();
    // An empty name is still a provider's cap: the kind is known.
    expect(parseCap('provider:')).toEqual({ kind: 'provider', name: '' });
  });
});
