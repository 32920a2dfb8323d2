// `orcr demo` (and with it `npm start`, which opens the TUI on the same fleet)
// must enqueue its whole fleet: every spec in it has to pass validation.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, NODE, TestHome } from '../support/harness.js';
import { spawnSync } from 'node:child_process';

describe('demo', () => {
  it('queues a varied fleet in a throw-away home', () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-t-')), 'home');
    const r = spawnSync(NODE, [CLI, 'demo', '--home', dir, '--json'], { encoding: 'utf8', env: { ...process.env, ORCR_HOME: dir } });
    const h = Object.assign(Object.create(TestHome.prototype) as TestHome, { dir });
    try {
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { home: string; runs: { name: string }[] };
      expect(out.home).toBe(dir);
      expect(out.runs.length).toBeGreaterThan(20);
      const names = out.runs.map((x) => x.name);
      for (const scenario of ['work', 'interactive', 'slow-start', 'loop', 'limit', 'crash']) {
        expect(
          names.some((n) => n.startsWith(scenario)),
          scenario,
        ).toBe(true);
      }
    } finally {
      h.cleanup();
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
  });
});
