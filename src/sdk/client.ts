// The typed client a program drives orcr with: the CLI's verbs as methods
// over a supervisor connection that comes back after a restart (src/client's
// Session), answers as the CLI's --json gives them, failures as OrcrError
// with the CLI's code and exit code. What a verb does beyond one call (wait,
// the frame check, paging) is src/client's, the same code the CLI runs.

import path from 'node:path';
import { checkFrame } from '../client/frame.js';
import { listRuns, type ListFilter } from '../client/list.js';
import { callerEnv } from '../client/run-args.js';
import { readTail } from '../client/run-output.js';
import { Session } from '../client/session.js';
import { waitRuns, type Settled } from '../client/wait.js';
import { parseDuration } from '../config/duration.js';
import { ensureHome, homeDir } from '../config/home.js';
import type { PublicRun } from '../protocol/views.js';
import { OrcrError, toOrcrError } from './errors.js';
import { wireSpecs, type Duration, type RunSpec } from './spec.js';
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
   * The environment runs start with (plus their `env`), as `orcr run` sends
   * its own (default: this process's). Its ORCR_RUN, when the program is
   * itself a run, makes its runs that run's children, and its waits on them
   * lend them that run's slot, as `orcr wait` does.
   */
  callerEnv?: Record<string, string>;
}

/** One per run waited on: `token` is `turn_complete` (idle), the exit reason once ended, `blocked`, `pending` (the timeout ran out) or `not_found`. */
export type WaitResult = Settled;

export interface KillResult {
  ref: string;
  name: string | null;
  uuid: string | null;
  action: 'killing' | 'canceled' | 'already_ended' | 'not_found';
  status: string | null;
  exit_reason: string | null;
}

export type ListOptions = ListFilter;

const refOf = (r: RunRef): string => (typeof r === 'string' ? r : r.uuid);

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

  private constructor(
    private readonly session: Session,
    private readonly env: Record<string, string>,
  ) {}

  static async connect(opts: ConnectOptions = {}): Promise<Orcr> {
    return guard(async () => {
      const home = ensureHome(opts.home === undefined ? homeDir() : path.resolve(opts.home));
      const session = await Session.open(home, { autoStart: opts.autoStart ?? true });
      return new Orcr(session, opts.callerEnv ?? callerEnv());
    });
  }

  /** Queue one run; it starts as the caps allow. */
  async run(spec: RunSpec): Promise<Run> {
    return (await this.runMany([spec]))[0]!;
  }

  /** Queue several runs in one transaction: every spec is checked first, and one bad spec queues nothing. */
  runMany(specs: readonly RunSpec[]): Promise<Run[]> {
    return guard(async () => {
      const checked = wireSpecs(specs, process.cwd());
      const params = { specs: checked, caller_env: this.env };
      // Named as `orcr run` names it: the prompt when it is what is big, else the spec(s).
      const prompt = checked.length === 1 ? (checked[0]!.prompt ?? '') : '';
      checkFrame('run.enqueue', params, checked.length > 1 ? `the ${checked.length} run specs` : prompt.length > 1024 * 1024 ? 'the prompt' : 'the run spec');
      return (await this.session.call<{ runs: Run[] }>('run.enqueue', params)).runs;
    });
  }

  /**
   * Until each run is idle (its turn done), ended or blocked; with `timeout`,
   * a run still going then is `pending`. A supervisor restart meanwhile is
   * waited through, as `orcr wait` does. Aborting `signal` stops the wait (it
   * rejects with the signal's reason, an AbortError unless you gave one).
   */
  wait(runs: RunRef | readonly RunRef[], opts: { timeout?: Duration; signal?: AbortSignal } = {}): Promise<WaitResult[]> {
    return guard(async () => {
      const refs = (Array.isArray(runs) ? runs : [runs as RunRef]).map(refOf);
      const timeout_ms = opts.timeout === undefined ? null : durationMs(opts.timeout, 'timeout');
      const ac = new AbortController();
      const signal = opts.signal ? AbortSignal.any([opts.signal, ac.signal]) : ac.signal;
      this.waits.add(ac);
      try {
        return await waitRuns(this.session.home, { refs, timeout_ms }, { callerRun: this.env.ORCR_RUN, autoStart: this.session.autoStart, signal });
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
      return (await this.session.call<{ run: Run }>('run.send', params)).run;
    });
  }

  /** Queued runs are canceled, live ones sent TERM (then KILL after kill_grace; at once with `force`). */
  kill(runs: RunRef | readonly RunRef[], opts: { force?: boolean } = {}): Promise<KillResult[]> {
    return guard(async () => {
      const refs = (Array.isArray(runs) ? runs : [runs as RunRef]).map(refOf);
      return (await this.session.call<{ results: KillResult[] }>('run.kill', { refs, force: opts.force ?? false })).results;
    });
  }

  /** A run as `orcr show --json` gives it; `env: true` adds the values of its `env` variables. */
  show(run: RunRef, opts: { env?: boolean } = {}): Promise<Run & { env?: Record<string, string> }> {
    return guard(async () => {
      const res = await this.session.call<{ run: Run; env?: Record<string, string> }>('run.get', { ref: refOf(run), env: opts.env === true });
      return res.env ? { ...res.run, env: res.env } : res.run;
    });
  }

  /** Runs, oldest first, as `orcr ps --json` lists them. */
  list(opts: ListOptions = {}): Promise<Run[]> {
    return guard(() => listRuns((method, params) => this.session.call(method, params), opts));
  }

  /** The last `tail` lines (default 100) of the run's output (`stderr`: its error output), as written. */
  logs(run: RunRef, opts: { tail?: number; stderr?: boolean } = {}): Promise<string[]> {
    return guard(async () => {
      const tail = opts.tail ?? 100;
      if (!Number.isInteger(tail) || tail < 0) throw new OrcrError('usage', `"tail" must be a whole number, got ${JSON.stringify(opts.tail)}`);
      const info = await this.session.call<{ dir: string }>('run.resolve', { ref: refOf(run) });
      return readTail(path.join(info.dir, opts.stderr ? 'err' : 'out'), tail).lines;
    });
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

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toOrcrError(e);
  }
}
