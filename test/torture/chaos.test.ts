// The short chaos run for every CI build; `npm run torture -- --minutes N` runs
// the same driver for longer and prints the same table.

import { describe, expect, it } from 'vitest';
import { runChaos, summaryTable } from './chaos.js';

const seconds = Number(process.env.ORCR_TORTURE_SECONDS ?? 30);

describe('chaos', () => {
  it(
    'loses nothing, starts nothing more often than its attempts, and never oversubscribes while the supervisor is SIGKILLed under churn — continued, retried and dependent runs in the mix',
    async () => {
      const r = await runChaos({
        seconds,
        minConfirmed: 30,
        seed: process.env.ORCR_TORTURE_SEED ? Number(process.env.ORCR_TORTURE_SEED) : undefined,
        log: (s) => console.log(s),
      });
      console.log(summaryTable(r));
      expect(r.problems).toEqual([]);
      expect(r.crashes).toBeGreaterThan(0);
      expect(r.enqueued).toBeGreaterThan(20);
      for (const [cap, limit] of Object.entries(r.limits)) expect(r.maxObserved[cap] ?? 0, cap).toBeLessThanOrEqual(limit);
      // The WAL stays bounded (checkpoints keep up with the churn).
      expect(r.walBytes).toBeLessThan(64 * 1024 * 1024);
      // The monitor really saw the fleet at full width.
      expect(r.maxObserved.global).toBeGreaterThan(1);
    },
    seconds * 3000 + 240_000,
  );
});
