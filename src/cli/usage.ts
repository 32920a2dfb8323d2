// Help text: each verb's own (orcr help VERB, orcr VERB --help, and after a
// usage error), and the list of verbs (orcr --help), made from the verbs'
// grammar. A command's usage line is made by a rule — `orcr PATH OPERANDS
// [FLAG]... [--json]`, subcommands alike on one line (`orcr queue
// pause|resume`) — or written out in the grammar where the rule cannot say
// it; what no line says is here: a note in parentheses after a command's line,
// and lines of detail below it. It stands alone: nothing here points at files
// outside the package.

import {
  GROUPS,
  shownVerbs,
  spec,
  verbNames,
  VERBS,
  type Command,
  type CommandPath,
  type FlagDecl,
  type Group,
  type Operands,
  type ValueKind,
  type VerbName,
} from './grammar.js';

/** In parentheses after a command's (last) usage line: what it does or what its flags mean, where the line does not say. */
const NOTES: { readonly [P in CommandPath]?: string } = {
  run: 'one JSON run spec per line',
  ps: `--tree: children indented under their parent; --cluster: every machine's runs (a MACHINE column,
another machine's as HOST:NAME), as each published them; --host HOST: one machine's`,
  show: '--env: the values of its -e variables too',
  rerun: 'queue a new run with the same spec; its name gets -2, -3, …',
  'loop run': 'start: fire now; stop: stop its active runs; ls: its runs',
  queue: 'while paused nothing starts; runs still queue',
  send: `the text from stdin: off the command line, which every local user
can read in /proc/PID/cmdline while orcr runs`,
  approvals: 'one request whole: its input, the "always" rule it offers, its questions',
  spend: "tokens and cost by provider and by workload over the fleet budget's window, and the last hour",
  'provider resume': 'lift a usage-limit hold early; exit 4 if NAME is not on hold',
  demo: 'DIR: a new or empty folder; to end it: orcr server stop --kill-agents, then remove the folder',
  mcp: `the Model Context Protocol on stdin/stdout: tools that start, watch and stop runs;
for an agent's MCP config: {"command": "orcr", "args": ["mcp"]}; its runs start with its environment`,
  diff: "the run's worktree against its base: committed, uncommitted and new files",
  'worktree prune': 'orphaned worktrees; one with uncommitted changes only with --force',
  'cluster status': "the machines sharing this home's cluster; exit 0 while its database is away, saying so",
  'cluster schema': "the SQL of the cluster's tables, to apply as a migration",
  'cluster forget': "drop a machine that left for good from the cluster's list; a live one is refused",
  help: "the verbs, one line each; or one verb's flags and what they do, as orcr VERB --help",
  completion: `a completion script: verbs, subcommands, flags, their values, and the names of
runs and loops, asked of the running supervisor as you type; it never starts one`,
  __complete: `for the completion scripts: the names of the active and recent runs, or
of the loops, one a line, from the running supervisor; nothing, and exit 0, when none runs`,
};

/** What approve and deny say of who answers and what they exit with. */
const ANSWERS = `Each answer is recorded as the CLI's, with your user name and this terminal (or this process), and
the run it is given from ($ORCR_RUN): a run never answers its own requests, nor those of a run above it (refused, 7).
Each target gets a line; exit 0 when each was answered, else the highest of: 2 an answer the request
does not take, 4 no longer waiting (answered already: by whom is said; or withdrawn), 6 no such request
or run, 7 refused.`;

/** Below a command's usage lines, indented: what its flags and operands do. */
const DETAILS: { readonly [P in CommandPath]?: string } = {
  run: `--max-turns N: after turn N the agent's input closes; if it begins turn N+1 it is stopped there (budget, N / N).
--max-cost USD: metered from the agent's own cost (--protocol claude or jsonl) or providers.NAME.price.
--turn-timeout: a turn with no output for DUR is a stall; --on-stall terminate (default: ends it timeout, detail stall) or warn (flags it).
--retries N (0-100): an attempt that fails for a passing reason (its process lost, a turn timeout, an agent
that never got going, the agent's API errors after its own retries) is tried again up to N times, after
2 s, 4 s, 8 s… (up to 5 min, ±20%), within --timeout; it resumes the agent's session where there is one.
Never retried: completed, budget, loop, killed, a usage limit (that continues the run when the limit resets).
--on-limit continue|end, --max-continues N (0-100): a usage limit queues the run again and resumes its
agent's session when the limit resets (default for claude, codex, codex-app and acp, at most 5 times), or ends it.
--after RUN (repeat it, or a,b,c): queued, but not started until each RUN has completed (--after-any: ended
however); it holds no slot meanwhile, and is canceled if one ends otherwise. Its agent gets ORCR_AFTER (their
uuids, space-separated). In --from lines: "after": ["name", ...], naming other lines or any run.
In a cluster, --after HOST:RUN waits for a run of another machine (HOST:UUID in ORCR_AFTER).
--allow RULE, --deny RULE (repeat them): what its agent asks to do (Claude Code asks orcr before a tool its own settings
do not allow) is answered by these rules first, in Claude Code's syntax — Read, Bash(npm test:*), Bash(git log *),
Edit(src/**), WebFetch(domain:example.com), mcp__server — then by config.json's approvals, then by a person (orcr
approvals, orcr approve, orcr deny, the TUI), then by the deadline. A deny wins; a question is always a person's.
--worktree: the agent works in a new git worktree of cwd's repository, on branch orcr/<name> from REF (default HEAD).
--base RUN (with --after RUN): from that run's worktree as it left it, uncommitted work included.
From inside a run ($ORCR_RUN set) the new run is its child; --detach: not its child.
-p @FILE reads the prompt from FILE, -p - from stdin; -p @@TEXT is the prompt @TEXT.
-e KEY takes the value from your environment; --env-from FILE reads KEY=VALUE lines (# comments); -e wins.
Secrets: -e KEY, --env-from, -p @FILE and -p - keep values off the command line; -e KEY=VALUE and -p TEXT
are in /proc/PID/cmdline, which every local user can read while orcr runs.
One argument or -e NAME=value must be less than 128 KiB, and the command with the environment within ARG_MAX.
Durations: 500ms, 30s, 1m30s, 2h, 3d (largest unit first), at most 365d; --timeout, --turn-timeout and
--idle-after must be more than 0 (leave one out for no limit). Names: at most 200 characters; no control,
invisible or line-separating characters, no combining mark first or stacked over 2 (a refused name is shown
escaped: "a\\u200bb").`,
  kill: `In a cluster, HOST:RUN names a run of another machine: its supervisor kills it (through the cluster's database).
What waits for a killed run (run --after) is canceled with it, unless --keep-dependents: it then waits for its
other inputs only. --after RUN selects the runs waiting for RUN.
A filter acts on the active runs it matches, after a y/N question (--yes: none; no terminal: --yes is required).`,
  loop: `CRON: five fields (minute hour day-of-month month day-of-week), kept in your time zone.
--once-at: 30m (from now), 2026-12-02T09:00:00Z, 14:30 or "2026-12-02 09:00" (local).
At --max-concurrency (default 1): queue keeps one pending run (later fires coalesce), skip drops the fire.
Fires missed while asleep or without a supervisor are skipped and logged, never run late.`,
  wait: `From inside a run ($ORCR_RUN set) --all leaves out that run and its ancestors.
In a cluster, HOST:RUN waits for a run of another machine: same answers and exit codes.`,
  send: 'In a cluster, HOST:RUN sends to a run of another machine (its supervisor writes the input).',
  queue: '--host HOST: pause or resume admission on another machine of the cluster.',
  'provider resume': '--host HOST: lift the hold on another machine of the cluster.',
  approvals: `Oldest first, across the fleet; RUN: one run's. Columns ID, RUN, AGE, DEADLINE, WHAT.
DEADLINE: when nobody answering decides it, and how (deny in 58m; none: it waits for you).
--all: decided and withdrawn ones too, with who decided (STATE). A question's options are numbered.
A word of digits is a request's id: give a run named so by its uuid.`,
  approve: `ID: a request's id (orcr approvals lists them); RUN: each request the run has waiting.
In a cluster, HOST:ID and HOST:RUN answer another machine's requests; it records you and this machine.
--answer answers a question: once per question, in order, an option's label or its number; a multi-select
question takes several, comma-separated (--answer 1,3, --answer Lint,Tests).
--always: allow the like of it from now on in the run (the rule the request offers; orcr approvals ID shows it).
${ANSWERS}`,
  deny: `ID: a request's id (orcr approvals lists them); RUN: each request the run has waiting.
In a cluster, HOST:ID and HOST:RUN answer another machine's requests; it records you and this machine.
-m TEXT: what the agent is told (say why, and what to do instead); it goes on with its turn.
${ANSWERS}`,
  logs: `--pretty (the default on a terminal): the transcript — prompt and inputs, what the agent said,
each tool call on one line with its result folded, turn ends with usage and cost.
--raw (the default when piped): the lines as written. --tail N counts transcript entries when pretty.
HOST:RUN (in a cluster): another machine's run, its last lines (at most 10,000 and 256 KiB); no --follow.`,
  events: "One event a line: SEQ, time, type, the run's short id and name (- for none), data; tab-separated.",
  server: `--drain: admit nothing more, wait for the running agents to end, then stop; --kill-agents: kill them first.
Without either the agents go on, and the next supervisor re-adopts them.
Queued runs stay queued either way, and the next supervisor starts them (orcr queue pause first keeps them waiting).
--kill-agents on a stopped home starts a supervisor that admits nothing, kills the agents left running, and stops.`,
  gc: `Remove ended runs older than DUR (default retention.ended) with their events and directories, and the worktrees
of ended runs whose branch has no commits (--branches: those with commits too, keeping the branch; --force: dirty ones too).
--dry-run counts runs, events and bytes as the gc after it removes them.`,
  'worktree finish': `--merge: into the base branch (a conflict aborts it and changes nothing); --keep-branch: keep orcr/<name>; --discard: drop it.
The run's uncommitted work is committed to its branch first (not with --discard); the worktree is removed.`,
  help: '--json: the verbs with their group and summary; for one verb, its usage, subcommands and flags.',
  completion: `bash: source <(orcr completion bash)   (in ~/.bashrc)
zsh:  orcr completion zsh > ~/.zfunc/_orcr   (with fpath=(~/.zfunc $fpath) in ~/.zshrc before compinit)
fish: orcr completion fish > ~/.config/fish/completions/orcr.fish`,
};

/** A usage line, and what follows it in parentheses. */
interface Line {
  readonly text: string;
  readonly note?: string;
}

/** What a usage line calls a value of a kind, where it is not the kind in capitals (`DIR`, `FILE`). */
const KIND_WORDS: { readonly [K in ValueKind & string]?: string } = { run: '<run>', loop: 'NAME' };

/** What a usage line calls an operand: a run `<run>`, a loop `NAME`, one of a few words `a|b`. */
function operandWord(o: Operands): string {
  const word = o.name ?? (typeof o.kind === 'string' ? (KIND_WORDS[o.kind] ?? o.kind.toUpperCase()) : o.kind.join('|'));
  return o.many ? `${word}...` : word;
}

/** `[--all]`, `[-a PROVIDER]` (a flag with a value by its short name if it has one), `[--env-from FILE]...`; a text is the flag's name in capitals. */
function flagWord(name: string, f: FlagDecl): string {
  if (f.type === 'boolean') return `[--${name}]`;
  const kind = f.value ?? 'text';
  const value = f.meta ?? (typeof kind === 'string' ? (kind === 'text' ? name : kind).toUpperCase() : kind.join('|'));
  return `[${f.short ? `-${f.short}` : `--${name}`} ${value}]${f.multiple ? '...' : ''}`;
}

/** A command's line after `orcr PATH`: its operands, its flags in their order, --json, `-- COMMAND ARGS...`. */
function lineAfter(c: Command, json: boolean): string[] {
  const flags = Object.entries(c.flags ?? {}).filter(([name]) => name !== 'json');
  return [
    ...(c.operands ? [operandWord(c.operands)] : []),
    ...flags.map(([name, f]) => flagWord(name, f)),
    ...(json ? ['[--json]'] : []),
    ...(c.command ? ['-- COMMAND ARGS...'] : []),
  ];
}

/** A command's usage lines with its note, then its details. */
function commandLines(path: CommandPath, c: Command, json: boolean): Line[] {
  const lines: Line[] = c.usage
    ? c.usage.map((text) => ({ text }))
    : c.subcommands
      ? subcommandLines(path, c.subcommands, json)
      : [{ text: ['orcr', path, ...lineAfter(c, json)].join(' ') }];
  const note = NOTES[path];
  if (note !== undefined) lines.push({ text: lines.pop()!.text, note });
  const details = DETAILS[path];
  return details === undefined ? lines : [...lines, ...details.split('\n').map((text) => ({ text: `  ${text}` }))];
}

/** Each subcommand's lines; those alike — the same operands and flags, nothing of their own to say — on one: `orcr queue pause|resume`. */
function subcommandLines(path: CommandPath, subs: Readonly<Record<string, Command>>, json: boolean): Line[] {
  const out: (Line | { words: string[]; after: string })[] = [];
  for (const [word, sub] of Object.entries(subs)) {
    const at = `${path} ${word}` as CommandPath;
    if (sub.usage || sub.subcommands || NOTES[at] !== undefined || DETAILS[at] !== undefined) {
      out.push(...commandLines(at, sub, json));
      continue;
    }
    const after = lineAfter(sub, json).join(' ');
    const last = out.at(-1);
    if (last && 'words' in last && last.after === after) last.words.push(word);
    else out.push({ words: [word], after });
  }
  return out.map((l) => ('words' in l ? { text: ['orcr', path, l.words.join('|'), l.after].filter((w) => w !== '').join(' ') } : l));
}

/** Two spaces past the longest of the lines with notes that `lines` starts with. */
function noteColumn(lines: readonly Line[]): number {
  let width = 0;
  for (const l of lines) {
    if (l.note === undefined) break;
    width = Math.max(width, l.text.length);
  }
  return width + 2;
}

/** The lines as printed: the notes of lines one after another in one column; a note's next lines under its first word. */
function layout(lines: readonly Line[]): string {
  const out: string[] = [];
  let column = 0;
  for (const [i, line] of lines.entries()) {
    if (line.note === undefined) {
      out.push(line.text);
      continue;
    }
    if (lines[i - 1]?.note === undefined) column = noteColumn(lines.slice(i));
    out.push(`${line.text.padEnd(column)}(${line.note.replaceAll('\n', `\n${' '.repeat(column + 1)}`)})`);
  }
  return out.join('\n');
}

/** Each verb's help, as orcr help VERB prints it after `usage: `. */
export const VERB_USAGE: { readonly [V in VerbName]: string } = Object.fromEntries(
  verbNames().map((v) => [v, layout(commandLines(v, spec(v), spec(v).json))]),
) as { [V in VerbName]: string };

/** `usage: …` for one verb, as orcr help VERB and orcr VERB --help print it. */
export function verbUsage(verb: VerbName): string {
  return `usage: ${VERB_USAGE[verb]}`;
}

const FOOTER = `orcr help VERB (or orcr VERB --help): a verb's flags and what they do.
<run>: a uuid, a unique uuid prefix, or a name. --json: one JSON document.
Home: $ORCR_HOME (default ~/.orcr); any verb starts the supervisor if none runs.
NO_COLOR turns colour off; FORCE_COLOR=1 turns it on when not on a terminal.
Exit codes: 0 ok, 1 internal error, 2 usage or config error, 3 wait timed out,
4 a target is blocked or already answered, 5 a target ended other than
completed, 6 no such run or request, 7 refused (queue full, supervisor
unavailable, a run answering its own request).`;

/** orcr --help: the verbs, one line each, by group, as git, kubectl and pueue list theirs. */
export function mainUsage(): string {
  const verbs = shownVerbs();
  const width = Math.max(...verbs.map((v) => v.length)) + 2;
  const groups = (Object.keys(GROUPS) as Group[]).map((g) => {
    const lines = verbs.filter((v) => VERBS[v].group === g).map((v) => `  ${v.padEnd(width)}${VERBS[v].summary}`);
    return `${GROUPS[g]}\n${lines.join('\n')}`;
  });
  return `orcr — a supervisor for fleets of AI coding agents

usage: orcr VERB [ARGS...] [--json]

${groups.join('\n\n')}

${FOOTER}`;
}
