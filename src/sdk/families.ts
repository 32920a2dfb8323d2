// The SDK's families of methods, named as the CLI's verbs with subcommands
// are: `orcr.loops.create(…)` is `orcr loop create`, `orcr.server.stop()` is
// `orcr server stop`. Each is one typed call through the program's session.

import type { ApprovalAnswered, ApprovalGot, Caller, FinishMode, Method, ParamsArg, PublicApproval, PublicLoop, Result } from '../client/methods.js';
import type { Session } from '../client/session.js';
import type { AnswerVia } from '../core/approvals.js';
import type { RunEvent } from '../core/events.js';
import type { RunStatus } from '../core/types.js';
import { guard, OrcrError } from './errors.js';

type Calls = Caller & Pick<Session, 'callThenGone'>;
type RunRef = string | { uuid: string };
const refOf = (r: RunRef): string => (typeof r === 'string' ? r : r.uuid);

abstract class Family {
  constructor(protected readonly session: Calls) {}
  protected call<M extends Method>(method: M, ...params: ParamsArg<M>): Promise<Result<M>> {
    return guard(() => this.session.call(method, ...params));
  }
}

export interface LoopSpec {
  name: string;
  /** A cron schedule ("0 9 * * 1-5"), or `onceAt`. */
  cron?: string;
  /** One fire at this time (ISO, or relative: "+10m"), instead of a cron. */
  onceAt?: string;
  /** The zone the cron is read in (default: this process's). */
  tz?: string;
  /** Runs of the loop at once (default 1). */
  maxConcurrency?: number;
  /** A fire at the concurrency: waits for a place (queue, the default) or is dropped (skip). */
  overlap?: 'queue' | 'skip';
  /** Milliseconds a run of the loop may take (default: no limit). */
  timeoutMs?: number | null;
  command: string[];
  /** Where its runs work (default: this process's working directory). */
  cwd?: string;
}

export class Loops extends Family {
  constructor(
    session: Calls,
    private readonly env: Record<string, string>,
  ) {
    super(session);
  }

  /** A durable schedule firing `command` as a run (`orcr loop create`); its runs start with this program's environment. */
  async create(spec: LoopSpec): Promise<PublicLoop> {
    const tz = spec.tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const res = await this.call('loop.create', {
      name: spec.name,
      cron: spec.cron,
      once_at: spec.onceAt,
      tz,
      max_concurrency: spec.maxConcurrency,
      overlap: spec.overlap,
      timeout_ms: spec.timeoutMs,
      command: spec.command,
      cwd: spec.cwd ?? process.cwd(),
      caller_env: this.env,
    });
    return res.loop;
  }

  async list(): Promise<PublicLoop[]> {
    return (await this.call('loop.list')).loops;
  }

  async get(name: string): Promise<PublicLoop> {
    return (await this.call('loop.get', { name })).loop;
  }

  /** It fires no more until resumed; its runs go on. */
  async pause(name: string): Promise<PublicLoop> {
    return (await this.call('loop.pause', { name, paused: true })).loop;
  }

  async resume(name: string): Promise<PublicLoop> {
    return (await this.call('loop.pause', { name, paused: false })).loop;
  }

  /** Remove it; `killActive` kills its active runs too (else they go on). */
  remove(name: string, opts: { killActive?: boolean } = {}): Promise<Result<'loop.remove'>> {
    return this.call('loop.remove', { name, kill_active: opts.killActive === true });
  }

  /** Fire it now, by hand, under its concurrency and overlap rules. */
  start(name: string): Promise<Result<'loop.start'>> {
    return this.call('loop.start', { name });
  }

  /** Kill its active runs; the schedule stays. Returns their uuids. */
  async stop(name: string): Promise<string[]> {
    return (await this.call('loop.stop', { name })).stopped;
  }

  async runs(name: string, opts: { limit?: number } = {}): Promise<Result<'loop.runs'>['runs']> {
    return (await this.call('loop.runs', { name, limit: opts.limit })).runs;
  }

  async events(name: string, opts: { limit?: number } = {}): Promise<RunEvent[]> {
    return (await this.call('loop.events', { name, limit: opts.limit })).events;
  }
}

export class Worktrees extends Family {
  /** End a worktree run's worktree: merge its branch, keep the branch, or discard both (`orcr worktree finish`). */
  finish(run: RunRef, mode: FinishMode): Promise<Result<'worktree.finish'>> {
    return this.call('worktree.finish', { ref: refOf(run), mode });
  }

  /** Remove worktrees no run holds any more (`orcr worktree prune`). */
  async prune(opts: { force?: boolean; dryRun?: boolean } = {}): Promise<Result<'worktree.prune'>['worktrees']> {
    return (await this.call('worktree.prune', { force: opts.force === true, dry_run: opts.dryRun === true })).worktrees;
  }
}

export class Cluster extends Family {
  /** The cluster this supervisor is in and its machines (OrcrError `usage` when it is in none). */
  status(): Promise<Result<'cluster.status'>> {
    return this.call('cluster.status');
  }

  /** Every machine's runs, as each published them (`orcr ps --cluster`); OrcrError `usage` outside a cluster. */
  runs(filter: { all?: boolean; status?: RunStatus; provider?: string; host?: string } = {}): Promise<Result<'cluster.runs'>> {
    return this.call('cluster.runs', filter);
  }

  /** One run of the fleet: `HOST:NAME`, or a bare name one other machine has (`orcr show HOST:RUN`). */
  run(ref: string): Promise<Result<'cluster.run'>> {
    return this.call('cluster.run', { ref });
  }

  /** Drop a machine that left the cluster: its row, queue places and leases. */
  forget(host: string): Promise<Result<'cluster.forget'>> {
    return this.call('cluster.forget', { host });
  }
}

export class Server extends Family {
  status(): Promise<Result<'server.status'>> {
    return this.call('server.status');
  }

  /**
   * Stop the supervisor (`orcr server stop`): `leave` (the default) leaves
   * the agents running for the next supervisor to re-adopt; `drain` waits for
   * them to end; `kill_agents` kills them. Resolves once it has gone, with
   * its answer; `onAnswer` sees the answer first (how many it waits for).
   */
  stop(opts: { mode?: 'leave' | 'drain' | 'kill_agents'; onAnswer?: (answer: Result<'server.stop'>) => void } = {}): Promise<Result<'server.stop'>> {
    return guard(async () => {
      const { result, gone } = await this.session.callThenGone('server.stop', { mode: opts.mode ?? 'leave' });
      opts.onAnswer?.(result);
      await gone;
      return result;
    });
  }
}

export class Queue extends Family {
  /** Nothing starts until resumed; queued runs stay queued. */
  /** `host`: another machine of the cluster (its supervisor pauses its queue). */
  pause(opts: { host?: string } = {}): Promise<Result<'queue.pause'>> {
    return this.call('queue.pause', { paused: true, ...(opts.host !== undefined ? { host: opts.host } : {}) });
  }

  resume(opts: { host?: string } = {}): Promise<Result<'queue.pause'>> {
    return this.call('queue.pause', { paused: false, ...(opts.host !== undefined ? { host: opts.host } : {}) });
  }
}

export class Providers extends Family {
  /** End a provider's usage-limit hold now; false when it was not on hold. */
  async resume(provider: string, opts: { host?: string } = {}): Promise<boolean> {
    return (await this.call('provider.resume', { provider, ...(opts.host !== undefined ? { host: opts.host } : {}) })).resumed;
  }
}

/** Who answers requests through this connection, as the supervisor records it: through what, and who (a terminal, a process). */
export interface Answerer {
  via: AnswerVia;
  who: string | null;
}

/** A request: its id (a number, or its digits), a request as `list` gives it; or a run (uuid, prefix, name, a run object): each request it has waiting. */
export type ApprovalTarget = number | string | { id: number } | { uuid: string };

function targetOf(t: ApprovalTarget): string {
  if (typeof t === 'string') return t;
  const id = typeof t === 'number' ? t : 'id' in t ? t.id : null;
  if (id === null) return (t as { uuid: string }).uuid;
  if (!Number.isSafeInteger(id) || id < 1) throw new OrcrError('usage', `a request's id is a whole number from 1, got ${JSON.stringify(id)}`);
  return String(id);
}

const targetsOf = (t: ApprovalTarget | readonly ApprovalTarget[]): string[] =>
  (Array.isArray(t) ? (t as readonly ApprovalTarget[]) : [t as ApprovalTarget]).map(targetOf);

/**
 * The requests agents make before they use a tool (`orcr approvals`,
 * `approve`, `deny`). Every answer records who gave it — this connection's
 * answerer, and the run it answers from (the environment's ORCR_RUN) — and
 * the supervisor refuses a run answering its own requests or those of a run
 * above it.
 */
export class Approvals extends Family {
  constructor(
    session: Calls,
    private readonly env: Record<string, string>,
    private readonly answerer: Answerer,
  ) {
    super(session);
  }

  /** Pending requests, oldest first: the fleet's, or one run's; `all` adds decided and withdrawn ones. */
  async list(opts: { run?: RunRef; all?: boolean } = {}): Promise<PublicApproval[]> {
    return (await this.call('approval.list', { run: opts.run === undefined ? undefined : refOf(opts.run), all: opts.all === true })).approvals;
  }

  /** One request, with what its agent asked whole (`truncated`, and the JSON text cut at 1 MiB, when it is larger). */
  get(id: number | { id: number }): Promise<ApprovalGot> {
    return guard(() => this.session.call('approval.get', { id: Number(targetOf(id)) }));
  }

  /**
   * Allow: each target's request, or each request a run has waiting. A
   * question takes `answers`, one per question in order, each an option's
   * label (a list of them for a multi-select one); `always` adds the rule the
   * request offers to the run's allow list. One result per request answered
   * or target refused (`error`: `conflict` when it no longer waits, naming
   * who decided it; `refused` from inside the asking run or below it); when
   * every one is refused it throws the first refusal's OrcrError.
   */
  approve(
    targets: ApprovalTarget | readonly ApprovalTarget[],
    opts: { always?: boolean; answers?: readonly (string | readonly string[])[] } = {},
  ): Promise<ApprovalAnswered[]> {
    return this.answer(targets, {
      verdict: 'allow',
      always: opts.always === true ? true : undefined,
      answers: opts.answers?.map((a) => (typeof a === 'string' ? a : [...a])),
    });
  }

  /** Deny: as approve; `message` is what the agent is told. */
  deny(targets: ApprovalTarget | readonly ApprovalTarget[], opts: { message?: string } = {}): Promise<ApprovalAnswered[]> {
    return this.answer(targets, { verdict: 'deny', message: opts.message });
  }

  private answer(
    targets: ApprovalTarget | readonly ApprovalTarget[],
    given: { verdict: 'allow' | 'deny'; message?: string; answers?: (string | string[])[]; always?: boolean },
  ): Promise<ApprovalAnswered[]> {
    return guard(async () => {
      const caller = this.env.ORCR_RUN;
      const by = { via: this.answerer.via, who: this.answerer.who ?? undefined, caller: caller ? caller : undefined };
      return (await this.session.call('approval.answer', { targets: targetsOf(targets), ...given, ...by })).results;
    });
  }
}
