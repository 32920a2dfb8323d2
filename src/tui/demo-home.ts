// `orcr-tui --demo`: a throw-away home with the demo fleet (the same one as
// `orcr demo`), created quietly so the TUI can open on it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '../client/client.js';
import { DEMO_CONFIG, demoSpecs } from '../cli/demo.js';
import { ensureHome } from '../config/home.js';

export async function createDemoHome(): Promise<{ dir: string; runs: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-'));
  fs.chmodSync(dir, 0o700);
  const home = ensureHome(dir);
  fs.writeFileSync(home.config, JSON.stringify(DEMO_CONFIG, null, 2) + '\n', { mode: 0o600 });
  const c = await Client.connect(home);
  try {
    const res = await c.call<{ runs: unknown[] }>('run.enqueue', { specs: demoSpecs(dir) });
    return { dir, runs: res.runs.length };
  } finally {
    c.close();
  }
}
