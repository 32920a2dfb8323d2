// From a run spec (what a user asked for) to a new queued run record: the
// preset's command and protocol, the merged ceilings, and every check that
// would otherwise fail at launch (a cwd that is not a directory, a program
// not on the run's PATH, a taken or ambiguous name). Reads config and the
// journal; writes nothing.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { acceptsInput } from '../agents/input.js';
import { protocolsWith, reportsOwnCost } from '../agents/registry.js';
import { mergeLimits, NO_LIMITS } from '../core/budget.js';
import { limitsOf } from '../core/limits.js';
import { LOOP_PROVIDER, loopWorkload } from '../core/loop-policy.js';
import { newRun } from '../core/run-record.js';
import { PLAIN_PROTOCOL, type Protocol, type Run, type RunLimits, type RunWorktree } from '../core/types.js';
import type { Config } from '../config/load.js';
import { nameProblem, type RunSpec } from '../config/run-spec.js';
import { quote } from '../text/json-text.js';
import { BUILTIN_PROVIDERS, type ProviderPreset } from '../config/schema.js';
import { argMax, execProblem } from '../config/exec-limits.js';
import { LaunchError, resolveProgram } from '../runtime/launcher.js';
import { checkBranchFree, GitError, planWorktree, type WorktreePlan } from '../runtime/git-worktree.js';
import { RemoteError } from '../protocol/errors.js';
import { accountOf } from '../agents/accounts.js';

interface Resolved {
  command: string[];
  provider: string;
  protocol: Protocol | null;
  /** The prompt goes in argv (a config preset's `{prompt}`), not to stdin. */
  promptArgv: boolean;
}

/** A preset from config refines the built-in one of the same name (e.g. adds a price), key by key. */
function presetFor(config: Config, name: string): ProviderPreset | undefined {
  const builtin = Object.hasOwn(BUILTIN_PROVIDERS, name) ? BUILTIN_PROVIDERS[name] : undefined;
  const configured = Object.hasOwn(config.providers, name) ? config.providers[name] : undefined;
  return builtin || configured ? { ...builtin, ...configured } : undefined;
}

function resolveSpec(config: Config, spec: RunSpec): Resolved {
  let command = spec.command && spec.command.length > 0 ? spec.command : null;
  let provider = spec.provider ?? null;
  let protocol: Protocol | null = spec.protocol ?? null;
  let promptArgv = false;
  if (!command) {
    if (!provider) throw new RemoteError('usage', 'nothing to run: give -a PROVIDER (a preset) or -- COMMAND ARGS...');
    const preset = presetFor(config, provider);
    if (!preset || !preset.command) {
      throw new RemoteError('usage', `no provider preset named "${provider}" (define providers.${provider}.command in config.json, or give -- COMMAND)`);
    }
    protocol = protocol ?? preset.protocol ?? null;
    // A preset's `{prompt}` puts the prompt in argv (the user's choice in
    // config.json); without one it goes to stdin: the first input line of an
    // agent that takes input, else the text followed by EOF. The command
    // keeps the placeholder: `ps`, `show` and events never show the prompt.
    promptArgv = preset.command.some((a) => a.includes('{prompt}'));
    const takesInput = preset.interactive_input === true || acceptsInput(protocol);
    if (spec.prompt === undefined && !(spec.interactive && takesInput && !promptArgv)) {
      throw new RemoteError('usage', `provider "${provider}" needs a prompt: give -p PROMPT (or -p @FILE, -p - for stdin)`);
    }
    command = preset.command;
  } else {
    protocol = protocol ?? (provider ? presetFor(config, provider)?.protocol : undefined) ?? null;
    if (provider === null) {
      provider = path.basename(command[0]!);
      // A program's file name may hold what a name may not (a newline, a zero-width space).
      const problem = nameProblem(provider);
      if (problem !== null) throw new RemoteError('usage', `the provider name taken from the command, ${quote(provider)}, ${problem}: give one with -a NAME`);
    }
  }
  return { command, provider, protocol, promptArgv };
}

type RunEnv = Readonly<Record<string, string | undefined>>;

/** The environment a spec's run starts with: its caller's, plus `env`; the caller's itself (not a copy) when it adds nothing. */
function runEnv(spec: RunSpec): RunEnv {
  const caller = spec.caller_env ?? process.env;
  return spec.env === undefined || Object.keys(spec.env).length === 0 ? caller : { ...caller, ...spec.env };
}

/** What would fail at launch, refused at enqueue instead: a cwd that is not a directory, a program not found on the run's PATH. */
function checkCommand(command: string[], cwd: string, env: RunEnv): void {
  let dir: fs.Stats;
  try {
    dir = fs.statSync(cwd);
  } catch (e) {
    throw new RemoteError('usage', `cwd ${cwd}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (e as Error).message}`);
  }
  if (!dir.isDirectory()) throw new RemoteError('usage', `cwd ${cwd}: not a directory`);
  try {
    resolveProgram(command[0]!, cwd, env.PATH);
  } catch (e) {
    if (e instanceof LaunchError) throw new RemoteError('usage', `cannot run ${quote(command[0]!)}: ${e.message}`);
    throw e;
  }
}

/** checkCommand, once per program, cwd and PATH in a call (`known`): the same answer for every spec of a fan-out. */
function checkCommandOnce(command: string[], cwd: string, env: RunEnv, known: Map<string, RemoteError | null> | undefined): void {
  const key = `${command[0]!}\0${cwd}\0${env.PATH ?? ''}`;
  const seen = known?.get(key);
  if (seen === null) return;
  if (seen !== undefined) throw seen;
  try {
    checkCommand(command, cwd, env);
    known?.set(key, null);
  } catch (e) {
    if (e instanceof RemoteError) known?.set(key, e);
    throw e;
  }
}

/**
 * What execve would refuse (E2BIG at admission), refused at enqueue: the
 * command as it will be run (a preset's `{prompt}` filled in) and the
 * environment the run starts with, against this supervisor's ARG_MAX.
 */
function checkExecSize(r: Resolved, spec: RunSpec, env: RunEnv, where: string, known: SpecBatch['sized']): void {
  const argv = r.promptArgv ? r.command.map((a) => a.split('{prompt}').join(spec.prompt ?? '')) : r.command;
  // Asked once per environment and command in a call: a fan-out's specs share their caller's environment.
  const key = `${r.promptArgv ? r.provider : ''}\0${argv.join('\0')}`;
  let seen = known?.get(env);
  let problem = seen?.get(key);
  if (problem === undefined) {
    problem = execProblem(argv, env, argMax(), {
      argv: r.promptArgv ? `the command of provider ${JSON.stringify(r.provider)} with the prompt in it ({prompt})` : 'the command',
      env: 'the environment (the caller\'s, plus "env")',
    });
    if (known !== undefined) {
      if (seen === undefined) known.set(env, (seen = new Map()));
      seen.set(key, problem);
    }
  }
  if (problem !== null) throw new RemoteError('usage', where + problem);
}

export interface NameBook {
  /** The active run holding this name, if any. */
  holderOfName(name: string): string | undefined;
  /** A run that exists and has a worktree, by name or uuid (`--base RUN`), or null. */
  runWorktree?(ref: string): { uuid: string; name: string; worktree: RunWorktree } | null;
  /** Does this read as the start of some run's uuid? */
  isUuidPrefix(text: string): boolean;
}

/**
 * A name is a reference users type (`kill NAME`): it must stay unambiguous.
 * Refused: one an active run holds (or an earlier spec of the same call),
 * and one that reads as a prefix of a run's uuid.
 */
function checkName(name: string, index: number, taken: Map<string, number>, book: NameBook): void {
  const shown = JSON.stringify(name);
  const earlier = taken.get(name);
  if (earlier !== undefined)
    throw new RemoteError('usage', `specs ${earlier + 1} and ${index + 1} of this call both name a run ${shown}; give each its own name`);
  const holder = book.holderOfName(name);
  if (holder !== undefined) {
    throw new RemoteError('usage', `the name ${shown} is taken by an active run (${holder.slice(0, 8)}); pick another, or kill that run first`);
  }
  if (/^[0-9a-f-]{4,}$/i.test(name) && book.isUuidPrefix(name)) {
    throw new RemoteError('usage', `the name ${shown} reads as the start of another run's uuid; pick a name that does not`);
  }
  taken.set(name, index);
}

/** A run about to be made: its record once its queue place is known, and how it is admitted. */
export interface RunPlan {
  /** The run, once its place in the queue is known (a spec's default name is `<provider>-<queue_seq>`). */
  make(queueSeq: number): Run;
  /** The environment the run starts with (its maker's), or null for the supervisor's. */
  launchEnv: Record<string, string> | null;
  /** What its `queued` event says beside name, provider, workload and queue place. */
  queued: Record<string, unknown>;
  /**
   * `limiter`: it waits in the limiter's queue under every cap and counts
   * against concurrency.max_queued. `at_once`: a loop run — promoted in the
   * unit of work that queues it, never in the limiter, outside the global,
   * provider and workload caps and max_queued: the agent caps are for agents,
   * and a loop's own max_concurrency is its cap (the agents its command makes
   * queue as usual). A deliberate choice, kept from before the one planRun.
   */
  admission: 'limiter' | 'at_once';
}

/** The specs of one call, checked together: names and worktree folders may not repeat among them. */
interface SpecBatch {
  config: Config;
  book: NameBook;
  now: number;
  worktreeDir: string;
  size: number;
  /** Names given by earlier specs of the call, and which spec (0-based) gave each. */
  names: Map<string, number>;
  /** Earlier specs of the call with a name and a worktree: what `--base NAME` of a later one builds on. */
  worktrees?: Map<string, { repo: string; branch: string }>;
  paths: Set<string>;
  /** Program, cwd and PATH already checked in this call, and what the check said: a fan-out of one command looks once. */
  checked?: Map<string, RemoteError | null>;
  /** What execve would say of each environment and command of this call (checkExecSize). */
  sized?: Map<RunEnv, Map<string, string | null>>;
}

/** Where a run comes from: a user's spec, an ended run's rerun, or a loop's fire. */
export type RunKind =
  | { kind: 'spec'; spec: RunSpec; index: number; batch: SpecBatch }
  | { kind: 'rerun'; of: Run; name: string; now: number }
  | { kind: 'loop'; loop: { name: string; command: string[]; cwd: string }; name: string; launchEnv: Record<string, string> | null; now: number };

/** Every run is made here: its record, its environment, and how it is admitted. */
export function planRun(k: RunKind): RunPlan {
  switch (k.kind) {
    case 'spec':
      return planSpec(k.spec, k.index, k.batch);
    case 'rerun': {
      const old = k.of;
      const make = (queueSeq: number): Run =>
        newRun({
          uuid: crypto.randomUUID(),
          name: k.name,
          provider: old.provider,
          workload: old.workload,
          protocol: old.protocol,
          queue_seq: queueSeq,
          command: old.command,
          cwd: old.cwd,
          env: old.env,
          prompt: old.prompt,
          promptArgv: old.prompt_argv,
          interactive: old.interactive,
          limits: old.limits,
          now: k.now,
        });
      // Its maker's environment is the old run's (read at insert: see Queueing.rerun).
      return { make, launchEnv: null, queued: { rerun_of: old.uuid }, admission: 'limiter' };
    }
    case 'loop': {
      const { loop } = k;
      const make = (queueSeq: number): Run =>
        newRun({
          uuid: crypto.randomUUID(),
          name: k.name,
          provider: LOOP_PROVIDER,
          workload: loopWorkload(loop.name),
          protocol: PLAIN_PROTOCOL,
          queue_seq: queueSeq,
          command: loop.command,
          cwd: loop.cwd,
          // A script's repeated lines are not an agent looping.
          limits: { ...NO_LIMITS, loop: 'off' },
          now: k.now,
        });
      return { make, launchEnv: k.launchEnv, queued: { loop: loop.name }, admission: 'at_once' };
    }
  }
}

/**
 * Check every spec and resolve it into a run (queue_seq and, unless given,
 * name come at insert). One bad spec refuses them all: nothing is queued.
 */
export function planRuns(config: Config, specs: readonly RunSpec[], book: NameBook, now: number, worktreeDir = ''): RunPlan[] {
  const batch: SpecBatch = {
    config,
    book,
    now,
    worktreeDir,
    size: specs.length,
    names: new Map(),
    paths: new Set(),
    worktrees: new Map(),
    checked: new Map(),
    sized: new Map(),
  };
  return specs.map((spec, index) => planRun({ kind: 'spec', spec, index, batch }));
}

function planSpec(spec: RunSpec, i: number, batch: SpecBatch): RunPlan {
  const { config, book, now, worktreeDir, names, paths } = batch;
  const r = resolveSpec(config, spec);
  const env = runEnv(spec);
  checkExecSize(r, spec, env, batch.size > 1 ? `spec ${i + 1}: ` : '', batch.sized);
  if (spec.name !== undefined) checkName(spec.name, i, names, book);
  const workload = spec.workload ?? config.concurrency.default_workload;
  const want = spec.worktree ?? config.concurrency.workloads[workload]?.worktree ?? config.providers[r.provider]?.worktree ?? false;
  const baseRef = typeof want === 'object' ? want.base : undefined;
  const sibling = baseRef !== undefined ? batch.worktrees?.get(baseRef) : undefined;
  // A line of this call first (its uuid is known once the call's runs are made: `line:NAME` until then), then a run that exists.
  const baseRun =
    baseRef === undefined || want === false
      ? null
      : sibling !== undefined
        ? { uuid: `line:${baseRef}`, name: baseRef, worktree: { repo: sibling.repo, branch: sibling.branch } }
        : (book.runWorktree?.(baseRef) ?? null);
  const wt = want === false ? null : baseRun !== null ? planOnRun(spec, baseRun, i, batch) : gitChecked(() => planWorktree(spec.cwd, baseRef));
  if (wt !== null && spec.name !== undefined) batch.worktrees?.set(spec.name, { repo: wt.repo, branch: `orcr/${spec.name}` });
  // The program is looked for where the agent will start: the same place in its worktree holds the same tracked files.
  if (wt === null) checkCommandOnce(r.command, spec.cwd, env, batch.checked);
  const limits = runLimits(config, r.provider, spec);
  checkAgentFits(config, spec, r, limits);
  const uuid = crypto.randomUUID();
  const retries = spec.retries ?? config.concurrency.workloads[workload]?.retries ?? config.providers[r.provider]?.retries ?? 0;
  const account = accountOf(r.protocol, env);
  const make = (queueSeq: number): Run => {
    const name = spec.name ?? `${r.provider}-${queueSeq}`;
    const run = newRun({
      uuid,
      name,
      provider: r.provider,
      workload: spec.workload ?? config.concurrency.default_workload,
      protocol: r.protocol,
      queue_seq: queueSeq,
      command: r.command,
      cwd: spec.cwd,
      env: spec.env ?? {},
      prompt: spec.prompt ?? null,
      promptArgv: r.promptArgv,
      interactive: spec.interactive ?? false,
      limits,
      now,
      worktree: wt === null ? null : worktreeFor(wt, name, worktreeDir, paths),
    });
    return {
      ...run,
      ...(retries > 0 ? { retries } : {}),
      ...(account !== null ? { account } : {}),
      ...(spec.on_limit !== undefined ? { on_limit: spec.on_limit } : {}),
      ...(spec.max_continues !== undefined ? { max_continues: spec.max_continues } : {}),
      approvals: { allow: spec.allow ?? [], deny: spec.deny ?? [] },
    };
  };
  return { make, launchEnv: spec.caller_env ?? null, queued: {}, admission: 'limiter' };
}

/** The run's limits: config.json's for every run, then its provider's, then its own. */
function runLimits(config: Config, provider: string, spec: RunSpec): RunLimits {
  // Config's scopes say `timeout` where a run says timeout_ms (limitsOf); the spec's names are the run's own.
  return mergeLimits(
    { ...limitsOf(config.budgets.run), idle_after_ms: config.timings.idle_after, loop: config.loop.action },
    limitsOf(config.providers[provider]?.budgets),
    spec,
  );
}

/** What the run asks of its agent, its protocol must give: a cost ceiling metered, input after the prompt for --interactive. */
function checkAgentFits(config: Config, spec: RunSpec, r: Resolved, limits: RunLimits): void {
  const presetBudgets = config.providers[r.provider]?.budgets;
  if (limits.max_cost_usd !== null && !reportsOwnCost(r.protocol) && !config.providers[r.provider]?.price) {
    // Which ceiling, and what would get it accepted: a price, or (for a protocol not yet known) naming one that reports cost.
    const which =
      spec.max_cost_usd != null
        ? '--max-cost'
        : presetBudgets?.max_cost_usd != null
          ? `providers.${r.provider}.budgets.max_cost_usd`
          : 'budgets.run.max_cost_usd';
    const needs = `a cost ceiling (${which}) needs a price for provider ${JSON.stringify(r.provider)} (providers.${r.provider}.price in config.json)`;
    throw new RemoteError(
      'usage',
      r.protocol === null
        ? `${needs}, or an agent that reports its own cost: give ${protocolsWith((p) => p.reportsCost)
            .map((n) => `--protocol ${n}`)
            .join(' or ')} ("protocol" in a spec) if it does`
        : `${needs}: ${r.protocol} agents do not report their own cost`,
    );
  }
  if (spec.interactive && r.protocol !== null && !acceptsInput(r.protocol)) {
    // One-shot agents (codex exec, gemini) take no input after their prompt,
    // and with a pipe on stdin they wait for its end before starting at all.
    throw new RemoteError(
      'usage',
      `--interactive needs an agent that takes input (protocol ${protocolsWith((p) => p.input !== undefined).join(' or ')}); ${r.protocol} runs are one-shot`,
    );
  }
}

function gitChecked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof GitError) throw new RemoteError('usage', e.message);
    throw e;
  }
}

/**
 * The run's worktree as planned at enqueue: branch orcr/<name>, folder
 * <dir>/<repo>-<name>. Refused (nothing queued) when either is taken.
 */
/**
 * `--base RUN`: the worktree starts from that run's work as it left it (its
 * worktree snapshotted at launch), so the run must wait for it (`after`) and
 * work in the same repository.
 */
function planOnRun(
  spec: RunSpec,
  base: { uuid: string; name: string; worktree: { repo: string; branch: string } },
  i: number,
  batch: SpecBatch,
): WorktreePlan & { base_run: string } {
  const where = batch.size > 1 ? `spec ${i + 1}: ` : '';
  const after = spec.after ?? [];
  if (!after.includes(base.name) && !after.includes(base.uuid)) {
    throw new RemoteError(
      'usage',
      `${where}--base ${JSON.stringify(base.name)} builds on that run's work: it needs --after ${JSON.stringify(base.name)} too (it must wait for it)`,
    );
  }
  const here = gitChecked(() => planWorktree(spec.cwd, undefined));
  if (here.repo !== base.worktree.repo)
    throw new RemoteError('usage', `${where}--base ${JSON.stringify(base.name)}: that run's worktree is of ${base.worktree.repo}, not of ${here.repo}`);
  return { ...here, base: `run ${base.name}`, base_commit: '', base_branch: base.worktree.branch, base_run: base.uuid };
}

function worktreeFor(plan: WorktreePlan, name: string, dir: string, paths: Set<string>): RunWorktree {
  const branch = `orcr/${name}`;
  gitChecked(() => checkBranchFree(plan.repo, branch));
  const folder = path.join(dir, `${path.basename(plan.repo)}-${name.replace(/[^A-Za-z0-9._-]+/g, '-')}`);
  if (paths.has(folder) || fs.existsSync(folder)) {
    throw new RemoteError('usage', `the worktree folder ${folder} already exists; pick another run name (-n), or remove it (orcr worktree prune)`);
  }
  paths.add(folder);
  return { ...plan, path: folder, branch, state: 'planned', added: 0, removed: 0, files: 0 };
}
