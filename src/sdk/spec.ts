// A run as a program asks for it: the fields of a `run --from` line, as an
// object. Its type is the run-spec line schema's (src/config/run-spec.ts),
// and the line's checks and messages are reused (runSpecFromLine), so a bad
// field reads the same from a file, the CLI, the SDK and an MCP tool.
// Loaded only by the calls that send specs: the schema brings zod.

import type { z } from 'zod';
import { runSpecFromLine, type runSpecLineSchema, type RunSpec as WireSpec } from '../config/run-spec.js';
import { OrcrError } from './errors.js';

/** Durations: milliseconds, or text such as "500ms", "30s", "10m", "1h30m". */
export type Duration = number | string;

/**
 * A run to queue: `command` (argv), or `provider` (a preset: an agent CLI's
 * built in, or one of config.json) with a `prompt`; `cwd` is relative to the
 * program's own working directory (default: that directory); `env` adds to
 * the program's environment. Durations (`timeout`, `idle_after`,
 * `turn_timeout`) are a Duration.
 */
export type RunSpec = z.input<typeof runSpecLineSchema>;

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
