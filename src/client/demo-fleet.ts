// The demo fleet that `orcr demo` and `orcr-tui --demo` both queue: its
// config and its run specs, a mix of simulated agents (orcr-mock-agent) across
// formats, scenarios, providers and workloads. Data only: nothing here starts,
// connects or writes.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceptsInput } from '../agents/input.js';
import { MOCK_FORMATS } from '../agents/registry.js';
import type { RunSpec } from '../config/run-spec.js';

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

function mockAgentPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../agents/mock-agent.js');
}

/** The demo fleet: a mix of formats and scenarios across providers and workloads. */
export function demoSpecs(cwd: string): RunSpec[] {
  const agent = [process.execPath, mockAgentPath()];
  const specs: RunSpec[] = [];
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
    for (const format of MOCK_FORMATS) {
      i++;
      // Only agents that take input after their prompt can be interactive,
      // and the limit and loop scenarios are theirs too.
      const takesInput = acceptsInput(format);
      if ((s.scenario === 'limit' || s.scenario === 'loop' || s.scenario === 'interactive') && !takesInput) continue;
      specs.push({
        name: `${s.scenario}-${format}-${i}`,
        provider: format,
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
