// `orcr demo`: a simulated fleet in a throw-away home, so a newcomer sees
// queues, caps, turns, limits and loops move without any agent CLI installed.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '../client/client.js';
import { ensureHome } from '../config/home.js';
import { DEMO_CONFIG, demoSpecs } from '../client/demo-fleet.js';
import { jsonText } from '../text/json-text.js';
import { UsageError } from './usage-error.js';

export async function runDemo(homeArg: string | undefined, json: boolean, write: (text: string) => void): Promise<number> {
  // A home we make is made private; one the user names is checked, not changed.
  const dir = homeArg ? path.resolve(homeArg) : fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-demo-'));
  if (!homeArg) fs.chmodSync(dir, 0o700);
  else {
    // The demo writes its own config and fills the journal: never into a real home or any other folder in use.
    let entries: string[] | null = null;
    try {
      entries = fs.readdirSync(dir);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new UsageError(`--home ${jsonText(homeArg)} is not a folder`, 'demo');
      if (code !== 'ENOENT') throw new UsageError(`--home ${jsonText(homeArg)}: ${(e as Error).message}`, 'demo');
    }
    if (entries !== null && entries.length > 0) {
      throw new UsageError(`--home ${jsonText(homeArg)} is not empty: give a new or empty folder (the demo writes its own config.json and runs there)`, 'demo');
    }
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  const home = ensureHome(dir);
  if (!fs.existsSync(home.config)) fs.writeFileSync(home.config, JSON.stringify(DEMO_CONFIG, null, 2) + '\n', { mode: 0o600 });
  process.env.ORCR_HOME = dir;
  const c = await Client.connect(home);
  const res = await c.call('run.enqueue', { specs: demoSpecs(dir) });
  c.close();
  if (json) {
    write(jsonText({ home: dir, runs: res.runs.map((r) => ({ name: r.name, uuid: r.uuid })) }, 2) + '\n');
  } else {
    write(
      `demo fleet of ${res.runs.length} simulated agents queued in ${dir}\n` +
        `watch it:   ORCR_HOME=${dir} orcr-tui\n` +
        `or:         ORCR_HOME=${dir} orcr ps\n` +
        // --kill-agents: a plain stop leaves the simulated agents running (agents outlive their supervisor).
        `stop it:    ORCR_HOME=${dir} orcr server stop --kill-agents, then remove the folder\n`,
    );
  }
  return 0;
}
