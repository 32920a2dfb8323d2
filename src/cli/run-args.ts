// `orcr run` flags and `--from` fan-out lines → run specs, validated before
// anything is sent, so a bad spec writes nothing.

import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from '../config/duration.js';
import { LOOP_ACTIONS, PROTOCOLS, type LoopAction, type Protocol } from '../core/types.js';
import type { RunSpec } from '../server/supervisor.js';
import { UsageError } from './usage-error.js';

const RUN_OPTIONS = {
  provider: { type: 'string', short: 'a' },
  name: { type: 'string', short: 'n' },
  workload: { type: 'string', short: 'w' },
  prompt: { type: 'string', short: 'p' },
  protocol: { type: 'string' },
  'max-turns': { type: 'string' },
  'max-tokens': { type: 'string' },
  'max-cost': { type: 'string' },
  timeout: { type: 'string' },
  loop: { type: 'string' },
  interactive: { type: 'boolean' },
  'idle-after': { type: 'string' },
  cwd: { type: 'string' },
  env: { type: 'string', short: 'e', multiple: true },
  json: { type: 'boolean' },
  from: { type: 'string' },
} as const;

const fail = (message: string): never => {
  throw new UsageError(message, 'run');
};

function wholeNumber(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) fail(`${flag} must be a whole number, got "${v}"`);
  return n;
}

function duration(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  try {
    return parseDuration(v);
  } catch (e) {
    return fail(`${flag}: ${(e as Error).message}`);
  }
}

export function parseRunArgs(args: string[], cwd: string): RunSpec {
  const dd = args.indexOf('--');
  const flags = dd >= 0 ? args.slice(0, dd) : args;
  const command = dd >= 0 ? args.slice(dd + 1) : [];
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: flags, options: RUN_OPTIONS, allowPositionals: true, strict: true }));
  } catch (e) {
    return fail((e as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
  if (positionals.length > 0) fail(`unexpected argument "${positionals[0]}" (put the command after --)`);
  if (dd >= 0 && command.length === 0) fail('nothing after --: give the command to run');
  if (command.length === 0 && values.provider === undefined) fail('missing command: give -a PROVIDER or -- COMMAND ARGS...');
  const env: Record<string, string> = {};
  for (const kv of (values.env as string[] | undefined) ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) fail(`-e needs KEY=VALUE, got "${kv}"`);
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return buildSpec(
    {
      name: values.name as string | undefined,
      provider: values.provider as string | undefined,
      workload: values.workload as string | undefined,
      prompt: values.prompt as string | undefined,
      protocol: values.protocol as string | undefined,
      max_turns: wholeNumber('--max-turns', values['max-turns'] as string | undefined),
      max_tokens: wholeNumber('--max-tokens', values['max-tokens'] as string | undefined),
      max_cost_usd: costArg(values['max-cost'] as string | undefined),
      timeout_ms: duration('--timeout', values.timeout as string | undefined),
      idle_after_ms: duration('--idle-after', values['idle-after'] as string | undefined),
      loop: values.loop as string | undefined,
      interactive: values.interactive as boolean | undefined,
      cwd: values.cwd as string | undefined,
      env: Object.keys(env).length ? env : undefined,
      command: command.length ? command : undefined,
    },
    cwd,
  );
}

function costArg(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) fail(`--max-cost must be a non-negative number of USD, got "${v}"`);
  return n;
}

interface LooseSpec {
  name?: string;
  provider?: string;
  workload?: string;
  prompt?: string;
  protocol?: string;
  max_turns?: number;
  max_tokens?: number;
  max_cost_usd?: number;
  timeout_ms?: number;
  idle_after_ms?: number;
  loop?: string;
  interactive?: boolean;
  cwd?: string;
  env?: Record<string, string>;
  command?: string[];
}

function buildSpec(s: LooseSpec, cwd: string): RunSpec {
  if (s.protocol !== undefined && !(PROTOCOLS as readonly string[]).includes(s.protocol)) {
    fail(`--protocol must be one of ${PROTOCOLS.join(', ')}, got "${s.protocol}"`);
  }
  if (s.loop !== undefined && !(LOOP_ACTIONS as readonly string[]).includes(s.loop)) {
    fail(`--loop must be one of ${LOOP_ACTIONS.join(', ')}, got "${s.loop}"`);
  }
  for (const [k, v] of [['--name', s.name], ['--provider', s.provider], ['--workload', s.workload]] as const) {
    if (v !== undefined && v.trim() === '') fail(`${k} must not be empty`);
  }
  const dir = path.resolve(cwd, s.cwd ?? '.');
  if (s.cwd !== undefined) {
    let ok = false;
    try {
      ok = fs.statSync(dir).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) fail(`--cwd ${s.cwd}: no such directory`);
  }
  const spec: RunSpec = { cwd: dir };
  if (s.name !== undefined) spec.name = s.name;
  if (s.provider !== undefined) spec.provider = s.provider;
  if (s.workload !== undefined) spec.workload = s.workload;
  if (s.prompt !== undefined) spec.prompt = s.prompt;
  if (s.protocol !== undefined) spec.protocol = s.protocol as Protocol;
  if (s.max_turns !== undefined) spec.max_turns = s.max_turns;
  if (s.max_tokens !== undefined) spec.max_tokens = s.max_tokens;
  if (s.max_cost_usd !== undefined) spec.max_cost_usd = s.max_cost_usd;
  if (s.timeout_ms !== undefined) spec.timeout_ms = s.timeout_ms;
  if (s.idle_after_ms !== undefined) spec.idle_after_ms = s.idle_after_ms;
  if (s.loop !== undefined) spec.loop = s.loop as LoopAction;
  if (s.interactive) spec.interactive = true;
  if (s.env !== undefined) spec.env = s.env;
  if (s.command !== undefined) spec.command = s.command;
  return spec;
}

const FANOUT_KEYS = new Set([
  'name', 'provider', 'workload', 'prompt', 'protocol', 'command', 'env', 'cwd', 'interactive',
  'max_turns', 'max_tokens', 'max_cost', 'max_cost_usd', 'timeout', 'idle_after', 'loop',
]);

/** `orcr run --from FILE|-`: every line is checked first; one bad line and nothing is queued. */
export function parseFanOut(args: string[], cwd: string): RunSpec[] {
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args, options: RUN_OPTIONS, allowPositionals: false, strict: true }));
  } catch (e) {
    return fail((e as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
  const others = Object.keys(values).filter((k) => k !== 'from' && k !== 'json');
  if (others.length > 0) fail(`--from takes no other run flags (got --${others[0]}); put them in each line`);
  const from = values.from as string;
  let text: string;
  try {
    text = fs.readFileSync(from === '-' ? 0 : from, 'utf8');
  } catch (e) {
    return fail(`--from ${from}: ${(e as Error).message}`);
  }
  const specs: RunSpec[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${from === '-' ? 'stdin' : from}:${i + 1}`;
    let obj: Record<string, unknown>;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      return fail(`${where}: not valid JSON: ${(e as Error).message}`);
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) fail(`${where}: each line must be a JSON object`);
    for (const k of Object.keys(obj)) if (!FANOUT_KEYS.has(k)) fail(`${where}: unknown field "${k}"`);
    const str = (k: string): string | undefined => {
      const v = obj[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'string') fail(`${where}: "${k}" must be a string`);
      return v as string;
    };
    const num = (k: string): number | undefined => {
      const v = obj[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(`${where}: "${k}" must be a non-negative number`);
      return v as number;
    };
    const dur = (k: string): number | undefined => {
      const v = obj[k];
      if (v === undefined) return undefined;
      if (typeof v === 'number') return num(k);
      try {
        return parseDuration(String(v));
      } catch (e) {
        return fail(`${where}: "${k}": ${(e as Error).message}`);
      }
    };
    let command: string[] | undefined;
    if (obj.command !== undefined) {
      if (!Array.isArray(obj.command) || obj.command.length === 0 || !obj.command.every((a) => typeof a === 'string')) {
        fail(`${where}: "command" must be a non-empty array of strings (argv)`);
      }
      command = obj.command as string[];
    }
    let env: Record<string, string> | undefined;
    if (obj.env !== undefined) {
      if (!obj.env || typeof obj.env !== 'object' || Array.isArray(obj.env) || !Object.values(obj.env).every((v) => typeof v === 'string')) {
        fail(`${where}: "env" must be an object of strings`);
      }
      env = obj.env as Record<string, string>;
    }
    if (obj.interactive !== undefined && typeof obj.interactive !== 'boolean') fail(`${where}: "interactive" must be true or false`);
    if (!command && str('provider') === undefined) fail(`${where}: needs "command" (argv) or "provider"`);
    try {
      specs.push(
        buildSpec(
          {
            name: str('name'),
            provider: str('provider'),
            workload: str('workload'),
            prompt: str('prompt'),
            protocol: str('protocol'),
            max_turns: num('max_turns'),
            max_tokens: num('max_tokens'),
            max_cost_usd: num('max_cost_usd') ?? num('max_cost'),
            timeout_ms: dur('timeout'),
            idle_after_ms: dur('idle_after'),
            loop: str('loop'),
            interactive: obj.interactive as boolean | undefined,
            cwd: str('cwd'),
            env,
            command,
          },
          cwd,
        ),
      );
    } catch (e) {
      fail(`${where}: ${(e as Error).message}`);
    }
  });
  if (specs.length === 0) fail(`--from ${from}: no run specs in it`);
  return specs;
}
