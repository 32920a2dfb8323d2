// `orcr run` flags and `--from` fan-out lines → run specs. Flags become an
// object that the run-spec schema checks, so a bad value reads the same
// whether it came from a flag, a line or the socket; nothing is sent unless
// every spec is good.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { argMax, execProblem } from '../config/exec-limits.js';
import { runSpecFromLine, runSpecSchema, specProblem, type RunSpec } from '../config/run-spec.js';
import { previewValue, quote } from '../text/json-text.js';
import { nestedDeeperThan } from '../text/json-depth.js';
import { MAX_NESTING } from '../protocol/wire.js';
import { GraphError, planGraph } from '../core/dependencies.js';
import { CEILING_NAMES, flagCeilings, RUN_CEILINGS } from '../core/limits.js';
import { callerEnv } from './caller-env.js';
import { joinDashValues } from './flag-values.js';
import { RUN_FLAGS } from './run-flags.js';

// Kept apart (./caller-env.ts) so the SDK sends it without loading the run-spec schema.
export { callerEnv };
import { UsageError } from './usage-error.js';

// Declared in ./run-flags.ts, where the shell completion reads them too.
const RUN_OPTIONS = RUN_FLAGS;

/** The spec field each value flag sets (a ceiling's: core/limits.ts). */
const FLAG_FIELD: Readonly<Record<string, keyof RunSpec>> = {
  provider: 'provider',
  name: 'name',
  workload: 'workload',
  prompt: 'prompt',
  protocol: 'protocol',
  ...flagCeilings(),
  loop: 'loop',
  'on-stall': 'on_stall',
  retries: 'retries',
  'on-limit': 'on_limit',
  'max-continues': 'max_continues',
  cwd: 'cwd',
};

/** Fields whose flag takes a number as a person types it (a duration's text goes to the schema as it is). */
const NUMBER_FIELDS: ReadonlySet<keyof RunSpec> = new Set<keyof RunSpec>([
  ...CEILING_NAMES.filter((k) => RUN_CEILINGS[k].unit !== 'duration'),
  'retries',
  'max_continues',
]);

/**
 * Where `orcr run` reads what it is told to read: stdin for `-p -` and
 * `--from -`, only when the caller gives it (the TUI's stdin is its keyboard).
 */
export interface RunIO {
  stdin?: () => string;
  /** Where `-e KEY` (no `=`) takes its value: the caller's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

const noStdin = (): string => {
  throw new Error('there is no standard input to read here');
};

/** A mistake in how the verb was called: shown with its usage. */
const misuse = (message: string): never => {
  throw new UsageError(message, 'run');
};

/** A bad value: the message says what is wrong, the usage would add nothing. */
const badValue = (message: string): never => {
  throw new UsageError(message);
};

function parseFlags(args: string[], allowPositionals: boolean) {
  // Node.js reads any `--env-file` argument itself, even after the script's
  // name (nodejs/node#54232), before orcr runs: a pipe given there is read
  // empty, a missing file ends node (exit 9). orcr's flag has another name.
  if (args.some((a) => a === '--env-file' || a.startsWith('--env-file='))) {
    misuse('orcr reads KEY=VALUE files with --env-from FILE (node takes a --env-file argument for itself, before orcr sees it)');
  }
  try {
    return parseArgs({ args: joinDashValues(args, RUN_OPTIONS), options: RUN_OPTIONS, allowPositionals, strict: true, tokens: true });
  } catch (e) {
    return misuse((e as Error).message.replace(/\. To specify a positional.*$/s, '').replace(/\n/g, ' '));
  }
}

/**
 * `-p TEXT`; `-p @FILE` reads the prompt from FILE, `-p -` from stdin (argv
 * holds at most 128 KiB per argument, and shows it to every local user);
 * `-p @@TEXT` is the prompt `@TEXT`.
 */
function readPrompt(value: string, flag: string, cwd: string, stdin: () => string): string {
  if (value === '-') {
    try {
      return stdin();
    } catch (e) {
      return badValue(`${flag} -: cannot read standard input: ${(e as Error).message}`);
    }
  }
  if (value.startsWith('@@')) return value.slice(1);
  if (!value.startsWith('@')) return value;
  const file = value.slice(1);
  if (file === '') return badValue(`${flag} @FILE needs a file name after "@" (write @@ for a prompt that starts with "@")`);
  try {
    return fs.readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    return badValue(`${flag} @FILE: cannot read ${quote(file)}: ${why} (write @@ for a prompt that starts with "@")`);
  }
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `--env-from FILE`: KEY=VALUE lines (the value as written after the first
 * `=`, quotes and spaces kept), `#` comments and blank lines. A bad line is
 * named by its number, never shown: it may hold a secret.
 */
function readEnvFile(file: string, cwd: string): Record<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(cwd, file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    return badValue(`--env-from ${quote(file)}: cannot read it: ${why}`);
  }
  const env: Record<string, string> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '').trimStart();
    if (line === '' || line.startsWith('#')) return;
    const where = `--env-from ${file}:${i + 1}`;
    const eq = line.indexOf('=');
    if (eq <= 0) badValue(`${where}: not KEY=VALUE (each line is KEY=VALUE, a # comment, or blank)`);
    const key = line.slice(0, eq);
    if (!VARIABLE.test(key)) badValue(`${where}: ${quote(key)} is not a variable name (letters, digits and _, not starting with a digit)`);
    env[key] = line.slice(eq + 1);
  });
  return env;
}

// Numbers as a person types them (no spaces around: " 3" is not a number a flag takes); anything else goes to the schema as text, which refuses it.
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

export function parseRunArgs(args: string[], cwd: string, io: RunIO = {}): RunSpec {
  const dd = args.indexOf('--');
  const flags = dd >= 0 ? args.slice(0, dd) : args;
  const command = dd >= 0 ? args.slice(dd + 1) : [];
  const { values, positionals, tokens } = parseFlags(flags, true);
  if (positionals.length > 0) misuse(`unexpected argument ${quote(positionals[0]!)} (put the command after --)`);
  if (dd >= 0 && command.length === 0) misuse('nothing after --: give the command to run');
  if (command.length === 0 && values.provider === undefined) misuse('missing command: give -a PROVIDER or -- COMMAND ARGS...');
  // The flag as it was typed (-n or --name), to name it back in a message.
  const typed = new Map<string, string>();
  for (const t of tokens) if (t.kind === 'option') typed.set(t.name, t.rawName);
  const flagOf = new Map<string, string>();
  const raw = new Map<string, string>();
  const spec: Record<string, unknown> = { cwd };
  for (const [option, field] of Object.entries(FLAG_FIELD)) {
    const v = values[option as keyof typeof values];
    if (typeof v !== 'string') continue;
    const flag = typed.get(option) ?? `--${option}`;
    flagOf.set(field, flag);
    raw.set(field, v);
    if (NUMBER_FIELDS.has(field)) spec[field] = NUMBER.test(v) ? Number(v) : v;
    else if (field === 'cwd') spec.cwd = path.resolve(cwd, v);
    else if (field === 'prompt') spec.prompt = readPrompt(v, flag, cwd, io.stdin ?? noStdin);
    else spec[field] = v;
  }
  if (values.interactive) spec.interactive = true;
  if (values.detach) spec.detach = true;
  if (values.after !== undefined) {
    // --after a --after b, or --after a,b; each name as typed (" tgt" is not "tgt", as in `show`).
    spec.after = values.after.flatMap((v) => v.split(','));
    flagOf.set('after', typed.get('after') ?? '--after');
    raw.set('after', values.after.join(','));
  }
  if (values['after-any']) {
    if (values.after === undefined) misuse('--after-any needs --after');
    spec.after_any = true;
  }
  if (values.base !== undefined && !values.worktree) misuse('--base needs --worktree');
  if (values.worktree) spec.worktree = values.base !== undefined ? { base: values.base } : true;
  // Files first, then -e: a flag overrides what a file says, as with docker.
  const env: Record<string, string> = {};
  for (const file of values['env-from'] ?? []) Object.assign(env, readEnvFile(file, cwd));
  const e = typed.get('env') ?? '-e';
  for (const kv of values.env ?? []) {
    const eq = kv.indexOf('=');
    if (eq === 0 || kv === '') badValue(`${e} needs KEY=VALUE or KEY, got ${quote(kv)}`);
    if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
    else {
      // `-e KEY`: the value stays out of argv, which every local user can read in /proc.
      const v = (io.env ?? process.env)[kv];
      if (v === undefined)
        badValue(`${e} ${VARIABLE.test(kv) ? kv : quote(kv)}: the variable is not set in this environment (export it, give -e KEY=VALUE, or use --env-from)`);
      env[kv] = v!;
    }
  }
  if (Object.keys(env).length > 0) {
    spec.env = env;
    flagOf.set('env', values.env?.length ? e : '--env-from');
  }
  if (command.length > 0) spec.command = command;
  const r = runSpecSchema.safeParse(spec);
  if (r.success) {
    const tooBig = execSizeProblem(r.data, { argv: 'the command after --', env: '-e with your environment' });
    return tooBig === null ? r.data : badValue(tooBig);
  }
  const p = specProblem(r.error);
  const flag = p.field === null ? undefined : flagOf.get(p.field);
  if (p.field === 'command') return badValue(`the command after -- ${p.message}`);
  if (!flag) return badValue(p.message);
  const got = raw.get(p.field!);
  return badValue(`${flag} ${p.message}${got !== undefined ? `, got ${previewValue(got)}` : ''}`);
}

/**
 * What execve would refuse of a spec's command and environment (this
 * process's, which the run starts with, plus the spec's), checked before
 * anything is sent; the supervisor checks the same with the preset's command.
 */
function execSizeProblem(spec: RunSpec, names: { argv: string; env: string }): string | null {
  return execProblem(spec.command ?? [], { ...callerEnv(), ...spec.env }, argMax(), names);
}

/** Bad lines shown, at most: a file of thousands of bad lines needs the first few, and their count. */
const MAX_REPORTED = 50;

/** `orcr run --from FILE|-`: every line is checked first; one bad line and nothing is queued. */
export function parseFanOut(args: string[], cwd: string, io: RunIO = {}): RunSpec[] {
  const { values } = parseFlags(args, false);
  const others = Object.keys(values).filter((k) => k !== 'from' && k !== 'json');
  if (others.length > 0) misuse(`--from takes no other run flags (got --${others[0]}); put them in each line`);
  const from = values.from!;
  let text: string;
  try {
    text = from === '-' ? (io.stdin ?? noStdin)() : fs.readFileSync(path.resolve(cwd, from), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return badValue(`--from ${quote(from)}: cannot read it: ${code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  const source = from === '-' ? 'stdin' : from;
  const specs: RunSpec[] = [];
  /** Each spec's `file:line`, for the graph's messages. */
  const wheres: string[] = [];
  const problems: string[] = [];
  let bad = 0;
  text.split('\n').forEach((rawLine, i) => {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${source}:${i + 1}`;
    if (nestedDeeperThan(line, MAX_NESTING)) {
      bad++;
      if (problems.length < MAX_REPORTED) problems.push(`${where}: nested more than ${MAX_NESTING} levels deep (a run spec is a few)`);
      return;
    }
    let obj: unknown;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      bad++;
      if (problems.length < MAX_REPORTED) problems.push(`${where}: not valid JSON: ${(e as Error).message}`);
      return;
    }
    const r = runSpecFromLine(obj, cwd);
    const tooBig = 'spec' in r ? execSizeProblem(r.spec, { argv: '"command"', env: '"env" with your environment' }) : null;
    if ('spec' in r && tooBig === null) {
      specs.push(r.spec);
      wheres.push(where);
    } else {
      bad++;
      if (problems.length < MAX_REPORTED) problems.push(`${where}: ${'problem' in r ? r.problem : tooBig}`);
    }
  });
  if (bad > 0) {
    if (bad > problems.length) problems.push(`… and ${bad - problems.length} more bad lines`);
    problems.push(`nothing was queued (${bad} bad ${bad === 1 ? 'line' : 'lines'} in ${source})`);
    badValue(problems.join('\n'));
  }
  if (specs.length === 0) badValue(`--from ${source}: no run specs in it`);
  // A name given twice is the file's own mistake, not a clash with a run: name both lines.
  const named = new Map<string, string>();
  const twice: string[] = [];
  specs.forEach((s, i) => {
    if (s.name === undefined) return;
    const first = named.get(s.name);
    if (first === undefined) named.set(s.name, wheres[i]!);
    else if (twice.length < MAX_REPORTED) twice.push(`${first} and ${wheres[i]!} both name a run ${quote(s.name)}`);
  });
  if (twice.length > 0) badValue(`${twice.join('\n')}\nnothing was queued (each line needs a name of its own)`);
  // "after" within the file, checked here to name its lines (a name no line has may be a run: the supervisor checks that).
  try {
    planGraph(
      specs.map((s, i) => ({ label: `${wheres[i]!}${s.name !== undefined ? ` (${JSON.stringify(s.name)})` : ''}`, name: s.name, after: s.after ?? [] })),
      () => 'a run',
    );
  } catch (e) {
    if (e instanceof GraphError) badValue(`${e.message}; nothing was queued`);
    throw e;
  }
  return specs;
}
