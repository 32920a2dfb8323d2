// orcr spend: tokens and cost by provider and by workload over the fleet
// budget's window, the fleet's meters, and the last hour.

import { describe, expect, it } from 'vitest';
import { script } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

describe('orcr spend', () => {
  it('sums the runs of each provider and workload, in text and --json', async () => {
    const h = await home({ budgets: { fleet: { max_cost_usd: 10 } } });
    const agent = (tokens: number, cost: number): string =>
      script(
        h,
        `spend-${tokens}.sh`,
        `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"usage","input_tokens":${tokens},"output_tokens":0,"cost_usd":${cost}}'\necho '{"type":"turn_end"}'\n`,
      );
    await h.run(['-n', 'a1', '-a', 'alpha', '-w', 'review', '--protocol', 'jsonl', '--', agent(1000, 0.5)]);
    await h.run(['-n', 'a2', '-a', 'alpha', '-w', 'build', '--protocol', 'jsonl', '--', agent(3000, 1.25)]);
    await h.run(['-n', 'b1', '-a', 'beta', '-w', 'review', '--protocol', 'jsonl', '--', agent(500, 0.25)]);
    expect(await h.waitCode('--all')).toBe(0);
    const s = await h.json<{
      by_provider: { key: string; runs: number; tokens: number; cost: number }[];
      by_workload: { key: string; cost: number }[];
      per_minute: { tokens: number }[];
      fleet: { meters: Record<string, { used: number; limit: number }> };
    }>(['spend']);
    expect(s.by_provider).toEqual([
      { key: 'alpha', runs: 2, tokens: 4000, cost: 1.75 },
      { key: 'beta', runs: 1, tokens: 500, cost: 0.25 },
    ]);
    expect(s.by_workload.map((w) => [w.key, w.cost])).toEqual([
      ['build', 1.25],
      ['review', 0.75],
    ]);
    expect(s.per_minute.reduce((a, m) => a + m.tokens, 0)).toBe(4500);
    expect(s.fleet.meters.cost_usd).toMatchObject({ used: 2, limit: 10 });
    const text = (await h.cli(['spend'])).stdout;
    expect(text).toMatch(/^spend over all time/);
    expect(text).toMatch(/fleet cost: \$2 of \$10/);
    expect(text).toMatch(/alpha\s+2\s+4k\s+\$1\.75$/m);
    expect(text).toMatch(/last hour: 4\.5k tokens, \$2$/m);
    expect((await h.cli(['spend', 'extra'])).code).toBe(2);
  });
});
