// What execve(2) accepts on Linux, to refuse at enqueue a run that could
// never start (it would fail at admission with `spawn E2BIG`):
// - one argument or environment string ("NAME=value") holds at most
//   MAX_ARG_STRLEN bytes, its NUL included (32 pages: 128 KiB);
// - all of them together, each with its NUL and its pointer, fit in ARG_MAX,
//   which the kernel derives from the stack limit (a quarter of it, at
//   least 128 KiB, at most 6 MiB): what `getconf ARG_MAX` prints.
// The agent is started through orcr's wrapper (a shell script, the run's
// folder, orcr's own variables): LAUNCH_RESERVE is kept for those.

import fs from 'node:fs';

export const MAX_ARG_STRLEN = 128 * 1024;
/** Bytes of ARG_MAX kept for the wrapper's own arguments and orcr's variables (ORCR_RUN, ORCR_RUN_NAME, ORCR_HOME). */
export const LAUNCH_RESERVE = 16 * 1024;

const POINTER = 8;
const MIN_ARG_MAX = 128 * 1024;
const MAX_ARG_MAX = 6 * 1024 * 1024;

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MiB`;
}

/** A limit, never rounded up: whole MiB, else whole KiB. */
function limitText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${Math.floor(bytes / 1024)} KiB`;
}

/** Whether one string is longer than execve takes. */
export function overArgStrlen(s: string): boolean {
  return Buffer.byteLength(s) + 1 > MAX_ARG_STRLEN;
}

/** Why one string cannot be passed, worded to follow what it is (`"command" has …`). */
export function argStrlenProblem(s: string): string {
  return `of ${sizeText(Buffer.byteLength(s))}: one argument or NAME=value must be less than 128 KiB on Linux (MAX_ARG_STRLEN); give large input on stdin or in a file`;
}

let cached: number | null = null;

/**
 * ARG_MAX as this process's children will see it, from its stack limit; 2 MiB
 * when it cannot be read. Read once (orcr never changes its own limits).
 */
export function argMax(limitsText?: string): number {
  if (limitsText === undefined) {
    if (cached === null) {
      let text = '';
      try {
        text = fs.readFileSync('/proc/self/limits', 'utf8');
      } catch {
        /* not Linux, or no /proc: the common default */
      }
      cached = argMax(text);
    }
    return cached;
  }
  const text = limitsText;
  const m = /^Max stack size\s+(\S+)/m.exec(text);
  if (!m) return 2 * 1024 * 1024;
  if (m[1] === 'unlimited') return MAX_ARG_MAX;
  const soft = Number(m[1]);
  if (!Number.isFinite(soft)) return 2 * 1024 * 1024;
  return Math.min(MAX_ARG_MAX, Math.max(MIN_ARG_MAX, Math.floor(soft / 4)));
}

/** What argv and the environment take of ARG_MAX: every string, its NUL and its pointer. */
export function execBytes(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): number {
  let total = 0;
  for (const a of argv) total += Buffer.byteLength(a) + 1 + POINTER;
  for (const [k, v] of Object.entries(env)) if (v !== undefined) total += Buffer.byteLength(k) + 1 + Buffer.byteLength(v) + 1 + POINTER;
  return total;
}

/**
 * Why execve would refuse this argv and environment, or null. `names` says
 * what each part is called where it came from (the spec's fields).
 */
export function execProblem(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  max: number,
  names: { argv: string; env: string } = { argv: 'the command', env: 'the environment' },
): string | null {
  const i = argv.findIndex(overArgStrlen);
  if (i >= 0) return `${names.argv} has an argument (${i + 1}) ${argStrlenProblem(argv[i]!)}`;
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && overArgStrlen(`${k}=${v}`)) return `${names.env} has a variable ${JSON.stringify(k)} ${argStrlenProblem(`${k}=${v}`)}`;
  }
  const total = execBytes(argv, env);
  const room = max - LAUNCH_RESERVE;
  if (total > room) {
    return (
      `${names.argv} and ${names.env} come to ${sizeText(total)}, and a program here can be started with at most ${limitText(room)} of them ` +
      `(ARG_MAX ${limitText(max)}, from the stack limit, less ${limitText(LAUNCH_RESERVE)} for orcr's wrapper); give large input on stdin or in a file`
    );
  }
  return null;
}
