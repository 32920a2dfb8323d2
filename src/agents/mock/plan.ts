// What the mock agent does in one turn, independent of output format: which
// tools it calls, what it says, what it costs. Renderers turn a plan into a
// given agent CLI's lines.

import type { Rng } from './rng.js';

export type Action = 'shell' | 'read' | 'edit' | 'search';

export interface ToolStep {
  action: Action;
  /** The command, path or pattern. */
  arg: string;
}

export interface TurnPlan {
  index: number;
  prompt: string;
  tools: ToolStep[];
  intro: string;
  final: string;
  /** Normalized usage, as the adapters report it (input excludes cache reads). */
  usage: { input: number; output: number; cached: number; cacheWrite: number };
  /** This turn's cost in USD. */
  cost: number;
}

const COMMANDS = ['npm test', 'npm run build', 'git status', 'ls src', 'npx tsc --noEmit'];
const FILES = ['src/index.ts', 'src/parser.ts', 'src/math.ts', 'README.md', 'test/parser.test.ts'];
const PATTERNS = ['TODO', 'export function', 'throw new Error'];

// Sonnet-like prices per token; only for plausible-looking numbers.
const PRICE = { input: 3e-6, cacheWrite: 3.75e-6, cached: 0.3e-6, output: 15e-6 };

export function planTurn(rng: Rng, index: number, prompt: string): TurnPlan {
  const tools: ToolStep[] = [];
  const count = rng.int(1, 3);
  for (let i = 0; i < count; i++) {
    const action = rng.pick<Action>(['shell', 'read', 'edit', 'search']);
    const arg = action === 'shell' ? rng.pick(COMMANDS) : action === 'search' ? rng.pick(PATTERNS) : rng.pick(FILES);
    tools.push({ action, arg });
  }
  return withUsage(rng, {
    index,
    prompt,
    tools,
    intro: `Working on: ${prompt}`,
    final: `Turn ${index + 1} done: ${tools.length} step${tools.length === 1 ? '' : 's'} taken.`,
  });
}

/** The `loop` scenario: the very same tool call with the same input, every turn. */
export function planLoopTurn(rng: Rng, index: number, prompt: string): TurnPlan {
  return withUsage(rng, {
    index,
    prompt,
    tools: [{ action: 'shell', arg: 'npm test' }],
    intro: 'The tests still fail; running them again.',
    final: 'Still failing. Trying again.',
  });
}

function withUsage(rng: Rng, p: Omit<TurnPlan, 'usage' | 'cost'>): TurnPlan {
  const cacheWrite = rng.int(0, 3000);
  const usage = { input: cacheWrite + rng.int(10, 2000), output: rng.int(100, 1500), cached: rng.int(5000, 40000), cacheWrite };
  const cost = (usage.input - cacheWrite) * PRICE.input + cacheWrite * PRICE.cacheWrite + usage.cached * PRICE.cached + usage.output * PRICE.output;
  return { ...p, usage, cost: Math.round(cost * 1e6) / 1e6 };
}
