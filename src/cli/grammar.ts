// The verbs, declared once: each one's group and one-line summary (orcr
// --help), its subcommands, its flags and what its operands are. The verbs'
// parsers read their flags from here (Shell.parse), `orcr --help` lists the
// verbs from here, each verb's usage lines are made from here (usage.ts, which
// adds the notes a line cannot say), and the shell completion scripts are
// generated from here; the module that carries a verb out is named here
// (verbs.ts loads it). Data only: loading this costs a verb's start-up nothing.

import { ACTIVE_STATUSES, RUN_STATUSES } from '../core/types.js';
import type { FlagDecls, ValueKind } from '../client/flag-decl.js';
import { RUN_FLAGS } from '../client/run-flags.js';

export type { FlagDecl, FlagDecls, ValueKind } from '../client/flag-decl.js';

/** What a command's positionals are: the first one, or each of them (`many`). */
export interface Operands {
  readonly kind: ValueKind;
  readonly many?: boolean;
  /** What its usage line calls it, where its kind does not say it (a run is `<run>`, a loop `NAME`, one of a few words `a|b`). */
  readonly name?: string;
}

/** A verb, or a subcommand of one. */
export interface Command {
  readonly flags?: FlagDecls;
  readonly subcommands?: Readonly<Record<string, Command>>;
  /** Its positionals (none when neither this nor subcommands is given). */
  readonly operands?: Operands;
  /** Takes `-- COMMAND ARGS...`: what follows `--` is a program and its arguments. */
  readonly command?: boolean;
  /**
   * Its usage lines, written out where the rule — `orcr PATH OPERANDS [FLAG]... [--json]`
   * — cannot say them: flags that exclude each other, operands among the flags, several forms.
   */
  readonly usage?: readonly string[];
}

export const GROUPS = {
  start: 'start runs and talk to them',
  watch: 'watch them',
  act: 'stop them, and clean up after them',
  fleet: 'the fleet',
  loops: 'loops',
  supervisor: 'the supervisor',
  more: 'a first look, agents, your shell',
} as const;
export type Group = keyof typeof GROUPS;

/** The modules of verbs/ (one may carry several verbs). */
export type VerbModule =
  | 'run'
  | 'ps'
  | 'kill'
  | 'wait'
  | 'approvals'
  | 'logs'
  | 'events'
  | 'stats'
  | 'server'
  | 'worktree'
  | 'cluster'
  | 'loop'
  | 'mcp'
  | 'serve'
  | 'help'
  | 'completion';

export interface VerbSpec extends Command {
  readonly group: Group;
  /** One line for orcr --help: what it does, not how. */
  readonly summary: string;
  readonly module: VerbModule;
  /** It prints JSON with --json (serve, mcp and completion do not). */
  readonly json: boolean;
  /** Left out of --help and of the completion (the completion's own call back). */
  readonly hidden?: boolean;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type ShellName = (typeof SHELLS)[number];

/** What `orcr __complete` lists: names from the running supervisor. */
export const COMPLETE_KINDS = ['runs', 'loops'] as const;

const none: Command = {};
/** `--host HOST`: another machine of the cluster does it (its supervisor, through the cluster's database). */
const onMachine: Command = { flags: { host: { type: 'string', meta: 'HOST' } } };
const run: Operands = { kind: 'run' };
const runs: Operands = { kind: 'run', many: true };
const loop: Operands = { kind: 'loop' };
const text: Operands = { kind: 'text', many: true };
/** Request ids, or runs (each request a run has waiting): runs are what a completion can offer. */
const requests: Operands = { kind: 'run', many: true, name: 'ID|RUN' };

// In the order orcr --help lists them, group by group.
export const VERBS = {
  run: {
    group: 'start',
    summary: 'queue a run: an agent or any command, under the caps',
    module: 'run',
    json: true,
    flags: RUN_FLAGS,
    command: true,
    usage: [
      'orcr run [-a PROVIDER] [-n NAME] [-w WORKLOAD] [-p PROMPT|@FILE|-] [--protocol P]',
      '         [--max-turns N] [--max-tokens N] [--max-cost USD] [--timeout DUR]',
      '         [--loop warn|terminate|off] [--turn-timeout DUR] [--on-stall warn|terminate] [--retries N]',
      '         [--on-limit continue|end] [--max-continues N] [--after RUN[,RUN...]]... [--after-any]',
      '         [--interactive] [--idle-after DUR] [--allow RULE]... [--deny RULE]...',
      '         [--cwd DIR] [-e KEY=VALUE | -e KEY]... [--env-from FILE]... [--detach] [--worktree [--base REF]] [--json]',
      '         [-- COMMAND ARGS...]',
      'orcr run --from FILE|- [--json]',
    ],
  },
  rerun: { group: 'start', summary: "queue an ended run's spec again, as NAME-2, -3, …", module: 'run', json: true, operands: run },
  send: {
    group: 'start',
    summary: 'give an idle run its next input (- reads it from stdin)',
    module: 'run',
    json: true,
    operands: run,
    usage: ['orcr send <run> <text>... [--json]', 'orcr send <run> -'],
  },
  wait: {
    group: 'start',
    summary: 'until runs are idle, blocked or ended; its exit code says how',
    module: 'wait',
    json: true,
    flags: { all: { type: 'boolean' }, timeout: { type: 'string' } },
    operands: runs,
    usage: ['orcr wait <run>...|--all [--timeout DUR] [--json]'],
  },
  approvals: {
    group: 'start',
    summary: 'what agents asked before using a tool, waiting for you',
    module: 'approvals',
    json: true,
    flags: { all: { type: 'boolean' }, cluster: { type: 'boolean' } },
    operands: { kind: 'run', name: 'RUN|ID' },
    usage: ['orcr approvals [--all] [RUN] [--json]', 'orcr approvals ID [--json]', 'orcr approvals --cluster [--json]'],
  },
  approve: {
    group: 'start',
    summary: "allow agents' requests: by id, or each one a run has waiting",
    module: 'approvals',
    json: true,
    flags: { always: { type: 'boolean' }, answer: { type: 'string', multiple: true, meta: 'LABEL' } },
    operands: requests,
  },
  deny: {
    group: 'start',
    summary: "refuse agents' requests, telling them why (-m)",
    module: 'approvals',
    json: true,
    flags: { message: { type: 'string', short: 'm', meta: 'TEXT' } },
    operands: requests,
  },
  ps: {
    group: 'watch',
    summary: 'list the active runs (--all: ended ones too)',
    module: 'ps',
    json: true,
    flags: {
      all: { type: 'boolean' },
      status: { type: 'string', value: RUN_STATUSES, meta: 'S' },
      provider: { type: 'string', short: 'a' },
      tree: { type: 'boolean' },
      cluster: { type: 'boolean' },
      host: { type: 'string', meta: 'HOST' },
    },
    usage: ['orcr ps [--all] [--status S] [-a PROVIDER] [--tree] [--json]', 'orcr ps --cluster [--host HOST] [--all] [--status S] [-a PROVIDER] [--json]'],
  },
  show: {
    group: 'watch',
    summary: 'one run in full: status, budget, usage, why it waits',
    module: 'ps',
    json: true,
    flags: { env: { type: 'boolean' }, cluster: { type: 'boolean' } },
    operands: run,
    usage: [
      'orcr show <run> [--env] [--json]',
      'orcr show HOST:RUN [--cluster] [--json]  (a run of another machine of the cluster; --cluster: a bare name looked up there first)',
    ],
  },
  logs: {
    group: 'watch',
    summary: "a run's output: its transcript, or the lines as written",
    module: 'logs',
    json: true,
    flags: {
      tail: { type: 'string' },
      follow: { type: 'boolean', short: 'f' },
      stderr: { type: 'boolean' },
      pretty: { type: 'boolean' },
      raw: { type: 'boolean' },
    },
    operands: run,
    usage: ['orcr logs <run> [--tail N] [--follow] [--pretty | --raw | --json] [--stderr]'],
  },
  events: {
    group: 'watch',
    summary: "the journal's events, replayed or followed",
    module: 'events',
    json: true,
    flags: { follow: { type: 'boolean', short: 'f' }, since: { type: 'string', meta: 'SEQ' }, cluster: { type: 'boolean' } },
    usage: [
      'orcr events [--follow] [--since SEQ] [--json]',
      "orcr events --cluster [--follow] [--json]  (the fleet's status changes: each run's last, then each as seen)",
    ],
  },
  diff: {
    group: 'watch',
    summary: "a worktree run's changes against its base",
    module: 'worktree',
    json: true,
    flags: { stat: { type: 'boolean' } },
    operands: run,
  },
  kill: {
    group: 'act',
    summary: 'stop runs, by name or by a filter (queued ones are canceled)',
    module: 'kill',
    json: true,
    flags: {
      force: { type: 'boolean' },
      all: { type: 'boolean' },
      status: { type: 'string', value: ACTIVE_STATUSES },
      provider: { type: 'string', short: 'a' },
      workload: { type: 'string', short: 'w' },
      name: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      'dry-run': { type: 'boolean' },
      'keep-children': { type: 'boolean' },
      'keep-dependents': { type: 'boolean' },
      after: { type: 'string', value: 'run' },
    },
    operands: runs,
    usage: [
      "orcr kill <run>... [--force] [--keep-children] [--keep-dependents] [--json]  (a run's descendants go with it unless --keep-children)",
      'orcr kill (--all | --status S | -a PROVIDER | -w WORKLOAD | --name GLOB | --after RUN)... [--yes] [--dry-run] [--force] [--json]',
    ],
  },
  worktree: {
    group: 'act',
    summary: "merge, keep or discard a run's worktree; prune orphaned ones",
    module: 'worktree',
    json: true,
    subcommands: {
      finish: {
        flags: { merge: { type: 'boolean' }, 'keep-branch': { type: 'boolean' }, discard: { type: 'boolean' } },
        operands: run,
        usage: ['orcr worktree finish <run> (--merge | --keep-branch | --discard) [--json]'],
      },
      prune: { flags: { force: { type: 'boolean' }, 'dry-run': { type: 'boolean' } } },
    },
  },
  gc: {
    group: 'act',
    summary: 'remove old ended runs with their events and worktrees',
    module: 'worktree',
    json: true,
    flags: { 'older-than': { type: 'string', meta: 'DUR' }, 'dry-run': { type: 'boolean' }, branches: { type: 'boolean' }, force: { type: 'boolean' } },
  },
  stats: {
    group: 'fleet',
    summary: 'every cap: active and limit, holders, queue, holds',
    module: 'stats',
    json: true,
    flags: { cluster: { type: 'boolean' } },
    usage: ['orcr stats [--json]', "orcr stats --cluster [--json]  (each machine's runs by status)"],
  },
  spend: {
    group: 'fleet',
    summary: 'tokens and cost by provider and by workload',
    module: 'stats',
    json: true,
    flags: { cluster: { type: 'boolean' } },
    usage: ['orcr spend [--json]', "orcr spend --cluster [--json]  (the fleet's published meters by machine, provider, workload)"],
  },
  queue: {
    group: 'fleet',
    summary: 'pause admission, or resume it (runs still queue)',
    module: 'server',
    json: true,
    subcommands: { pause: onMachine, resume: onMachine },
  },
  provider: {
    group: 'fleet',
    summary: "lift a provider's usage-limit hold early",
    module: 'server',
    json: true,
    subcommands: { resume: { operands: { kind: 'text', name: 'NAME' }, flags: onMachine.flags } },
  },
  loop: {
    group: 'loops',
    summary: 'commands on a cron schedule, or once at a time',
    module: 'loop',
    json: true,
    subcommands: {
      create: {
        flags: {
          'once-at': { type: 'string' },
          'max-concurrency': { type: 'string' },
          overlap: { type: 'string', value: ['queue', 'skip'] },
          timeout: { type: 'string' },
          tz: { type: 'string' },
        },
        operands: text,
        command: true,
        usage: [
          'orcr loop create NAME ("CRON" | --once-at TIME) [--max-concurrency N] [--overlap queue|skip]',
          '         [--timeout DUR] [--tz ZONE] [--json] -- COMMAND ARGS...',
        ],
      },
      ls: none,
      logs: { operands: loop },
      pause: { operands: loop },
      resume: { operands: loop },
      rm: { flags: { 'kill-active': { type: 'boolean' }, yes: { type: 'boolean', short: 'y' } }, operands: loop },
      run: { subcommands: { start: { operands: loop }, stop: { operands: loop }, ls: { operands: loop } } },
    },
  },
  server: {
    group: 'supervisor',
    summary: "the supervisor's status; stop it (its agents go on, or not)",
    module: 'server',
    json: true,
    subcommands: {
      status: none,
      stop: { flags: { drain: { type: 'boolean' }, 'kill-agents': { type: 'boolean' } }, usage: ['orcr server stop [--drain | --kill-agents] [--json]'] },
    },
  },
  cluster: {
    group: 'supervisor',
    summary: "the machines sharing this home's caps; the cluster's SQL",
    module: 'cluster',
    json: true,
    subcommands: { status: none, schema: none, forget: { operands: { kind: 'text', name: 'HOST' } } },
  },
  serve: { group: 'supervisor', summary: 'the supervisor, in the foreground (any verb starts one)', module: 'serve', json: false },
  demo: { group: 'more', summary: 'a simulated fleet in a throw-away home', module: 'mcp', json: true, flags: { home: { type: 'string', value: 'dir' } } },
  mcp: { group: 'more', summary: 'the Model Context Protocol on stdio, for agents', module: 'mcp', json: false },
  completion: { group: 'more', summary: 'a completion script for bash, zsh or fish', module: 'completion', json: false, operands: { kind: SHELLS } },
  help: {
    group: 'more',
    summary: "this list, or one verb's flags and what they do",
    module: 'help',
    json: true,
    operands: { kind: 'verb', many: true },
    usage: ['orcr help [VERB [SUBCOMMAND...]] [--json]'],
  },
  __complete: {
    group: 'more',
    summary: 'names for the completion scripts',
    module: 'completion',
    json: true,
    hidden: true,
    operands: { kind: COMPLETE_KINDS },
  },
} as const satisfies Readonly<Record<string, VerbSpec>>;

export type VerbName = keyof typeof VERBS;

/** The words a command is reached by, below `orcr`: `ps`, `loop run start`. */
type PathsOf<C, P extends string> =
  P | (C extends { readonly subcommands: infer S } ? { [K in keyof S & string]: PathsOf<S[K], `${P} ${K}`> }[keyof S & string] : never);
export type CommandPath = { [V in VerbName]: PathsOf<(typeof VERBS)[V], V> }[VerbName];

export function isVerb(word: string): word is VerbName {
  return Object.hasOwn(VERBS, word);
}

/** Every verb, in --help's order. */
export function verbNames(): VerbName[] {
  return Object.keys(VERBS) as VerbName[];
}

/** A verb's entry, as the interface every entry meets. */
export function spec(verb: VerbName): VerbSpec {
  return VERBS[verb];
}

/** The verbs a person is shown (help, completion). */
export function shownVerbs(): VerbName[] {
  return verbNames().filter((v) => spec(v).hidden !== true);
}

/** The command at a path of words (`loop`, `run`, `start`), or null when the path names none. */
export function commandAt(verb: VerbName, ...subs: string[]): Command | null {
  let at: Command = spec(verb);
  for (const s of subs) {
    const next = at.subcommands && Object.hasOwn(at.subcommands, s) ? at.subcommands[s] : undefined;
    if (!next) return null;
    at = next;
  }
  return at;
}

/** A command's flags with those of every subcommand below it: for a verb that parses its flags before it reads its subcommand. */
function flagsUnder(c: Command): FlagDecls {
  return Object.assign({}, c.flags, ...Object.values(c.subcommands ?? {}).map(flagsUnder)) as FlagDecls;
}

/** Whether a command takes positionals at all. */
export function takesPositionals(c: Command): boolean {
  return c.operands !== undefined || c.subcommands !== undefined;
}

/** A command that takes the flags of its subcommands too: for a verb that parses its flags before it reads its subcommand. */
export function withSubcommandFlags(c: Command): Command {
  return { ...c, flags: flagsUnder(c) };
}
