// What a renderer of the mock agent is, and what the renderers share. Each
// protocol's renderer (mock/claude.ts, …, named by its protocol's record)
// prints the mock agent's turns in that agent CLI's output format, modelled
// on what the real CLIs were observed to print (test/real/transcripts), and
// holds the state a real CLI carries across turns: Claude's cumulative
// session cost, Codex's and Gemini's running token totals.

import type { ToolStep, TurnPlan } from './plan.js';
import type { Rng } from './rng.js';

export interface Renderer {
  /** Printed once, before the first turn (Claude prints its init per turn instead). */
  start(): string[];
  /** One whole turn. */
  turn(plan: TurnPlan): string[];
  /** A turn that runs into a usage limit. */
  limit(): string[];
  /** Not logged in: what the CLI prints, and its exit code. */
  auth(): { lines: string[]; stderr?: string; code: number };
  /** One stdin line in interactive mode → the input text, or null to ignore it. */
  parseInput(line: string): string | null;
}

export const j = (o: unknown): string => JSON.stringify(o);

export function uuid(rng: Rng): string {
  return `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`;
}

export function parseJson(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export const anyLine = (line: string): string | null => (line.trim() === '' ? null : line.trim());

export const USAGE_LIMIT_EPOCH = 1767225600; // fixed, so transcripts stay deterministic

export function toolOutput(step: ToolStep): string {
  switch (step.action) {
    case 'shell':
      return `$ ${step.arg}\nok`;
    case 'read':
      return `// ${step.arg}\nexport {};`;
    case 'edit':
      return `The file ${step.arg} has been updated.`;
    case 'search':
      return `src/index.ts:1: ${step.arg}`;
  }
}

export function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
