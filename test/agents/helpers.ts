// Shared by the adapter tests: feed lines through an adapter, load fixtures.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Protocol } from '../../src/core/types.js';
import { createAdapter } from '../../src/agents/registry.js';
import type { Adapter, Signal } from '../../src/agents/signals.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export const SIGNAL_KINDS = new Set([
  'alive',
  'turn_start',
  'turn_end',
  'usage',
  'tool',
  'text',
  'result',
  'blocked',
  'output',
  'quota',
  'agent_retry',
  'approval',
  'approval_withdrawn',
  'denied',
  'opened',
  'reply',
  'protocol_error',
]);

/** Every line, then end(): the whole signal stream of one process. */
export function feed(adapter: Adapter, lines: readonly string[]): Signal[] {
  const out: Signal[] = [];
  for (const l of lines) out.push(...adapter.line(l));
  out.push(...(adapter.end?.() ?? []));
  return out;
}

interface Expected {
  turns: number;
  tokens: { input: number; output: number; cached: number };
  cost_usd: number;
  tools: string[];
  final_text: string | null;
  ok: boolean | null;
  blocked?: { kind: string; retry_after_s?: number };
}

export interface Fixture {
  protocol: Protocol;
  name: string;
  lines: string[];
  expected: Expected;
}

export function loadFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const protocol of ['claude', 'codex', 'gemini', 'jsonl'] as const) {
    const dir = `${FIXTURES}${protocol}/`;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.jsonl')) continue;
      const name = file.slice(0, -'.jsonl'.length);
      const lines = readFileSync(dir + file, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const expected = JSON.parse(readFileSync(`${dir}${name}.expected.json`, 'utf8')) as Expected;
      out.push({ protocol, name, lines, expected });
    }
  }
  return out;
}

/** Each turn_end is preceded by exactly one turn_start, and turns never nest. */
export function assertTurnsPaired(signals: readonly Signal[]): void {
  let open = false;
  for (const s of signals) {
    if (s.kind === 'turn_start') {
      if (open) throw new Error('turn_start inside an open turn');
      open = true;
    } else if (s.kind === 'turn_end') {
      if (!open) throw new Error('turn_end without turn_start');
      open = false;
    }
  }
}

/**
 * Each recorded session of a two-way protocol read as printed and spaced out
 * (no head a fast path looks for matches, so each line is parsed whole): the
 * signals of each line, both ways, for the caller to compare.
 */
export function readBothWays(
  protocol: Protocol,
  dir: string,
  printed: (scenario: string) => string[],
): { scenario: string; fast: unknown[]; whole: unknown[] }[] {
  const spaced = (l: string): string => JSON.stringify(JSON.parse(l), null, 1).replace(/\n\s*/g, ' ');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.slice(0, -'.jsonl'.length))
    .map((scenario) => {
      const fast = createAdapter(protocol, { modelTurns: true, now: () => 0 });
      const whole = createAdapter(protocol, { modelTurns: true, now: () => 0 });
      const lines = printed(scenario);
      return { scenario, fast: lines.map((l) => fast.line(l)), whole: lines.map((l) => whole.line(spaced(l))) };
    });
}
