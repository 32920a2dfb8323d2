// A run as a program asks for it: the fields of a `run --from` line, as an
// object. The line's checks and messages are reused (runSpecFromLine), so a
// bad field reads the same from a file, the CLI and the SDK.

import { runSpecFromLine, type RunSpec as WireSpec } from '../config/run-spec.js';
import type { LoopAction, Protocol } from '../core/types.js';
import { OrcrError } from './errors.js';

/** Durations: milliseconds, or text such as "500ms", "30s", "10m", "1h30m". */
export type Duration = number | string;

export interface RunSpec {
  /** argv of the program; without it, `provider` names a preset (claude, codex, gemini, or one of config.json). */
  command?: string[];
  provider?: string;
  /** Given to the agent on its stdin (or as its first input, for agents that take input). */
  prompt?: string;
  name?: string;
  workload?: string;
  /** Where the run works; relative to the program's own working directory (default: that directory). */
  cwd?: string;
  /** Variables added to the run's environment (the program's own environment is its base). */
  env?: Record<string, string>;
  interactive?: boolean;
  protocol?: Protocol;
  timeout?: Duration;
  idle_after?: Duration;
  max_turns?: number;
  max_tokens?: number;
  max_cost_usd?: number;
  loop?: LoopAction;
}

/** Specs → what run.enqueue takes, every one checked first: one bad spec and nothing is sent. */
export function wireSpecs(specs: readonly RunSpec[], base: string): WireSpec[] {
  const out: WireSpec[] = [];
  const problems: string[] = [];
  specs.forEach((spec, i) => {
    const r = runSpecFromLine(spec, base);
    if ('spec' in r) out.push(r.spec);
    else problems.push(specs.length === 1 ? r.problem : `spec ${i + 1}: ${r.problem}`);
  });
  if (specs.length === 0) throw new OrcrError('usage', 'no run specs given');
  if (problems.length > 0) throw new OrcrError('usage', problems.join('\n'));
  return out;
}
