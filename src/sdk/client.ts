// The typed client a program drives orcr with: every method the supervisor's
// socket serves, as the CLI's verbs name them, over a connection that comes
// back after a restart (src/client's Session); answers as the CLI's --json
// gives them, failures as OrcrError with the CLI's code and exit code. What a
// verb does beyond one call (wait, follow, the frame check, paging) is
// src/client's, the same code the CLI runs — the CLI is built on this class.

import path from 'node:path';
import { callerEnv } from '../client/caller-env.js';
import { enqueueSpecs } from '../client/enqueue.js';
import { checkFrame } from '../client/frame.js';
import { nameIn } from '../client/follow.js';
import { eventPages, listRuns, type ListFilter } from '../client/list.js';
import type { KillResult, Method, Params, ParamsArg, PublicRun, Result, RunFilter, Settled } from '../client/methods.js';
import { readTail } from '../client/run-output.js';
import { TAIL_MAX_LINES } from '../protocol/methods.js';
import { Session } from '../client/session.js';
import { waitRuns } from '../client/wait.js';
import { parseDuration } from '../config/duration.js';
import { ensureHome, homeDir, type Home } from '../config/home.js';
import type { RunEvent } from '../core/events.js';
import { guard, OrcrError, toOrcrError } from './errors.js';
import { Approvals, Cluster, Loops, Providers, Queue, Server, Worktrees, type Answerer } from './families.js';
import type { Duration, RunSpec } from './spec.js';
import { subscribe, type EventItem } from './subscription.js';

export type Run = PublicRun;
/** A run by uuid, unique uuid prefix or name, or a run object as the client returned it. */
export type RunRef = string | { uuid: string };

export interface ConnectOptions {
  /** The home (default: $ORCR_HOME, else ~/.orcr). */
  home?: string;
  /** Start a supervisor when none runs, as every `orcr` verb does (default true). */
  autoStart?: boolean;
  /**
   * A supervisor this connect starts admits nothing, kills the agents it
   * re-adopts and stops (`orcr server stop --kill-agents` on a stopped home).
   */
  killAgents?: boolean;
  /**
   * The environment runs start with (plus their `env`), as `orcr run` sends
   * its own (default: this process's). Its ORCR_RUN, when the program is
   * itself a run, makes its runs that run's children, and its waits on them
   * lend them that run's slot, as `orcr wait` does.
   */
  callerEnv?: Record<string, string>;
}

/** One per run waited on: `token` is `turn_complete` (idle), the exit reason once ended, `blocked`, `pending` (the timeout ran out) or `not_found`. */
export type WaitResult = Settled;
export type { KillResult };
export type ListOptions = ListFilter;

const refOf = (r: RunRef): string => (typeof r === 'string' ? r : r.uuid);

/** A program's answers are recorded as the SDK's, from this process: `review.mjs, pid 4242` (its script's name when it is a plain one). */
function programAnswerer(): Answerer {
  const script = path.basename(process.argv[1] ?? '');
  return { via: 'sdk', who: /^[\w.@+-]{1,64}$/.test(script) ? `${script}, pid ${process.pid}` : `pid ${process.pid}` };
}
const refsOf = (runs: RunRef | readonly RunRef[]): string[] => (Array.isArray(runs) ? runs : [runs as RunRef]).map(refOf);

/** A Duration in milliseconds; a bad one is OrcrError `usage` naming `what`. */
function durationMs(d: Duration, what: string): number {
  if (typeof d === 'number') return d;
  try {
    return parseDuration(d);
  } catch (e) {
    throw new OrcrError('usage', `${what}: ${(e as Error).message}`);
  }
}

export class Orcr {
  /** Waits in flight, each on its own connection: close() stops them too. */
  private readonly waits = new Set<AbortController>();
  /** `orcr loop …`: durable cron for a command. */
  readonly loops: Loops;
  /** `orcr worktree finish|prune`. */
  readonly worktrees: Worktrees;
  /** `orcr cluster status|forget`. */
  readonly cluster: Cluster;
  /** `orcr server status|stop`. */
  readonly server: Server;
  /** `orcr queue pause|resume`. */
  readonly queue: Queue;
  /** `orcr provider resume`. */
  readonly providers: Providers;
  /** `orcr approvals`, `orcr approve`, `orcr deny`: the requests agents make before they use a tool. */
  readonly approvals: Approvals;

  private constructor(
    private readonly session: Session,
    private readonly env: Record<string, string>,
    answerer: Answerer,
  ) {
    this.approvals = new Approvals(session, env, answerer);
    this.loops = new Loops(session, env);
    this.worktrees = new Worktrees(session);
    this.cluster = new Cluster(session);
    this.server = new Server(session);
    this.queue = new Queue(session);
    this.providers = new Providers(session);
  }

  static async connect(opts: ConnectOptions = {}): Promise<Orcr> {
    return guard(async () => {
      const home = ensureHome(opts.home === undefined ? homeDir() : path.resolve(opts.home));
      return Orcr.open(home, opts);
    });
  }

  /**
   * As connect, to a home already resolved (the CLI resolves it once per
   * process); `lazy`: connect at the first call rather than now; `answerer`:
   * who answers requests through it (the CLI, orcr mcp), the SDK and this
   * process by default.
   */
  static async open(home: Home, opts: Omit<ConnectOptions, 'home'> & { lazy?: boolean; answerer?: Answerer } = {}): Promise<Orcr> {
    return guard(async () => {
      const session = await Session.open(home, { autoStart: opts.autoStart ?? true, killAgents: opts.killAgents, lazy: opts.lazy });
      return new Orcr(session, opts.callerEnv ?? callerEnv(), opts.answerer ?? programAnswerer());
    });
  }

  /** The home's directory. */
  get home(): string {
    return this.session.home.dir;
  }

  /**
   * Any socket method by name, typed by the method table: for what the
   * methods of this class do not shape (their answers are these, reshaped).
   */
  call<M extends Method>(method: M, ...params: ParamsArg<M>): Promise<Result<M>> {
    return guard(() => this.session.call(method, ...params));
  }

  /** Queue one run; it starts as the caps allow. */
  async run(spec: RunSpec): Promise<Run> {
    return (await this.runMany([spec]))[0]!;
  }

  /** Queue several runs in one transaction: every spec is checked first, and one bad spec queues nothing. */
  runMany(specs: readonly RunSpec[]): Promise<Run[]> {
    return guard(async () => {
      // Loaded here: the run-spec schema brings zod, which no other call needs.
      const { wireSpecs } = await import('./spec.js');
      const checked = wireSpecs(specs, process.cwd());
      return (await this.enqueue(checked, checked.length > 1)).runs;
    });
  }

  /**
   * Queue specs the run-spec schema has already checked (`orcr run` parses
   * its flags into them), with the supervisor's warnings. `fanOut`: they came
   * as a list, which a too-large request is named by.
   */
  enqueue(specs: Params<'run.enqueue'>['specs'], fanOut: boolean): Promise<Result<'run.enqueue'>> {
    return guard(() => enqueueSpecs(this.session, specs, this.env, fanOut));
  }

  /**
   * Until each run is idle (its turn done), ended or blocked; with `timeout`,
   * a run still going then is `pending`. A supervisor restart meanwhile is
   * waited through, as `orcr wait` does. Aborting `signal` stops the wait (it
   * rejects with the signal's reason, an AbortError unless you gave one).
   * A program that is itself a run, waiting on its own children, lends them its slot.
   */
  wait(runs: RunRef | readonly RunRef[], opts: { timeout?: Duration; signal?: AbortSignal } = {}): Promise<WaitResult[]> {
    return this.waitFor({ refs: refsOf(runs) }, opts);
  }

  /** `orcr wait --all`: every active run (a run waiting: its own descendants). */
  waitAll(opts: { timeout?: Duration; signal?: AbortSignal } = {}): Promise<WaitResult[]> {
    return this.waitFor({ all: true }, opts);
  }

  private waitFor(targets: { refs?: string[]; all?: boolean }, opts: { timeout?: Duration; signal?: AbortSignal }): Promise<WaitResult[]> {
    return guard(async () => {
      const timeout_ms = opts.timeout === undefined ? null : durationMs(opts.timeout, 'timeout');
      const ac = new AbortController();
      const signal = opts.signal ? AbortSignal.any([opts.signal, ac.signal]) : ac.signal;
      this.waits.add(ac);
      try {
        return await waitRuns(this.session.home, { ...targets, timeout_ms }, { callerRun: this.env.ORCR_RUN, autoStart: this.session.autoStart, signal });
      } finally {
        this.waits.delete(ac);
      }
    });
  }

  /** Input to an idle run (OrcrError `not_idle` otherwise). */
  send(run: RunRef, text: string): Promise<Run> {
    return guard(async () => {
      const params = { ref: refOf(run), text };
      checkFrame('run.send', params, 'the text');
      return (await this.session.call('run.send', params)).run;
    });
  }

  /**
   * Queued runs are canceled, live ones sent TERM (then KILL after
   * kill_grace; at once with `force`), and their active descendants with them
   * unless `keepChildren`; what waits for them (`after`) is canceled, unless
   * `keepDependents` (it then waits for its other inputs only).
   */
  kill(runs: RunRef | readonly RunRef[], opts: { force?: boolean; keepChildren?: boolean; keepDependents?: boolean } = {}): Promise<KillResult[]> {
    return guard(
      async () =>
        (
          await this.session.call('run.kill', {
            refs: refsOf(runs),
            force: opts.force ?? false,
            keep_children: opts.keepChildren === true,
            ...(opts.keepDependents ? { keep_dependents: true } : {}),
          })
        ).results,
    );
  }

  /** The active runs a filter selects (what `orcr kill --dry-run` lists), without acting on them. */
  select(filter: RunFilter): Promise<Result<'run.select'>['runs']> {
    return guard(async () => (await this.session.call('run.select', filter)).runs);
  }

  /** A run again, with the same spec: a new run (`orcr rerun`). */
  rerun(run: RunRef): Promise<Run> {
    return guard(async () => (await this.session.call('run.rerun', { ref: refOf(run) })).run);
  }

  /** Hand a run over to a person (the TUI's `o`): it stops, keeping its session to resume; `now` kills a working one. */
  takeover(run: RunRef, opts: { now?: boolean } = {}): Promise<Run> {
    return guard(async () => (await this.session.call('run.takeover', { ref: refOf(run), now: opts.now === true })).run);
  }

  /** A run as `orcr show --json` gives it; `env: true` adds the values of its `env` variables. */
  show(run: RunRef, opts: { env?: boolean } = {}): Promise<Run & { env?: Record<string, string> }> {
    return guard(async () => {
      const res = await this.session.call('run.get', { ref: refOf(run), env: opts.env === true });
      return res.env ? { ...res.run, env: res.env } : res.run;
    });
  }

  /** Where a run's files are, and its protocol and status (what `orcr logs` reads). */
  resolve(run: RunRef): Promise<Result<'run.resolve'>> {
    return guard(() => this.session.call('run.resolve', { ref: refOf(run) }));
  }

  /** Runs, oldest first, as `orcr ps --json` lists them. */
  list(opts: ListOptions = {}): Promise<Run[]> {
    return guard(() => listRuns(this.session, opts));
  }

  /** The last `tail` lines (default 100) of the run's output (`stderr`: its error output), as written. */
  logs(run: RunRef, opts: { tail?: number; stderr?: boolean } = {}): Promise<string[]> {
    return guard(async () => {
      const tail = opts.tail ?? 100;
      if (!Number.isInteger(tail) || tail < 0) throw new OrcrError('usage', `"tail" must be a whole number, got ${JSON.stringify(opts.tail)}`);
      const info = await this.session.call('run.resolve', { ref: refOf(run) });
      // Another machine's run: its files are there, and its last lines come back from it (bounded).
      if (info.host !== undefined) {
        if (tail === 0) return [];
        return (await this.session.call('run.tail', { ref: refOf(run), lines: Math.min(tail, TAIL_MAX_LINES), stderr: opts.stderr === true })).lines;
      }
      return readTail(path.join(info.dir, opts.stderr ? 'err' : 'out'), tail).lines;
    });
  }

  /** A worktree run's changes against its base (`orcr diff`); `stat`: counts per file only. */
  diff(run: RunRef, opts: { stat?: boolean } = {}): Promise<Result<'run.diff'>> {
    return guard(() => this.session.call('run.diff', { ref: refOf(run), stat: opts.stat === true }));
  }

  /** Caps, queues, holds and the fleet's meters (`orcr stats --json`). */
  stats(): Promise<Result<'stats'>> {
    return guard(() => this.session.call('stats'));
  }

  /** Usage and cost by provider and workload over the fleet window (`orcr spend --json`). */
  spend(): Promise<Result<'spend'>> {
    return guard(() => this.session.call('spend'));
  }

  /** Remove ended runs older than `olderThan` (default: retention.ended) and their events (`orcr gc`). */
  gc(opts: { olderThan?: Duration; dryRun?: boolean; branches?: boolean; force?: boolean } = {}): Promise<Result<'gc'>> {
    return guard(async () =>
      this.session.call('gc', {
        older_than_ms: opts.olderThan === undefined ? undefined : durationMs(opts.olderThan, 'olderThan'),
        dry_run: opts.dryRun === true,
        branches: opts.branches === true,
        force: opts.force === true,
      }),
    );
  }

  /**
   * The journal's events after `since` (default 0), oldest first, to its end
   * as of reading, each with its run's name: what `orcr events` prints. For
   * the live ones too, subscribe.
   */
  async *events(opts: { since?: number } = {}): AsyncGenerator<{ event: RunEvent; name: string | null }> {
    try {
      for await (const page of eventPages(this.session, opts.since ?? 0)) {
        for (const event of page.events) yield { event, name: nameIn(page.names, event) };
      }
    } catch (e) {
      throw toOrcrError(e);
    }
  }

  /**
   * Every event after `since` (a seq; default 0, the whole journal), then the
   * live ones, for as long as the loop goes on: `break` ends it. To resume
   * later, pass the last `event.seq` you handled. When retention removed
   * events after `since`, it throws OrcrError `pruned` (its `firstSeq` is the
   * oldest event kept) instead of giving a history with a hole.
   */
  subscribe(opts: { since?: number } = {}): AsyncIterableIterator<EventItem> {
    return subscribe(this.session.home, opts.since ?? 0);
  }

  /** Close the connection; a wait in flight stops (it rejects with an AbortError). */
  close(): void {
    this.session.close();
    for (const ac of this.waits) ac.abort(new DOMException('the client was closed', 'AbortError'));
    this.waits.clear();
  }
}
