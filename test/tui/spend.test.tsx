// `$` with a real supervisor: the spend view reads the figures by provider and
// by workload, the fleet's meter and the last hour; esc goes back.

import './no-ci.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEY } from './helpers.js';
import { Home } from './home.js';
import { liveApp, type LiveApp } from './live-app.js';

let home: Home | null = null;
let app: LiveApp | null = null;

afterEach(() => {
  app?.close();
  app = null;
  home?.cleanup();
  home = null;
});

describe('the spend view', () => {
  it('$ shows spend by provider and workload against the fleet budget, and the last hour; $ or esc goes back', async () => {
    home = new Home({ budgets: { fleet: { max_cost_usd: 10 } } });
    const agent = (n: string, tokens: number, cost: number): string => {
      const f = path.join(home!.dir, `${n}.sh`);
      fs.writeFileSync(
        f,
        `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"usage","input_tokens":${tokens},"output_tokens":0,"cost_usd":${cost}}'\necho '{"type":"turn_end"}'\n`,
        { mode: 0o755 },
      );
      return f;
    };
    home.run(['-n', 'a1', '-a', 'alpha', '-w', 'review', '--protocol', 'jsonl', '--', agent('a1', 12_000, 3)]);
    home.run(['-n', 'b1', '-a', 'beta', '-w', 'review', '--protocol', 'jsonl', '--', agent('b1', 4_000, 1)]);
    expect(home.cli(['wait', '--all']).code).toBe(0);
    app = liveApp(home, { columns: 100, rows: 30 });
    const { until, press } = app;
    await until((f) => f.includes('Runs 2/2'), 'the runs');
    await press('$');
    const f = await until((x) => x.includes('BY PROVIDER') && x.includes('alpha'), 'the spend view');
    expect(f).toMatch(/Spend · runs live in all time/);
    expect(f).toMatch(/fleet cost\s+█+░+ \$4\.00 \/ \$10\.00 40%/);
    expect(f).toMatch(/alpha\s+1\s+12k\s+\$3\.00\s+█+░* 75%/);
    expect(f).toMatch(/beta\s+1\s+4\.0k\s+\$1\.00\s+█+░* 25%/);
    expect(f).toMatch(/BY WORKLOAD[\s\S]*review\s+2\s+16k\s+\$4\.00/);
    expect(f).toMatch(/peak 16k\/min · \$4\.00 in all/);
    await press(KEY.esc);
    await until((x) => x.includes('Runs 2/2') && !x.includes('BY PROVIDER'), 'back to the runs');
  });
});
