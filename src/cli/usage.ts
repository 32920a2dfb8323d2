// Help text: each verb's own (orcr help VERB, orcr VERB --help, and after a
// usage error), and the list of verbs (orcr --help), made from the verbs'
// grammar. It stands alone: nothing here points at files outside the package.

import { GROUPS, shownVerbs, VERBS, type Group, type VerbName } from './grammar.js';

/** A verb's long help; a verb of grammar.ts without one (or one here that is no verb) does not compile. */
export const VERB_USAGE: { readonly [V in VerbName]: string } = {
  run: `orcr run [-a PROVIDER] [-n NAME] [-w WORKLOAD] [-p PROMPT|@FILE|-] [--protocol P]
         [--max-turns N] [--max-tokens N] [--max-cost USD] [--timeout DUR]
         [--loop warn|terminate|off] [--turn-timeout DUR] [--on-stall warn|terminate] [--retries N]
         [--on-limit continue|end] [--max-continues N] [--after RUN[,RUN...]]... [--after-any]
         [--interactive] [--idle-after DUR]
         [--cwd DIR] [-e KEY=VALUE | -e KEY]... [--env-from FILE]... [--detach] [--worktree [--base REF]] [--json]
         [-- COMMAND ARGS...]
orcr run --from FILE|- [--json]  (one JSON run spec per line)
  --max-turns N: after turn N the agent's input closes; if it begins turn N+1 it is stopped there (budget, N / N).
  --max-cost USD: metered from the agent's own cost (--protocol claude or jsonl) or providers.NAME.price.
  --turn-timeout: a turn with no output for DUR is a stall; --on-stall terminate (default: ends it timeout, detail stall) or warn (flags it).
  --retries N (0-100): an attempt that fails for a passing reason (its process lost, a turn timeout, an agent
  that never got going, the agent's API errors after its own retries) is tried again up to N times, after
  2 s, 4 s, 8 s… (up to 5 min, ±20%), within --timeout; it resumes the agent's session where there is one.
  Never retried: completed, budget, loop, killed, a usage limit (that continues the run when the limit resets).
  --on-limit continue|end, --max-continues N (0-100): a usage limit queues the run again and resumes its
  agent's session when the limit resets (default for claude and codex, at most 5 times), or ends it.
  --after RUN (repeat it, or a,b,c): queued, but not started until each RUN has completed (--after-any: ended
  however); it holds no slot meanwhile, and is canceled if one ends otherwise. Its agent gets ORCR_AFTER (their
  uuids, space-separated). In --from lines: "after": ["name", ...], naming other lines or any run.
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
  ps: 'orcr ps [--all] [--status S] [-a PROVIDER] [--tree] [--json]  (--tree: children indented under their parent)',
  show: 'orcr show <run> [--env] [--json]  (--env: the values of its -e variables too)',
  kill: `orcr kill <run>... [--force] [--keep-children] [--keep-dependents] [--json]  (a run's descendants go with it unless --keep-children)
orcr kill (--all | --status S | -a PROVIDER | -w WORKLOAD | --name GLOB | --after RUN)... [--yes] [--dry-run] [--force] [--json]
  What waits for a killed run (run --after) is canceled with it, unless --keep-dependents: it then waits for its
  other inputs only. --after RUN selects the runs waiting for RUN.
  A filter acts on the active runs it matches, after a y/N question (--yes: none; no terminal: --yes is required).`,
  rerun: 'orcr rerun <run> [--json]  (queue a new run with the same spec; its name gets -2, -3, …)',
  loop: `orcr loop create NAME ("CRON" | --once-at TIME) [--max-concurrency N] [--overlap queue|skip]
         [--timeout DUR] [--tz ZONE] [--json] -- COMMAND ARGS...
orcr loop ls|logs NAME|pause NAME|resume NAME [--json]
orcr loop rm NAME [--kill-active] [-y] [--json]
orcr loop run start|stop|ls NAME [--json]  (start: fire now; stop: stop its active runs; ls: its runs)
  CRON: five fields (minute hour day-of-month month day-of-week), kept in your time zone.
  --once-at: 30m (from now), 2026-12-02T09:00:00Z, 14:30 or "2026-12-02 09:00" (local).
  At --max-concurrency (default 1): queue keeps one pending run (later fires coalesce), skip drops the fire.
  Fires missed while asleep or without a supervisor are skipped and logged, never run late.`,
  queue: 'orcr queue pause|resume [--json]  (while paused nothing starts; runs still queue)',
  wait: `orcr wait <run>...|--all [--timeout DUR] [--json]
  From inside a run ($ORCR_RUN set) --all leaves out that run and its ancestors.`,
  send: `orcr send <run> <text>... [--json]
orcr send <run> -                (the text from stdin: off the command line, which every local user
                                  can read in /proc/PID/cmdline while orcr runs)`,
  logs: `orcr logs <run> [--tail N] [--follow] [--pretty | --raw | --json] [--stderr]
  --pretty (the default on a terminal): the transcript — prompt and inputs, what the agent said,
  each tool call on one line with its result folded, turn ends with usage and cost.
  --raw (the default when piped): the lines as written. --tail N counts transcript entries when pretty.`,
  events: `orcr events [--follow] [--since SEQ] [--json]
  One event a line: SEQ, time, type, the run's short id and name (- for none), data; tab-separated.`,
  stats: 'orcr stats [--json]',
  spend: "orcr spend [--json]  (tokens and cost by provider and by workload over the fleet budget's window, and the last hour)",
  provider: 'orcr provider resume NAME [--json]  (lift a usage-limit hold early; exit 4 if NAME is not on hold)',
  demo: 'orcr demo [--home DIR] [--json]  (DIR: a new or empty folder; to end it: orcr server stop --kill-agents, then remove the folder)',
  serve: 'orcr serve',
  mcp: `orcr mcp  (the Model Context Protocol on stdin/stdout: tools run, wait, show, logs, send, kill, ps;
           for an agent's MCP config: {"command": "orcr", "args": ["mcp"]}; its runs start with its environment)`,
  server: `orcr server status [--json]
orcr server stop [--drain | --kill-agents] [--json]
  --drain: admit nothing more, wait for the running agents to end, then stop; --kill-agents: kill them first.
  Without either the agents go on, and the next supervisor re-adopts them.
  Queued runs stay queued either way, and the next supervisor starts them (orcr queue pause first keeps them waiting).
  --kill-agents on a stopped home starts a supervisor that admits nothing, kills the agents left running, and stops.`,
  gc: `orcr gc [--older-than DUR] [--dry-run] [--branches] [--force] [--json]
  Remove ended runs older than DUR (default retention.ended) with their events and directories, and the worktrees
  of ended runs whose branch has no commits (--branches: those with commits too, keeping the branch; --force: dirty ones too).
  --dry-run counts runs, events and bytes as the gc after it removes them.`,
  diff: "orcr diff <run> [--stat] [--json]  (the run's worktree against its base: committed, uncommitted and new files)",
  worktree: `orcr worktree finish <run> (--merge | --keep-branch | --discard) [--json]
  --merge: into the base branch (a conflict aborts it and changes nothing); --keep-branch: keep orcr/<name>; --discard: drop it.
  The run's uncommitted work is committed to its branch first (not with --discard); the worktree is removed.
orcr worktree prune [--force] [--dry-run] [--json]  (orphaned worktrees; one with uncommitted changes only with --force)`,
  cluster: `orcr cluster status [--json]        (the machines sharing this home's cluster; exit 0 while its database is away, saying so)
orcr cluster schema [--json]        (the SQL of the cluster's tables, to apply as a migration)
orcr cluster forget HOST [--json]   (drop a machine that left for good from the cluster's list; a live one is refused)`,
  help: `orcr help [VERB [SUBCOMMAND...]] [--json]  (the verbs, one line each; or one verb's flags and what they do, as orcr VERB --help)
  --json: the verbs with their group and summary; for one verb, its usage, subcommands and flags.`,
  completion: `orcr completion bash|zsh|fish  (a completion script: verbs, subcommands, flags, their values, and the names of
                                 runs and loops, asked of the running supervisor as you type; it never starts one)
  bash: source <(orcr completion bash)   (in ~/.bashrc)
  zsh:  orcr completion zsh > ~/.zfunc/_orcr   (with fpath=(~/.zfunc $fpath) in ~/.zshrc before compinit)
  fish: orcr completion fish > ~/.config/fish/completions/orcr.fish`,
  __complete: `orcr __complete runs|loops [--json]  (for the completion scripts: the names of the active and recent runs, or
                                    of the loops, one a line, from the running supervisor; nothing, and exit 0, when none runs)`,
};

/** `usage: …` for one verb, as orcr help VERB and orcr VERB --help print it. */
export function verbUsage(verb: VerbName): string {
  return `usage: ${VERB_USAGE[verb]}`;
}

const FOOTER = `orcr help VERB (or orcr VERB --help): a verb's flags and what they do.
<run>: a uuid, a unique uuid prefix, or a name. --json: one JSON document.
Home: $ORCR_HOME (default ~/.orcr); any verb starts the supervisor if none runs.
NO_COLOR turns colour off; FORCE_COLOR=1 turns it on when not on a terminal.
Exit codes: 0 ok, 1 internal error, 2 usage or config error, 3 wait timed out,
4 a target is blocked, 5 a target ended other than completed, 6 no such run,
7 refused (queue full, supervisor unavailable).`;

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
