// What the mock agent does in one turn, independent of output format: which
// tools it calls, what it says, what it costs. Renderers turn a plan into a
// given agent CLI's lines.

import type { Rng } from './rng.js';

/** What the mock agent does in a whole run (`--scenario`): its usage text says each. */
export const SCENARIOS = ['work', 'interactive', 'ask', 'ask-question', 'slow-start', 'never-starts', 'crash', 'limit', 'loop', 'auth'] as const;
export type Scenario = (typeof SCENARIOS)[number];

export type Action = 'shell' | 'read' | 'edit' | 'write' | 'search';

export interface ToolStep {
  action: Action;
  /** The command, path or pattern. */
  arg: string;
}

/** A question the agent asks before its tools (the `ask-question` scenario). */
export interface PlannedQuestion {
  question: string;
  header: string;
  options: { label: string; description: string }[];
  multi: boolean;
}

export interface TurnPlan {
  index: number;
  prompt: string;
  tools: ToolStep[];
  question?: PlannedQuestion;
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

const QUESTIONS: readonly PlannedQuestion[] = [
  {
    question: 'Which database should the service use?',
    header: 'Database',
    options: [
      { label: 'Postgres', description: 'Relational, the default' },
      { label: 'SQLite', description: 'A file, no server' },
      { label: 'MySQL', description: 'What production runs' },
    ],
    multi: false,
  },
  {
    question: 'Which checks should run before merging?',
    header: 'Checks',
    options: [
      { label: 'Lint', description: 'eslint' },
      { label: 'Tests', description: 'vitest' },
    ],
    multi: true,
  },
];

/**
 * The `ask` scenarios: each step one that an agent CLI asks about before it
 * runs (a command, a new file, an edit), and with `question` a question first.
 * Its own planner, so the other scenarios' turns stay as their seeds made them.
 */
export function planAskTurn(rng: Rng, index: number, prompt: string, question: boolean): TurnPlan {
  const tools: ToolStep[] = [];
  const count = rng.int(1, 3);
  for (let i = 0; i < count; i++) {
    const action = rng.pick<Action>(['shell', 'write', 'edit']);
    tools.push({ action, arg: action === 'shell' ? rng.pick(COMMANDS) : rng.pick(FILES) });
  }
  const asked = question ? { question: rng.pick(QUESTIONS) } : {};
  return withUsage(rng, {
    index,
    prompt,
    tools,
    ...asked,
    intro: `Working on: ${prompt}`,
    final: `Turn ${index + 1} done: ${tools.length} step${tools.length === 1 ? '' : 's'} taken.`,
  });
}

function withUsage(rng: Rng, p: Omit<TurnPlan, 'usage' | 'cost'>): TurnPlan {
  const cacheWrite = rng.int(0, 3000);
  const usage = { input: cacheWrite + rng.int(10, 2000), output: rng.int(100, 1500), cached: rng.int(5000, 40000), cacheWrite };
  const cost = (usage.input - cacheWrite) * PRICE.input + cacheWrite * PRICE.cacheWrite + usage.cached * PRICE.cached + usage.output * PRICE.output;
  return { ...p, usage, cost: Math.round(cost * 1e6) / 1e6 };
}
