// What every verb shares: parse its flags, reach the supervisor through the
// SDK, print text or --json, and turn a failure into the documented exit
// code (the README's table). Human output never echoes a control sequence
// (safeLine/safeText); JSON output escapes every control.

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { joinDashValues, wholeFlag } from '../client/flag-values.js';
import { parseDuration } from '../config/duration.js';
import { ConfigError } from '../config/errors.js';
import { ensureHome, homeDir, HomeError, type Home } from '../config/home.js';
import type { Orcr } from '../sdk/client.js';
import type { Answerer } from '../sdk/families.js';
import { OrcrError } from '../sdk/errors.js';
import { exitCodeOf, RemoteError } from '../protocol/errors.js';
import { jsonText } from '../text/json-text.js';
import { safeText } from '../text/terminal-text.js';
import { isVerb, spec, takesPositionals, type Command, type FlagDecls } from './grammar.js';
import { VERB_USAGE } from './usage.js';
import { UsageError } from './usage-error.js';
import { didYouMean, shownWord } from './words.js';

export type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** What every verb takes besides its own flags. */
const COMMON: FlagDecls = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } };

/** A verb: its name (one module may serve several), its arguments after the verb, the shell. */
export type Verb = (verb: string, args: string[], sh: Shell) => Promise<number>;

/**
 * Where a verb's words go and what it reads as stdin: the process's own
 * streams, or a caller's that runs verbs as functions (the tests, in a
 * worker thread: a process per command line was half the suite's CPU).
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** All of stdin. */
  stdin(): string;
}

export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  stdin: () => fs.readFileSync(0, 'utf8'),
};

/** A verb ended early with this exit code (Shell.fail): what it opened is closed on the way out, and the entry exits with it. */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`orcr exits ${code}`);
    this.name = 'CliExit';
  }
}

export class Shell {
  private resolvedHome: Home | null = null;

  constructor(
    /** --json was given: every answer and every error is JSON on stdout. */
    readonly json: boolean,
    readonly version: string,
    readonly io: CliIo = processIo,
  ) {}

  out(text: string): void {
    this.io.stdout(text.endsWith('\n') ? text : text + '\n');
  }

  /** Text to stdout as it is (a diff, a JSON array written piece by piece). */
  write(text: string): void {
    this.io.stdout(text);
  }

  /** One line to stderr, as `orcr: …`. */
  say(line: string): void {
    this.io.stderr(`orcr: ${line}\n`);
  }

  printJson(value: unknown): void {
    this.out(jsonText(value, 2));
  }

  fail(code: string, message: string, exit: number, verb?: string): never {
    if (this.json) this.printJson({ error: { code, message } });
    else {
      // A message may quote a run's name or an agent's words: no escapes reach the terminal.
      for (const line of safeText(message).split('\n')) this.say(line);
      if (code === 'usage' && verb && isVerb(verb)) this.io.stderr(`usage: ${VERB_USAGE[verb]}\n`);
    }
    throw new CliExit(exit);
  }

  /**
   * A verb's arguments, by the flags and operands its grammar declares (the
   * verb's own, or those of a subcommand: `at`); a mistake is a usage error.
   */
  parse(verb: string, args: string[], at: Command = isVerb(verb) ? spec(verb) : {}): Parsed {
    try {
      const all: FlagDecls = { ...at.flags, ...COMMON };
      return parseArgs({ args: joinDashValues(args, all), options: all, allowPositionals: takesPositionals(at), strict: true }) as Parsed;
    } catch (e) {
      throw new UsageError(parseProblem(e as Error & { code?: string }, { ...at.flags, ...COMMON }), verb);
    }
  }

  /** The home, resolved once per process: a reconnect goes back to the same real path, whatever a link says by then. */
  home(): Home {
    return (this.resolvedHome ??= ensureHome(homeDir()));
  }

  /**
   * The SDK on this home, starting a supervisor when none runs (as every verb
   * does), connecting at its first call: a wait makes its own connection only.
   */
  async sdk(opts: { autoStart?: boolean; killAgents?: boolean; now?: boolean; answerer?: Answerer } = {}): Promise<Orcr> {
    const { Orcr } = await import('../sdk/client.js');
    return Orcr.open(this.home(), { autoStart: opts.autoStart ?? true, killAgents: opts.killAgents, lazy: opts.now !== true, answerer: opts.answerer });
  }

  /** Run `fn` with the SDK, closing it after. */
  async withSdk<T>(fn: (orcr: Orcr) => Promise<T>): Promise<T> {
    const orcr = await this.sdk();
    try {
      return await fn(orcr);
    } finally {
      orcr.close();
    }
  }

  /** Ask y/N on the terminal; null when there is none to ask on. */
  async confirm(question: string): Promise<boolean | null> {
    if (!process.stdin.isTTY || !process.stderr.isTTY) return null;
    const { createInterface } = await import('node:readline/promises');
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
    } finally {
      rl.close();
    }
  }

  readStdin(): string {
    return this.io.stdin();
  }

  /** A failure as the exit-code table says. */
  failWith(e: unknown): never {
    if (e instanceof UsageError) this.fail('usage', e.message, 2, e.verb);
    if (e instanceof ConfigError) this.fail('config', e.message, 2);
    if (e instanceof HomeError) this.fail('usage', e.message, 2);
    if (e instanceof OrcrError) this.fail(e.code, e.message, e.exitCode);
    if (e instanceof RemoteError) this.fail(e.code, e.message, exitCodeOf(e.code));
    this.fail('internal', (e as Error)?.stack ?? String(e), 1);
  }
}

/** A refusal of node:util's parseArgs in orcr's words: the word shown escaped and cut, with the flags it may have meant. */
function parseProblem(e: Error & { code?: string }, flags: FlagDecls): string {
  const unknown = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(.*?)'(?:\. To specify|$)/s.exec(e.message) : null;
  if (unknown) {
    const spellings = Object.entries(flags).flatMap(([name, f]) => [`--${name}`, ...(f.short ? [`-${f.short}`] : [])]);
    return `unknown flag ${shownWord(unknown[1]!)}${didYouMean(unknown[1]!, spellings)}`;
  }
  const extra = e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' ? /^Unexpected argument '(.*?)'\. /s.exec(e.message) : null;
  if (extra) return `unexpected argument ${shownWord(extra[1]!)}: it takes none there`;
  return e.message.replace(/\. To specify a positional.*$/s, '');
}

/** A duration flag's value, or the usage error naming the flag. */
export function durationFlag(raw: string, flag: string): number {
  try {
    return parseDuration(raw, flag);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/** A whole-number flag's value, or the usage error naming the flag. */
export function wholeNumberFlag(raw: string, flag: string, min = 0): number {
  const n = wholeFlag(flag, raw, min);
  if (typeof n !== 'number') throw new UsageError(n.problem);
  return n;
}
