// `orcr demo`: a simulated fleet in a throw-away home, so a newcomer sees
// queues, caps, turns, limits and loops move without any agent CLI installed.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '../client/client.js';
import { ensureHome } from '../config/home.js';
import type { RunSpec } from '../config/run-spec.js';
import { jsonText } from '../text/json-text.js';
import { UsageError } from './usage-error.js';

export const DEMO_CONFIG = {
  concurrency: {
    max: 8,
    providers: { claude: 3, codex: 2, gemini: 2 },
    workloads: { review: { reserved: 1, priority: 5 }, batch: { max: 3 } },
  },
  timings: { kill_grace: '3s', limit_hold: '45s', idle_after: '5m' },
  providers: {
    codex: { price: { input_per_mtok: 1.25, output_per_mtok: 10 } },
    gemini: { price: { input_per_mtok: 0.3, output_per_mtok: 2.5 } },
    jsonl: { price: { input_per_mtok: 1, output_per_mtok: 4 } },
  },
};

export function mockAgentPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../agents/mock-agent.js');
}

/** The demo fleet: a mix of formats and scenarios across providers and workloads. */
export function demoSpecs(cwd: string): RunSpec[] {
  const agent = [process.execPath, mockAgentPath()];
  const specs: RunSpec[] = [];
  const formats = ['claude', 'codex', 'gemini', 'jsonl'] as const;
  const scenarios: { scenario: string; turns: number; delay: number; workload?: string; extra?: Partial<RunSpec> }[] = [
    { scenario: 'work', turns: 4, delay: 400 },
    { scenario: 'work', turns: 8, delay: 700, workload: 'batch' },
    { scenario: 'interactive', turns: 1, delay: 300, extra: { interactive: true, prompt: 'Fix the failing tests' } },
    { scenario: 'work', turns: 3, delay: 500, workload: 'review' },
    { scenario: 'slow-start', turns: 3, delay: 300 },
    { scenario: 'loop', turns: 20, delay: 600, extra: { loop: 'warn' } },
    { scenario: 'limit', turns: 1, delay: 500 },
    { scenario: 'crash', turns: 2, delay: 400 },
    { scenario: 'work', turns: 12, delay: 900, workload: 'batch', extra: { max_tokens: 20_000 } },
  ];
  let i = 0;
  for (const s of scenarios) {
    for (const format of formats) {
      i++;
      // Only claude and jsonl agents take input after their prompt: the others
      // cannot be interactive, and the limit and loop scenarios are theirs too.
      const takesInput = format === 'claude' || format === 'jsonl';
      if ((s.scenario === 'limit' || s.scenario === 'loop' || s.scenario === 'interactive') && !takesInput) continue;
      const provider = format === 'jsonl' ? 'jsonl' : format;
      specs.push({
        name: `${s.scenario}-${format}-${i}`,
        provider,
        protocol: format,
        workload: s.workload,
        cwd,
        command: [...agent, '--format', format, '--scenario', s.scenario, '--turns', String(s.turns), '--delay', String(s.delay), '--seed', String(i)],
        ...(s.extra ?? {}),
      });
    }
  }
  specs.push({ name: 'plain-sleep', cwd, command: ['sh', '-c', 'for i in 1 2 3 4 5 6; do echo "step $i"; sleep 1; done'] });
  return specs;
}

export async function runDemo(homeArg: string | undefined, json: boolean): Promise<number> {
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
  const res = await c.call<{ runs: { name: string; uuid: string }[] }>('run.enqueue', { specs: demoSpecs(dir) });
  c.close();
  if (json) {
    process.stdout.write(jsonText({ home: dir, runs: res.runs.map((r) => ({ name: r.name, uuid: r.uuid })) }, 2) + '\n');
  } else {
    process.stdout.write(
      `demo fleet of ${res.runs.length} simulated agents queued in ${dir}\n` +
        `watch it:   ORCR_HOME=${dir} orcr-tui\n` +
        `or:         ORCR_HOME=${dir} orcr ps\n` +
        `stop it:    ORCR_HOME=${dir} orcr server stop  (then remove the folder)\n`,
    );
  }
  return 0;
}
