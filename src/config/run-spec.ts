// A run spec: what `orcr run` (its flags, or a `--from` line) and a socket
// client's `run.enqueue` ask the supervisor to queue. This schema is its only
// description: the CLI checks a spec with it before sending, the server checks
// it again on receipt, and the RunSpec type is inferred from it. Its messages
// name no field, so each caller can say where the value came from (a flag,
// a file and line, a spec in a request) in the same words.

import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { argStrlenProblem, overArgStrlen } from './exec-limits.js';
import { DURATION_FORM, DurationError, durationRangeProblem, NOT_ZERO, parseDuration } from './duration.js';
import { CEILING_NAMES, lineAliases, RUN_CEILINGS, type CeilingName, type LineCeilings } from '../core/limits.js';
import { LOOP_ACTIONS, STALL_ACTIONS } from '../core/types.js';
import { PRESET_NAMES, PROTOCOLS } from '../agents/registry.js';
import { hasControls } from '../text/terminal-text.js';
import { hiddenProblem, MAX_STACKED, type HiddenKind } from '../text/hidden.js';
import { previewValue, quote } from '../text/json-text.js';

/** Longest name (run, provider, workload), in characters. */
const MAX_LABEL = 200;

const ENV = 'must map variable names (not empty, no "=") to strings';
const ARGV = 'must be a non-empty array of strings (the program and its arguments)';

/** Why a name cannot be shown as one line that looks like only itself. */
const HIDDEN_NAME: Readonly<Record<HiddenKind, string>> = {
  hidden: 'must not contain invisible or line-separating characters (zero-width space, soft hyphen, U+FEFF, U+2028, …)',
  baseless: 'must not start with a combining mark, or put one after a space',
  stacked: `must not stack more than ${MAX_STACKED} combining marks on one character`,
};

// Names are shown in tables, logs and messages, and typed back (`kill NAME`):
// one printable line each, and no two that look alike but differ.
const label = z
  .string({ error: 'must be a string' })
  .refine((s) => s.trim() !== '', { message: 'must not be empty', abort: true })
  .refine((s) => [...s].length <= MAX_LABEL, { message: `must be at most ${MAX_LABEL} characters`, abort: true })
  .refine((s) => !hasControls(s), { message: 'must not contain control characters (newline, tab, escape, …)', abort: true })
  .superRefine((s, ctx) => {
    const kind = hiddenProblem(s);
    if (kind !== null) ctx.addIssue({ code: 'custom', message: HIDDEN_NAME[kind], input: s });
  });

/** Why a run, provider or workload name is refused, or null: the check `-n`, `-a` and `-w` get. */
export function nameProblem(name: string): string | null {
  const r = label.safeParse(name);
  return r.success ? null : r.error.issues[0]!.message;
}

const whole = z.number({ error: 'must be a whole number' }).int({ error: 'must be a whole number' }).min(0, { error: 'must not be negative' });

const usd = z.number({ error: 'must be a number of US dollars' }).min(0, { error: 'must not be negative' });

/**
 * Milliseconds, or a duration string ("30s"): a --from line writes the
 * second, the CLI sends the first. The problem is the duration parser's own
 * (`must be a duration such as … (largest unit first, each unit once)`).
 * These are all run ceilings, so 0 is refused: it would stop the run the
 * moment it starts, and "no limit" is leaving the field out.
 */
const duration = z.union([z.number(), z.string()], { error: DURATION_FORM }).transform((v, ctx) => {
  let ms = Number.NaN;
  let problem: string | null = null;
  if (typeof v === 'number') {
    problem = Number.isFinite(v) ? durationRangeProblem(v) : DURATION_FORM;
    ms = Math.round(v);
  } else {
    try {
      ms = parseDuration(v);
    } catch (e) {
      problem = e instanceof DurationError ? e.problem : DURATION_FORM;
    }
  }
  if (problem === null && ms === 0) problem = NOT_ZERO;
  if (problem !== null) {
    ctx.addIssue({ code: 'custom', message: problem, input: v });
    return z.NEVER;
  }
  return ms;
});

// A NUL cannot cross exec(2): refuse it here rather than fail at launch.
const noNul = (s: string): boolean => !s.includes('\0');

// execve refuses one string over MAX_ARG_STRLEN (E2BIG at launch): refused here, naming it.
const envMap = z
  .record(
    z.string().refine((k) => k !== '' && !k.includes('=') && noNul(k)),
    z.string({ error: ENV }).refine(noNul, ENV),
    { error: ENV },
  )
  .superRefine((env, ctx) => {
    const big = Object.entries(env).find(([k, v]) => overArgStrlen(`${k}=${v}`));
    if (big) ctx.addIssue({ code: 'custom', message: `has a variable ${quote(big[0])} ${argStrlenProblem(`${big[0]}=${big[1]}`)}` });
  });

const argv = z
  .array(z.string({ error: ARGV }).refine(noNul, ARGV), { error: ARGV })
  .min(1, { error: ARGV })
  .superRefine((a, ctx) => {
    const i = a.findIndex(overArgStrlen);
    if (i >= 0) ctx.addIssue({ code: 'custom', message: `has an argument (${i + 1}) ${argStrlenProblem(a[i]!)}` });
  });

const isDirectory = (p: string): boolean => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const directory = z
  .string({ error: 'must be a string' })
  .refine(path.isAbsolute, { message: 'must be an absolute path', abort: true })
  .refine(isDirectory, 'must be an existing directory');

/** A bound on attempts (retries, continuations): a whole number from 0 to 100. */
const upTo100 = z
  .number({ error: 'must be a whole number from 0 to 100' })
  .int('must be a whole number from 0 to 100')
  .min(0, 'must be a whole number from 0 to 100')
  .max(100, 'must be a whole number from 0 to 100');

/** A ceiling's value by its unit (core/limits.ts). */
const CEILING_VALUE = { count: whole, usd, duration } as const;
type CeilingValue<K extends CeilingName> = z.ZodOptional<(typeof CEILING_VALUE)[(typeof RUN_CEILINGS)[K]['unit']]>;

/** The ceilings under their RunLimits names, as the socket takes them. */
function wireCeilings(): { [K in CeilingName]: CeilingValue<K> } {
  return Object.fromEntries(CEILING_NAMES.map((k) => [k, CEILING_VALUE[RUN_CEILINGS[k].unit].optional()])) as never;
}

export const runSpecSchema = z
  .object(
    {
      name: label.optional(),
      provider: label.optional(),
      workload: label.optional(),
      prompt: z.string({ error: 'must be a string' }).optional(),
      protocol: z.enum(PROTOCOLS, { error: `must be one of ${PROTOCOLS.join(', ')}` }).optional(),
      /** argv; without it, `provider` names a preset whose command takes the prompt. */
      command: argv.optional(),
      /** Variables the run adds (`-e KEY=VALUE`). */
      env: envMap.optional(),
      /**
       * The environment of the client that made the run: the run starts with
       * it, plus `env`. `orcr run` sends its own once per request (run.enqueue's
       * `caller_env`), which fills every spec that has none.
       */
      caller_env: envMap.optional(),
      cwd: directory,
      interactive: z.boolean({ error: 'must be true or false' }).optional(),
      ...wireCeilings(),
      loop: z.enum(LOOP_ACTIONS, { error: `must be one of ${LOOP_ACTIONS.join(', ')}` }).optional(),
      on_stall: z.enum(STALL_ACTIONS, { error: `must be one of ${STALL_ACTIONS.join(', ')}` }).optional(),
      /** A usage limit: continue the run when it resets (its session resumed), or end it. Default: its provider's on_limit. */
      on_limit: z.enum(['continue', 'end'], { error: 'must be continue or end' }).optional(),
      /** Continuations the run may have at most. Default: its provider's max_continues. */
      max_continues: upTo100.optional(),
      /** Retries of an attempt that failed for a passing reason (core/attempts.ts: passingFailure). */
      retries: upTo100.optional(),
      /**
       * Runs this one waits for (names of specs of the same call, or any run's
       * name or uuid): it is not admitted until each has ended `completed`.
       */
      after: z
        .array(label, { error: 'must be a list of run names or uuids' })
        .min(1, 'must name at least one run')
        .max(10_000, 'must name at most 10,000 runs')
        .optional(),
      /** With `after`: go once each has ended, however it ended. */
      after_any: z.boolean({ error: 'must be true or false' }).optional(),
      /** Made from inside a run (caller_env.ORCR_RUN) but not its child: no parent, no roll-up, not killed with it. */
      detach: z.boolean({ error: 'must be true or false' }).optional(),
      /** A git worktree of cwd's repository on a new branch orcr/<name>, from `base` (default: HEAD). */
      worktree: z
        .union([z.boolean(), z.object({ base: z.string().min(1, 'must not be empty').optional() }).strict()], {
          error: 'must be true, false or {"base": "REF"}',
        })
        .optional(),
    },
    { error: 'must be a JSON object' },
  )
  .strict()
  .refine((s) => s.command !== undefined || s.provider !== undefined, 'needs "command" (argv) or "provider" (a preset)');

export type RunSpec = z.output<typeof runSpecSchema>;

/** What is wrong with a spec: the field as the schema names it (null: the spec as a whole), and why. */
export interface SpecProblem {
  field: string | null;
  message: string;
}

export function specProblem(error: z.ZodError): SpecProblem {
  // An unknown key first: it is usually a misspelling of a field that was then missed.
  const unknown = error.issues.find((i) => i.code === 'unrecognized_keys');
  if (unknown) return { field: null, message: `unknown field ${quote(String((unknown as { keys: string[] }).keys[0]))}` };
  const issue = error.issues[0]!;
  return { field: issue.path.length > 0 ? String(issue.path[0]) : null, message: issue.message };
}

/** `"max_turns" must be a whole number, got "x"`: a field of a JSON spec and its value. */
export function jsonProblemText(p: SpecProblem, obj: unknown, fieldName: (f: string) => string = (f) => f): string {
  if (p.field === null) {
    const whole = obj === null || typeof obj !== 'object' || Array.isArray(obj);
    return whole ? `${p.message}, got ${previewValue(obj)}` : p.message;
  }
  const name = fieldName(p.field);
  const has = obj !== null && typeof obj === 'object' && Object.hasOwn(obj, name);
  return `${quote(name)} ${p.message}${has ? `, got ${previewValue((obj as Record<string, unknown>)[name])}` : ''}`;
}

// ---------- `run --from` lines ----------

/** A line's own spellings, for people writing files (core/limits.ts): durations under short names, and a shorter cost key. */
const LINE_ALIASES: Readonly<Record<string, keyof RunSpec>> = lineAliases();

/** Schema fields a line names by an alias only, or not at all (the CLI fills caller_env). */
const NOT_IN_LINES = new Set<string>([...CEILING_NAMES.filter((k) => RUN_CEILINGS[k].line !== k), 'caller_env']);

/** Every field a `--from` line may hold. */
export const LINE_FIELDS: readonly string[] = [...Object.keys(runSpecSchema.shape).filter((k) => !NOT_IN_LINES.has(k)), ...Object.keys(LINE_ALIASES)];

/**
 * One `--from` line (already JSON-parsed) → a run spec, or what is wrong with
 * it in the line's own field names. A relative `cwd` is taken from `base`.
 */
export function runSpecFromLine(obj: unknown, base: string): { spec: RunSpec } | { problem: string } {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return { problem: `each line must be a JSON object, got ${previewValue(obj)}` };
  const line = obj as Record<string, unknown>;
  const allowed = new Set(LINE_FIELDS);
  for (const k of Object.keys(line)) if (!allowed.has(k)) return { problem: `unknown field ${quote(k)}` };
  for (const k of CEILING_NAMES) {
    const c: { line: string; alias?: string } = RUN_CEILINGS[k];
    if (c.alias !== undefined && line[c.alias] !== undefined && line[c.line] !== undefined)
      return { problem: `${quote(c.alias)} and ${quote(c.line)} are the same field: give one` };
  }
  // Which key of the line each schema field came from, to name it back in a message.
  const from = new Map<string, string>();
  const candidate: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(line)) {
    if (v === undefined) continue;
    const field = LINE_ALIASES[k] ?? k;
    from.set(field, k);
    candidate[field] = v;
  }
  candidate.cwd = typeof line.cwd === 'string' ? path.resolve(base, line.cwd) : (line.cwd ?? base);
  const r = runSpecSchema.safeParse(candidate);
  if (r.success) return { spec: r.data };
  return { problem: jsonProblemText(specProblem(r.error), line, (f) => from.get(f) ?? f) };
}

// ---------- the socket ----------

/**
 * `run.enqueue`'s specs, each checked, and the request's `caller_env` given to
 * every spec without its own; every bad one is named by its place in the request.
 */
export function checkRunSpecs(value: unknown, callerEnv?: unknown): { specs: RunSpec[]; problem: null } | { specs: null; problem: string } {
  if (!Array.isArray(value) || value.length === 0) return { specs: null, problem: '"specs" must be a non-empty array of run specs' };
  const env = envMap.optional().safeParse(callerEnv);
  if (!env.success) return { specs: null, problem: jsonProblemText({ field: 'caller_env', message: ENV }, { caller_env: callerEnv }) };
  const specs: RunSpec[] = [];
  const problems: string[] = [];
  value.forEach((v, i) => {
    const r = runSpecSchema.safeParse(v);
    if (r.success) specs.push(env.data && r.data.caller_env === undefined ? { ...r.data, caller_env: env.data } : r.data);
    else if (problems.length < 20) problems.push(`spec ${i + 1}: ${jsonProblemText(specProblem(r.error), v)}`);
  });
  return problems.length > 0 ? { specs: null, problem: problems.join('\n') } : { specs, problem: null };
}

// ---------- a run spec as a program or a model writes one ----------

const wire = runSpecSchema.shape;

/** The ceilings under their line names, each with its description. */
function lineCeilings(): { [L in keyof LineCeilings]: CeilingValue<LineCeilings[L]> } {
  const shape: Record<string, z.ZodType> = {};
  for (const k of CEILING_NAMES) {
    const c: { line: string; doc?: string } = RUN_CEILINGS[k];
    shape[c.line] = c.doc === undefined ? wire[k] : wire[k].describe(c.doc);
  }
  return shape as never;
}

/**
 * The SDK's `run()` and `orcr mcp`'s run tool take this (a `--from` line's
 * own fields): durations under their short names, as text or milliseconds,
 * `cwd` relative to the caller's. Its JSON Schema (z.toJSONSchema) is what
 * the MCP tool describes, and its input type is the SDK's RunSpec: one
 * description of a run spec, from the wire schema's own fields. Checked by
 * runSpecFromLine, which names a bad field as written.
 */
export const runSpecLineSchema = z
  .object({
    provider: wire.provider.describe(`an agent preset: ${PRESET_NAMES.join(', ')}, or a provider of config.json`),
    prompt: wire.prompt.describe('the task, given to the agent on its input'),
    command: wire.command.describe('argv of a program to run instead of (or with) a preset'),
    name: wire.name.describe('a name for the run (default: one is made up)'),
    workload: wire.workload,
    cwd: z.string().optional().describe("working directory, relative to the caller's (default: the caller's)"),
    env: wire.env.describe("variables to add to the run's environment"),
    interactive: wire.interactive.describe('the agent stays idle after its turn, waiting for send'),
    protocol: wire.protocol,
    ...lineCeilings(),
    on_stall: wire.on_stall,
    on_limit: wire.on_limit.describe('a usage limit: "continue" resumes the session when it resets, "end" ends the run (default: the provider\'s)'),
    max_continues: wire.max_continues.describe("continuations after usage limits at most (default: the provider's, 5)"),
    retries: wire.retries.describe('retry an attempt that failed for a passing reason (lost, turn timeout, never started, API errors) up to this many times'),
    loop: wire.loop,
    after: wire.after.describe("runs to wait for: names of other lines of the file, or any run's name or uuid; this run starts once each has completed"),
    after_any: wire.after_any.describe('with "after": start once each has ended, however it ended'),
    detach: wire.detach.describe('not a child of the calling run: no roll-up, not killed with it'),
    worktree: wire.worktree.describe('a git worktree of cwd on a new branch orcr/<name> (from "base", default HEAD)'),
  })
  .strict();
