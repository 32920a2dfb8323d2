// The demo fleet that `orcr demo` and `orcr-tui --demo` both queue: its
// config and its run specs, a mix of simulated agents (orcr-mock-agent) across
// formats, scenarios, providers and workloads — among the first to start, two
// that ask before they act and one that asks a question (Claude Code's), and
// one each of Codex's app-server and ACP asking in theirs, so a newcomer
// meets the approvals queue in the first minute. Data only: nothing here starts,
// connects or writes.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { acceptsInput } from '../agents/input.js';
import { agentProtocol, ASKING_MOCK_FORMATS, MOCK_FORMATS } from '../agents/registry.js';
import type { RunSpec } from '../config/run-spec.js';

export const DEMO_CONFIG = {
  concurrency: {
    max: 10,
    // The runs that ask hold their slots while they wait for a person: room for them and for the rest.
    providers: { claude: 5, codex: 2, 'codex-app': 2, gemini: 2, acp: 2 },
    // The runs that ask lead the queue (the first thing a newcomer should meet), ahead of review's.
    workloads: { asks: { priority: 9 }, review: { reserved: 1, priority: 5 }, batch: { max: 3 } },
  },
  timings: { kill_grace: '3s', limit_hold: '45s', idle_after: '5m' },
  providers: {
    codex: { price: { input_per_mtok: 1.25, output_per_mtok: 10 } },
    'codex-app': { price: { input_per_mtok: 1.25, output_per_mtok: 10 } },
    gemini: { price: { input_per_mtok: 0.3, output_per_mtok: 2.5 } },
    acp: { price: { input_per_mtok: 0.3, output_per_mtok: 2.5 } },
    jsonl: { price: { input_per_mtok: 1, output_per_mtok: 4 } },
  },
};

function mockAgentPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../agents/mock-agent.js');
}

/** What the asking runs work on: each command, new file or edit is asked first; the last one asks a question first. */
const ASKING = [
  { scenario: 'ask', prompt: 'Add a health check endpoint' },
  { scenario: 'ask', prompt: 'Fix the flaky login test' },
  { scenario: 'ask-question', prompt: 'Set up the database layer' },
] as const;

/**
 * Runs that ask before they act, queued first: the first format whose
 * requests orcr reads (its protocol says so) asks all three; every other
 * such format (Codex's app-server, ACP) asks once, each in its own words.
 */
function askingSpecs(cwd: string, agent: string[]): RunSpec[] {
  const [first, ...others] = ASKING_MOCK_FORMATS;
  if (!first) return [];
  const spec = (format: (typeof ASKING_MOCK_FORMATS)[number], a: (typeof ASKING)[number], n: number): RunSpec => ({
    name: `${a.scenario}-${format}-${n}`,
    provider: format,
    protocol: format,
    workload: 'asks',
    cwd,
    prompt: a.prompt,
    command: [...agent, '--format', format, '--scenario', a.scenario, '--delay', '400', '--seed', String(n)],
  });
  return [...ASKING.map((a, i) => spec(first, a, i + 1)), ...others.map((format) => spec(format, ASKING[0], 1))];
}

/** The demo fleet: a mix of formats and scenarios across providers and workloads; the runs that ask lead it. */
export function demoSpecs(cwd: string): RunSpec[] {
  const agent = [process.execPath, mockAgentPath()];
  const specs: RunSpec[] = askingSpecs(cwd, agent);
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
        // A two-way protocol's agent works only on the turns orcr starts: without a prompt it would do nothing.
        ...(agentProtocol(format)?.conversation ? { prompt: 'Fix the failing tests' } : {}),
        ...(s.extra ?? {}),
      });
    }
  }
  specs.push({ name: 'plain-sleep', cwd, command: ['sh', '-c', 'for i in 1 2 3 4 5 6; do echo "step $i"; sleep 1; done'] });
  return specs;
}
