// The typed client a program drives orcr with: the CLI's verbs as methods
// over one supervisor connection, answers as the CLI's --json gives them,
// failures as OrcrError with the CLI's code and exit code.

import path from 'node:path';
import { Client } from '../client/client.js';
import { callerEnv } from '../client/run-args.js';
import { readTail } from '../client/run-output.js';
import { parseDuration } from '../config/duration.js';
import { ensureHome, homeDir, type Home } from '../config/home.js';
import { RemoteError } from '../server/protocol.js';
import type { PublicRun } from '../server/view.js';
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
   * its own (default: this process's; it carries ORCR_RUN when the program is
   * itself a run, which makes its runs that run's children).
   */
  callerEnv?: Record<string, string>;
}

export interface WaitResult {
  uuid: string;
  name: string;
  /** `turn_complete` (idle), the exit reason once ended, `blocked`, `pending` (the timeout ran out) or `not_found`. */
  token: string;
}

export interface KillResult {
  ref: string;
  name: string | null;
  uuid: string | null;
  action: 'killing' | 'canceled' | 'already_ended' | 'not_found';
  status: string | null;
  exit_reason: string | null;
}

export interface ListOptions {
  /** Ended runs too (default: active ones only). */
  all?: boolean;
  status?: 'queued' | 'starting' | 'working' | 'idle' | 'blocked' | 'ended';
  provider?: string;
}

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
  private constructor(
    private readonly home: Home,
    private client: Client,
    private readonly env: Record<string, string>,
  ) {}

  static async connect(opts: ConnectOptions = {}): Promise<Orcr> {
    return guard(async () => {
      const home = ensureHome(opts.home === undefined ? homeDir() : path.resolve(opts.home));
      const client = await Client.connect(home, { autoStart: opts.autoStart ?? true });
      return new Orcr(home, client, opts.callerEnv ?? callerEnv());
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
      const res = await this.client.call<{ runs: Run[] }>('run.enqueue', { specs: checked, caller_env: this.env });
      return res.runs;
    });
  }

  /**
   * Until each run is idle (its turn done), ended or blocked; with `timeout`,
   * a run still going then is `pending`. A supervisor restart meanwhile is
   * waited through, as `orcr wait` does.
   */
  wait(runs: RunRef | readonly RunRef[], opts: { timeout?: Duration } = {}): Promise<WaitResult[]> {
    return guard(async () => {
      const refs = (Array.isArray(runs) ? runs : [runs as RunRef]).map(refOf);
      const timeout = opts.timeout === undefined ? null : durationMs(opts.timeout, 'timeout');
      const started = Date.now();
      for (;;) {
        const left = timeout === null ? null : Math.max(0, timeout - (Date.now() - started));
        try {
          const res = await this.client.call<{ settled: WaitResult[] }>('run.wait', { refs, timeout_ms: left });
          return res.settled;
        } catch (e) {
          if (!(e instanceof RemoteError) || e.code !== 'unavailable') throw e;
          this.client = await Client.reconnect(this.home);
        }
      }
    });
  }

  /** Input to an idle run (OrcrError `not_idle` otherwise). */
  send(run: RunRef, text: string): Promise<Run> {
    return guard(async () => (await this.client.call<{ run: Run }>('run.send', { ref: refOf(run), text })).run);
  }

  /** Queued runs are canceled, live ones sent TERM (then KILL after kill_grace; at once with `force`). */
  kill(runs: RunRef | readonly RunRef[], opts: { force?: boolean } = {}): Promise<KillResult[]> {
    return guard(async () => {
      const refs = (Array.isArray(runs) ? runs : [runs as RunRef]).map(refOf);
      return (await this.client.call<{ results: KillResult[] }>('run.kill', { refs, force: opts.force ?? false })).results;
    });
  }

  /** A run as `orcr show --json` gives it; `env: true` adds the values of its `env` variables. */
  show(run: RunRef, opts: { env?: boolean } = {}): Promise<Run & { env?: Record<string, string> }> {
    return guard(async () => {
      const res = await this.client.call<{ run: Run; env?: Record<string, string> }>('run.get', { ref: refOf(run), env: opts.env === true });
      return res.env ? { ...res.run, env: res.env } : res.run;
    });
  }

  /** Runs, oldest first, as `orcr ps --json` lists them. */
  list(opts: ListOptions = {}): Promise<Run[]> {
    return guard(async () => {
      const pages: Run[][] = [];
      let before: number | undefined;
      for (;;) {
        const page = await this.client.call<{ runs: Run[]; next: number | null }>('run.list', { all: opts.all ?? false, status: opts.status, provider: opts.provider, before });
        pages.unshift(page.runs);
        if (page.next === null || page.next === undefined) return pages.flat();
        before = page.next;
      }
    });
  }

  /** The last `tail` lines (default 100) of the run's output (`stderr`: its error output), as written. */
  logs(run: RunRef, opts: { tail?: number; stderr?: boolean } = {}): Promise<string[]> {
    return guard(async () => {
      const info = await this.client.call<{ dir: string }>('run.resolve', { ref: refOf(run) });
      return readTail(path.join(info.dir, opts.stderr ? 'err' : 'out'), opts.tail ?? 100).lines;
    });
  }

  /**
   * Every event after `since` (a seq; default 0, the whole journal), then the
   * live ones, for as long as the loop goes on: `break` ends it. To resume
   * later, pass the last `event.seq` you handled.
   */
  subscribe(opts: { since?: number } = {}): AsyncIterableIterator<EventItem> {
    return subscribe(this.home, opts.since ?? 0);
  }

  close(): void {
    this.client.close();
  }
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toOrcrError(e);
  }
}
