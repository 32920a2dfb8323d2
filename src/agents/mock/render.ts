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
  /** How it asks before its tools (the `ask` scenarios); absent: the format never asks. */
  asking?: Asking;
  /**
   * A JSON-RPC server (Codex's app-server, ACP): it prints nothing of its
   * own accord, orcr opens its session and starts each turn on stdin, and
   * `turn`, `limit`, `auth` and `asking` render the turn orcr started
   * last. Absent: the CLI prints its turns as it runs.
   */
  server?: Serving;
}

/** A JSON-RPC server's stdin: what orcr asks of it, served at once or as a turn. */
export interface Serving {
  /** Every stdin line: orcr's requests and notifications, and its answers to the server's own requests (`asking.read` is this). */
  read(line: string): StdinLine;
  /** A turn that never ends (the `loop` scenario): its opening lines, then one model call at a time, each the same tool call. */
  loop(plan: TurnPlan): Generator<string[], never>;
  /** Not logged in from the start (the `auth` scenario), where its CLI says so before any turn (ACP: the session refused); absent: each turn fails (`auth`). */
  loggedOut?(): void;
}

/**
 * What a request was answered: go on (with the input as the answer gave it
 * back, null when it gave none), or take the refusal's words as the tool's
 * error; `stop`: the turn ends there (Codex's `cancel`).
 */
export type Reply = { allow: true; input: Record<string, unknown> | null } | { allow: false; message: string; stop?: boolean };

/** A turn that asks, a step at a time: lines to print, then, when it asks, its request, whose reply the turn is handed back. */
export interface AskStep {
  lines: string[];
  ask?: { ref: string; line: string };
}

/**
 * A stdin line, to an agent that asks: an input, an answer, a line that ends
 * it (its CLI exits 1 on one), or nothing it acts on. To a JSON-RPC server
 * also a request it answers at once (`served`: its lines, and what it says
 * on stderr); an input's `reply` is printed as it is read (the answer to the
 * request that started the turn).
 */
export type StdinLine =
  | { kind: 'input'; text: string; reply?: string[] }
  | { kind: 'answer'; ref: string; reply: Reply }
  | { kind: 'fatal'; stderr: string }
  | { kind: 'served'; lines: string[]; stderr?: string }
  | null;

export interface Asking {
  /** One turn: each step printed, each request's reply handed back before the next step (undefined for a step that asked nothing). */
  turn(plan: TurnPlan): Generator<AskStep, void, Reply | undefined>;
  read(line: string): StdinLine;
  /** What a request gets when stdin closes while it waits, or is closed when it would ask. */
  readonly closed: Reply;
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

/** What the mock agent's `write` steps put in their file. */
export const WRITTEN = 'export const done = true;\n';

export function toolOutput(step: ToolStep): string {
  switch (step.action) {
    case 'shell':
      return `$ ${step.arg}\nok`;
    case 'read':
      return `// ${step.arg}\nexport {};`;
    case 'edit':
      return `The file ${step.arg} has been updated.`;
    case 'write':
      return `File created successfully at: ${step.arg}`;
    case 'search':
      return `src/index.ts:1: ${step.arg}`;
  }
}

export function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
