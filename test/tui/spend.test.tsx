// `$` with a real supervisor: the spend view reads the figures by provider and
// by workload, the fleet's meter and the last hour; esc goes back.

import './no-ci.js';
import fs from 'node:fs';
import path from 'node:path';
import React from 'react';
import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/tui/app.js';
import { ensureHome } from '../../src/config/home.js';
import { Controller } from '../../src/tui/connection/controller.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { KEY, tick } from './helpers.js';
import { Home, waitFor } from './home.js';

let home: Home | null = null;
let controller: Controller | null = null;
let unmount: (() => void) | null = null;

afterEach(() => {
  unmount?.();
  controller?.stop();
  home?.cleanup();
  unmount = null;
  controller = null;
  home = null;
});

describe('the spend view', () => {
  it('$ shows spend by provider and workload against the fleet budget, and the last hour; $ or esc goes back', async () => {
    home = new Home({ budgets: { fleet: { max_cost_usd: 10 } } });
    const agent = (n: string, tokens: number, cost: number): string => {
      const f = path.join(home!.dir, `${n}.sh`);
      fs.writeFileSync(f, `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"usage","input_tokens":${tokens},"output_tokens":0,"cost_usd":${cost}}'\necho '{"type":"turn_end"}'\n`, { mode: 0o755 });
      return f;
    };
    home.run(['-n', 'a1', '-a', 'alpha', '-w', 'review', '--protocol', 'jsonl', '--', agent('a1', 12_000, 3)]);
    home.run(['-n', 'b1', '-a', 'beta', '-w', 'review', '--protocol', 'jsonl', '--', agent('b1', 4_000, 1)]);
    expect(home.cli(['wait', '--all']).code).toBe(0);
    const store = createTuiStore({ home: home.dir });
    const ctl = new Controller(store, ensureHome(home.dir), { env: { TERM: 'xterm' }, cwd: home.dir, statsIntervalMs: 200 });
    controller = ctl;
    ctl.start();
    const inst = render(React.createElement(App, { store, actions: ctl, themes: loadThemes([builtinThemeDir()]), onExit: () => undefined, size: { columns: 100, rows: 30 } }));
    unmount = () => inst.unmount();
    const frame = (): string => inst.lastFrame() ?? '';
    const until = (pred: (f: string) => boolean, what: string): Promise<string> => waitFor(() => (pred(frame()) ? frame() : null), () => `${what}; last frame:\n${frame()}`, 15_000);
    await until((f) => f.includes('Runs 2/2'), 'the runs');
    inst.stdin.write('$');
    await tick();
    const f = await until((x) => x.includes('BY PROVIDER') && x.includes('alpha'), 'the spend view');
    expect(f).toMatch(/Spend · runs live in all time/);
    expect(f).toMatch(/fleet cost\s+█+░+ \$4\.00 \/ \$10\.00 40%/);
    expect(f).toMatch(/alpha\s+1\s+12k\s+\$3\.00\s+█+░* 75%/);
    expect(f).toMatch(/beta\s+1\s+4\.0k\s+\$1\.00\s+█+░* 25%/);
    expect(f).toMatch(/BY WORKLOAD[\s\S]*review\s+2\s+16k\s+\$4\.00/);
    expect(f).toMatch(/peak 16k\/min · \$4\.00 in all/);
    inst.stdin.write(KEY.esc);
    await until((x) => x.includes('Runs 2/2') && !x.includes('BY PROVIDER'), 'back to the runs');
  });
});
