// A real supervisor inside the test's own process, on a throw-away home: the
// real journal (SQLite files), real agents (child processes), a real socket,
// and a client speaking the real protocol over it. What a test asks of the
// supervisor costs a socket round trip, not a spawned CLI (~0.36 s of CPU
// each) and a supervisor process per home.
//
// This file is the one seam between the tests and the client library: when
// the client's API changes, only this file changes. Tests that check what
// the CLI prints and exits with keep spawning it (harness.ts); they can also
// spawn it against a supervisor started here (`cli`, asynchronous: a
// synchronous spawn would block the very event loop that must answer it).
//
// Several homes can live in one test process: each has its own supervisor,
// socket and journal, and `useLiveHomes` closes every one after its test,
// passed or failed, and kills the agents left running.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, onTestFailed } from 'vitest';
import { Client } from '../../src/client/client.js';
import { callerEnv, parseFanOut, parseRunArgs } from '../../src/client/run-args.js';
import { readLines } from '../../src/client/run-output.js';
import { logEntries } from '../../src/cli/logs.js';
import { ensureHome } from '../../src/config/home.js';
import { waitExitCode } from '../../src/core/run-state.js';
import { RemoteError } from '../../src/protocol/errors.js';
import { startServer, type ServerHandle } from '../../src/server/server.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { CLI, cliInThread, cliLineAsync, killRunGroups, NODE, type CliResult } from './harness.js';

export type { PublicRun };

/** One run waited on, as `orcr wait --json` lists it. */
export interface Settled {
  uuid: string;
  name: string;
  token: string;
}

export interface KillResult {
  ref: string;
  name: string | null;
  uuid: string | null;
  action: string;
  status: string | null;
  exit_reason: string | null;
  descendants?: string[];
}

/**
 * What a test asks of a home's supervisor, over its socket, as the CLI's
 * verbs would (their --json answers), without spawning the CLI: the
 * supervisor may be one started here (LiveHome) or a spawned one (`remote`,
 * for tests that need a supervisor process of its own, e.g. to kill it).
 */
export class Remote {
  private client: Client | null = null;

  constructor(
    readonly dir: string,
    private readonly callerEnvOf: () => NodeJS.ProcessEnv = () => ({ ...process.env, ORCR_HOME: dir, NO_COLOR: '1' }),
  ) {}

  /** Let go of the connection (the next call connects again). */
  disconnect(): void {
    this.client?.close();
    this.client = null;
  }

  protected async connection(): Promise<Client> {
    if (this.client && !this.client.closed && !this.client.stopped) return this.client;
    this.disconnect();
    this.client = await Client.connect(ensureHome(this.dir), { autoStart: false });
    return this.client;
  }

  /** One protocol call; a refusal rejects with the server's error (`code`, `message`). */
  async call<T = any>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    // Untyped on purpose: a test may send what no typed client would (a bad parameter, an unknown method).
    const c = (await this.connection()) as unknown as { call(m: string, p: Record<string, unknown>): Promise<unknown> };
    return (await c.call(method, params)) as T;
  }

  /** What `orcr run ARGS --json` queues, parsed by the CLI's own parser, with this home's environment as the caller's. */
  async run(args: string[]): Promise<PublicRun> {
    const spec = parseRunArgs(args, process.cwd(), { env: this.callerEnvOf(), stdin: () => '' });
    const res = await this.call<{ runs: PublicRun[] }>('run.enqueue', { specs: [spec], caller_env: callerEnv(this.callerEnvOf()) });
    return res.runs[0]!;
  }

  /** What `orcr run --from - ARGS --json` queues, the run specs one JSON line each in `input`. */
  async runFrom(input: string | object[], args: string[] = []): Promise<PublicRun[]> {
    const text = typeof input === 'string' ? input : input.map((l) => JSON.stringify(l)).join('\n');
    const specs = parseFanOut(['--from', '-', ...args], process.cwd(), { env: this.callerEnvOf(), stdin: () => text });
    return (await this.call<{ runs: PublicRun[] }>('run.enqueue', { specs, caller_env: callerEnv(this.callerEnvOf()) })).runs;
  }

  /** `orcr show REF --json`. */
  async show(ref: string): Promise<PublicRun> {
    return (await this.call<{ run: PublicRun }>('run.get', { ref })).run;
  }

  /** `orcr ps --json` (oldest first, every page): `all` includes ended runs. */
  async ps(filter: { all?: boolean; status?: string; provider?: string } = {}): Promise<PublicRun[]> {
    const pages: PublicRun[][] = [];
    let before: number | undefined;
    for (;;) {
      const page = await this.call<{ runs: PublicRun[]; next: number | null }>('run.list', { ...filter, before });
      pages.unshift(page.runs);
      if (page.next === null || page.next === undefined) break;
      before = page.next;
    }
    return pages.flat();
  }

  /** `orcr wait --json`: until each run is idle, ended or blocked (or the timeout ran out: `pending`). */
  async settle(refs: string[] | 'all', timeoutMs: number | null = null): Promise<Settled[]> {
    const targets = refs === 'all' ? { all: true } : { refs };
    return (await this.call<{ settled: Settled[] }>('run.wait', { ...targets, timeout_ms: timeoutMs })).settled;
  }

  /** What `orcr wait REFS` prints: a line `NAME TOKEN` per run. */
  async wait(...refs: string[]): Promise<string> {
    return (await this.settle(refs)).map((s) => `${s.name} ${s.token}`).join('\n');
  }

  /** The exit code `orcr wait REFS` (or `orcr wait --all`: '--all') ends with, by the CLI's own mapping. */
  async waitCode(...refs: string[]): Promise<number> {
    let worst = 0;
    for (const s of await this.settle(refs.length === 1 && refs[0] === '--all' ? 'all' : refs))
      worst = Math.max(worst, s.token === 'pending' ? 3 : s.token === 'not_found' ? 6 : waitExitCode(s.token));
    return worst;
  }

  /** `orcr kill REFS --json`. */
  async kill(refs: string[], opts: { force?: boolean; keep_children?: boolean } = {}): Promise<KillResult[]> {
    return (await this.call<{ results: KillResult[] }>('run.kill', { refs, force: opts.force ?? false, keep_children: opts.keep_children ?? false })).results;
  }

  /** `orcr send REF TEXT --json`. */
  async send(ref: string, text: string): Promise<PublicRun> {
    return (await this.call<{ run: PublicRun }>('run.send', { ref, text })).run;
  }

  /** `orcr stats --json`. */
  async stats<T = any>(): Promise<T> {
    return this.call<T>('stats');
  }

  /** Every event (oldest first), as `orcr events --json` gives them. */
  async events<T = any>(since = 0): Promise<T[]> {
    return (await this.call<{ events: T[] }>('events', { since })).events;
  }

  /** `orcr logs REF --json`: the run's output as normalized entries, read by the CLI's own reader. */
  async logs<T = any>(ref: string, opts: { stderr?: boolean } = {}): Promise<T[]> {
    const info = await this.call<{ dir: string; protocol: string | null }>('run.resolve', { ref });
    return logEntries(readLines(path.join(info.dir, opts.stderr ? 'err' : 'out')), info.protocol) as T[];
  }

  /** The pid of the supervisor serving this home (`orcr server status --json`). */
  async serverPid(): Promise<number> {
    return (await this.call<{ pid: number }>('server.status')).pid;
  }
}

/**
 * `orcr ARGS` to its end, asynchronously (a synchronous one would block the
 * event loop of a supervisor in this process that must answer it): in a CLI
 * thread (harness.ts), or spawned for serve, mcp and ORCR_TEST_CLI=process.
 */
function spawnCli(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<CliResult> {
  if (cliInThread(args)) return cliLineAsync(args, env, input);
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [CLI, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

/** Queries over the socket to the supervisor serving `dir` (started by a spawned CLI, or here). */
export function remote(dir: string): Remote {
  return new Remote(dir);
}

export class LiveHome extends Remote {
  /** What the supervisor logged, shown when the test fails. */
  readonly log: string[] = [];
  private handle: ServerHandle | null = null;
  private starting: Promise<void> | null = null;
  private everStarted = false;
  /** Added to the wall clock the loops read (startServer's loopClock): a cron boundary or a downtime without the wait. */
  loopClockOffsetMs = 0;

  /**
   * A new home (with config.json when given). Its supervisor starts here at
   * the first call that needs one, as a verb starts one for a home that has
   * none: config.json can still be written before.
   */
  static create(config?: unknown): LiveHome {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-t-'));
    fs.chmodSync(dir, 0o700);
    const h = new LiveHome(dir);
    if (config !== undefined) h.writeConfig(config);
    return h;
  }

  /** A new home and its supervisor, started now. */
  static async start(config?: unknown): Promise<LiveHome> {
    const h = LiveHome.create(config);
    try {
      await h.startSupervisor();
    } catch (e) {
      await h.cleanup();
      throw e;
    }
    return h;
  }

  /** A call when no supervisor answers starts one here (never a spawned one). */
  protected override async connection(): Promise<Client> {
    try {
      return await super.connection();
    } catch (e) {
      if (!(e instanceof RemoteError) || e.code !== 'unavailable') throw e;
      // Stopped over the socket and on its way out (the socket closes before onStopped is called):
      // gone in a moment, as a process would be. Then the next one starts.
      const deadline = Date.now() + 10_000;
      while (this.handle && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (this.handle) throw e;
    }
    await this.startSupervisor();
    return super.connection();
  }

  writeConfig(config: unknown): void {
    fs.writeFileSync(path.join(this.dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  }

  /** The environment a spawned `orcr`, and every run made here, starts with. */
  get env(): NodeJS.ProcessEnv {
    return { ...process.env, ORCR_HOME: this.dir, NO_COLOR: '1' };
  }

  get running(): boolean {
    return this.handle !== null;
  }

  runDir(uuid: string): string {
    return path.join(this.dir, 'runs', uuid);
  }

  async startSupervisor(): Promise<void> {
    if (this.handle) return;
    this.starting ??= this.startOnce().finally(() => (this.starting = null));
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    this.everStarted = true;
    const handle = await startServer(this.dir, (m) => this.log.push(m), {
      loopClock: () => Date.now() + this.loopClockOffsetMs,
      // Stopped over the socket (`server stop`, a finished drain): it is gone, as a process would be.
      onStopped: () => {
        if (this.handle !== handle) return;
        this.disconnect();
        this.handle = null;
      },
    });
    this.handle = handle;
  }

  /** Stop the supervisor as `orcr server stop` leaves a home: agents keep running, the journal stays. */
  async stopSupervisor(): Promise<void> {
    const handle = this.handle;
    this.disconnect();
    this.handle = null;
    await handle?.close();
  }

  /** A new supervisor on the same home, as after a restart: it re-adopts what the journal holds. */
  async restart(): Promise<void> {
    await this.stopSupervisor();
    await this.startSupervisor();
  }

  /** The spawned `orcr ARGS`, against this home (and its supervisor, if it runs). */
  async cli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
    // The home's first verb: its supervisor starts here (a config it refuses is left to the CLI to report).
    if (!this.everStarted) await this.startSupervisor().catch(() => undefined);
    return spawnCli(args, opts.env ?? this.env, opts.input);
  }

  /** A long-running spawned `orcr` (e.g. `events --follow`). */
  spawn(args: string[]): ChildProcess {
    return spawn(NODE, [CLI, ...args], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** The spawned `orcr ARGS --json`, parsed; throws with its stderr on an exit code not allowed. */
  async json<T = any>(args: string[], allowCodes: number[] = [0]): Promise<T> {
    const dd = args.indexOf('--');
    const r = await this.cli(dd < 0 ? [...args, '--json'] : [...args.slice(0, dd), '--json', ...args.slice(dd)]);
    if (!allowCodes.includes(r.code)) throw new Error(`orcr ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
    return JSON.parse(r.stdout) as T;
  }

  /** Stop the supervisor, kill every agent still running, remove the home. */
  async cleanup(): Promise<void> {
    this.everStarted = true; // nothing starts now
    try {
      await this.stopSupervisor();
      // A spawned verb found none here and started one of its own: stop it too.
      if (fs.existsSync(path.join(this.dir, 'orcr.sock'))) await this.cli(['server', 'stop']);
    } finally {
      killRunGroups(this.dir);
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/**
 * A home whose supervisor is a process of its own (`orcr serve`, spawned
 * here), for a test that must SIGKILL it or watch it exit; asked over its
 * socket like a LiveHome. Nothing starts one implicitly: `start()` does, as
 * the first verb on a home would.
 */
export class ServedHome extends Remote {
  /** What the supervisors logged (their stderr), shown when the test fails. */
  readonly log: string[] = [];
  private child: ChildProcess | null = null;

  static create(config?: unknown): ServedHome {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-t-'));
    fs.chmodSync(dir, 0o700);
    const h = new ServedHome(dir);
    if (config !== undefined) fs.writeFileSync(path.join(dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
    return h;
  }

  get env(): NodeJS.ProcessEnv {
    return { ...process.env, ORCR_HOME: this.dir, NO_COLOR: '1' };
  }

  runDir(uuid: string): string {
    return path.join(this.dir, 'runs', uuid);
  }

  /** The spawned `orcr ARGS` against this home (a verb that finds no supervisor starts one of its own). */
  cli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
    return spawnCli(args, opts.env ?? this.env, opts.input);
  }

  /** The supervisor's pid (null while none runs). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Start a supervisor and wait until it answers on its socket. */
  async start(): Promise<number> {
    if (this.child) throw new Error('a supervisor of this home is already running');
    const child = spawn(NODE, [CLI, 'serve'], { env: this.env, stdio: ['ignore', 'ignore', 'pipe'] });
    this.child = child;
    let exited = false;
    child.stderr.setEncoding('utf8').on('data', (c: string) => this.log.push(c.trimEnd()));
    child.once('exit', () => {
      exited = true;
      if (this.child === child) this.child = null;
    });
    for (;;) {
      if (exited) throw new Error(`orcr serve exited before it answered:\n${this.log.join('\n')}`);
      try {
        this.disconnect();
        await this.call('server.status');
        return child.pid!;
      } catch (e) {
        if (!(e instanceof RemoteError) || e.code !== 'unavailable') throw e;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** SIGKILL the supervisor (its agents live on) and wait for it to be gone. */
  async killSupervisor(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.disconnect();
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await gone;
  }

  /** Stop the supervisor, kill every agent still running, remove the home. */
  async cleanup(): Promise<void> {
    try {
      await this.killSupervisor();
    } finally {
      killRunGroups(this.dir);
      fs.rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

/** A factory of ServedHomes, each cleaned up after its test; a failed test shows their supervisors' logs. */
export function useServedHomes(): (config?: unknown) => ServedHome {
  let homes: ServedHome[] = [];
  afterEach(async () => {
    const closing = homes;
    homes = [];
    await Promise.all(closing.map((h) => h.cleanup()));
  });
  return (config?: unknown) => {
    const h = ServedHome.create(config);
    homes.push(h);
    onTestFailed(() => {
      if (h.log.length > 0) process.stderr.write(`supervisor log of ${h.dir}:\n${h.log.join('\n')}\n`);
    });
    return h;
  };
}

/**
 * A factory of homes with a supervisor in this process, each closed after its
 * test whatever the outcome; a failed test shows the logs of its supervisors.
 */
export function useLiveHomes(): (config?: unknown) => Promise<LiveHome> {
  let homes: LiveHome[] = [];
  afterEach(async () => {
    const closing = homes;
    homes = [];
    const results = await Promise.allSettled(closing.map((h) => h.cleanup()));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  });
  return async (config?: unknown) => {
    const h = LiveHome.create(config);
    homes.push(h);
    onTestFailed(() => {
      if (h.log.length > 0) process.stderr.write(`supervisor log of ${h.dir}:\n${h.log.join('\n')}\n`);
    });
    return h;
  };
}

/** useLiveHomes, each home's supervisor started at once: for a client that connects without starting one (the SDK, `orcr mcp`). */
export function useStartedHomes(): (config?: unknown) => Promise<LiveHome> {
  const live = useLiveHomes();
  return async (config?: unknown) => {
    const h = await live(config);
    await h.startSupervisor();
    return h;
  };
}
