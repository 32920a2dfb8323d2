// Test support: a throw-away ORCR_HOME, the real `orcr` CLI (the built one,
// dist/) run on it, and waits that poll for a condition (never fixed sleeps).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { afterEach, onTestFinished } from 'vitest';
import { readRunStatus, signalGroup } from '../../src/runtime/launcher.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/src/cli/main.js');
export const MOCK_AGENT = path.join(ROOT, 'dist/src/agents/mock-agent.js');
export const NODE = process.execPath;
const CLI_VERBS = path.join(ROOT, 'dist/src/cli/verbs.js');
/** ORCR_TEST_CLI=process: every command line in a Node process of its own, as a user's shell runs it (the thread is the default). */
const CLI_IN_PROCESS = process.env.ORCR_TEST_CLI === 'process';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class TestHome {
  readonly dir: string;
  constructor(config?: unknown) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-t-'));
    fs.chmodSync(this.dir, 0o700);
    if (config !== undefined) this.writeConfig(config);
  }

  writeConfig(config: unknown): void {
    fs.writeFileSync(path.join(this.dir, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  }

  get env(): NodeJS.ProcessEnv {
    return { ...process.env, ORCR_HOME: this.dir, NO_COLOR: '1' };
  }

  /**
   * Run `orcr ARGS` to completion: in the CLI's thread (cliLine), or with
   * `process: true` (or ORCR_TEST_CLI=process) in a Node process of its own —
   * for what only a process shows (its exit on a signal, its stdio).
   */
  cli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; process?: boolean } = {}): CliResult {
    const env = opts.env ?? this.env;
    if (opts.process !== true && cliInThread(args)) return cliLine(args, env, opts.input);
    const r = spawnSync(NODE, [CLI, ...args], { env, input: opts.input, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  /** Run `orcr ARGS` and parse its --json stdout; throws with stderr on a non-zero exit unless allowed. */
  json<T = any>(args: string[], allowCodes: number[] = [0]): T {
    const dd = args.indexOf('--');
    const r = this.cli(dd < 0 ? [...args, '--json'] : [...args.slice(0, dd), '--json', ...args.slice(dd)]);
    if (!allowCodes.includes(r.code)) throw new Error(`orcr ${args.join(' ')} exited ${r.code}: ${r.stderr}${r.stdout}`);
    return JSON.parse(r.stdout) as T;
  }

  /** A long-running `orcr` child, e.g. `events --follow`. */
  spawn(args: string[]): ChildProcess {
    return spawn(NODE, [CLI, ...args], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  serverPid(): number | null {
    const r = this.cli(['server', 'status', '--json']);
    if (r.code !== 0) return null;
    return (JSON.parse(r.stdout) as { pid: number }).pid;
  }

  runDir(uuid: string): string {
    return path.join(this.dir, 'runs', uuid);
  }

  /** Stop the supervisor and kill every process still in a run's group. */
  cleanup(): void {
    this.cli(['server', 'stop']);
    this.killLeftovers();
  }

  /** Agents outlive the supervisor by design: kill each run's process group, then remove the home. */
  protected killLeftovers(): void {
    killRunGroups(this.dir);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

let cliThread: CliThread | null = null;

/**
 * `orcr ARGS` as a call of the built CLI in a worker thread of this process
 * (test/support/cli-thread.mjs), waited for as spawnSync waits for a process:
 * the same verbs, supervisor start and output, less the 0.4 s of CPU a Node
 * process costs here. A thread a line broke (an exception nothing caught) or
 * that timed out is stopped, and the next line gets a new one.
 */
function cliLine(args: string[], env: NodeJS.ProcessEnv, input: string | undefined): CliResult {
  cliThread ??= newCliThread();
  const t = cliThread;
  post(t, args, env, input);
  const waited = Atomics.wait(t.flag, 0, 0, 60_000);
  const got = receiveMessageOnPort(t.port)?.message as (CliResult & { broken: boolean }) | undefined;
  if (waited === 'timed-out' || got === undefined || got.broken) {
    void t.worker.terminate();
    cliThread = null;
  }
  return got === undefined ? noAnswer(args) : { code: got.code, stdout: got.stdout, stderr: got.stderr };
}

/** Hand a line to a thread: its flag down until the answer. */
function post(t: CliThread, args: string[], env: NodeJS.ProcessEnv, input: string | undefined): void {
  Atomics.store(t.flag, 0, 0);
  t.port.postMessage({ args, env: { ...env }, input });
}

/** A line its thread never answered (a spawned CLI past spawnSync's timeout comes back as exit -1 too). */
const noAnswer = (args: string[]): CliResult => ({ code: -1, stdout: '', stderr: `orcr ${args.join(' ')}: no answer within 60 s` });

interface CliThread {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
}

function newCliThread(): CliThread {
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(new URL('./cli-thread.mjs', import.meta.url), {
    workerData: { port: port2, flag, verbs: pathToFileURL(CLI_VERBS).href },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  return { worker, port: port1, flag };
}

/** Threads free for the next asynchronous line: one per line in flight, so lines run side by side as processes would. */
const idleThreads: CliThread[] = [];

/**
 * `orcr ARGS` in a CLI thread, asynchronously: this thread goes on meanwhile
 * (a supervisor hosted here answers the line). Whether a line runs in a
 * thread at all is cliInThread's question.
 */
export function cliLineAsync(args: string[], env: NodeJS.ProcessEnv, input: string | undefined): Promise<CliResult> {
  const t = idleThreads.pop() ?? newCliThread();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      t.port.off('message', onMessage);
      void t.worker.terminate();
      resolve(noAnswer(args));
    }, 60_000);
    const onMessage = (got: CliResult & { broken: boolean }): void => {
      clearTimeout(timer);
      t.port.off('message', onMessage);
      if (got.broken) void t.worker.terminate();
      else idleThreads.push(t);
      resolve({ code: got.code, stdout: got.stdout, stderr: got.stderr });
    };
    t.port.on('message', onMessage);
    post(t, args, env, input);
  });
}

/** Whether `orcr ARGS` runs in a CLI thread: not `serve` or `mcp` (a process's whole life), nor with ORCR_TEST_CLI=process. */
export function cliInThread(args: readonly string[]): boolean {
  return !CLI_IN_PROCESS && args[0] !== 'serve' && args[0] !== 'mcp';
}

/** Kill every run's process group, found from the wrapper pid in its status file. */
export function killRunGroups(dir: string): void {
  const runs = path.join(dir, 'runs');
  if (!fs.existsSync(runs)) return;
  for (const d of fs.readdirSync(runs)) {
    try {
      const pid = readRunStatus(path.join(runs, d)).pid;
      if (pid !== null) process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/**
 * A factory of scratch folders for the runtime's tests, a run directory at
 * `run` in each: removed after the test, the wrapper started there killed
 * with its group first (a test that failed half-way may leave it waiting).
 */
export function useRunDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) {
      const pid = readRunStatus(path.join(d, 'run')).pid;
      if (pid !== null) signalGroup(pid, 'SIGKILL');
      fs.rmSync(d, { recursive: true, force: true });
    }
  });
  return () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** A factory of test homes, each cleaned up after its test. */
export function useHomes(): (config?: unknown) => TestHome {
  let homes: TestHome[] = [];
  afterEach(() => {
    for (const h of homes) h.cleanup();
    homes = [];
  });
  return (config?: unknown) => {
    const h = new TestHome(config);
    homes.push(h);
    return h;
  };
}

/** What `until` accepts as done: any value but false, 0, '', null and undefined. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * The one wait of the tests: poll fn until it returns a truthy value, and
 * return that value. After timeoutMs, fail with `what` (a function is called
 * then, so the message can show the state at the timeout) and the last error
 * fn threw, if any.
 */
export async function until<T>(fn: () => T | Promise<T>, what: string | (() => string), timeoutMs = 30_000, everyMs = 25): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as Truthy<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const described = typeof what === 'function' ? what() : what;
      throw new Error(`timed out waiting for ${described}${last ? `: ${String(last)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') return true;
    // A zombie leader whose other threads are still on their way out still holds its descriptors
    // (a listening socket takes connections, then drops them): not gone until the last thread is.
    return fs.readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return false;
  }
}

/** Lines from a child's stdout as they come. */
export function lineReader(child: ChildProcess): { lines: string[]; waitFor: (pred: (l: string[]) => boolean, what: string, ms?: number) => Promise<void> } {
  const lines: string[] = [];
  let buf = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (c: string) => {
    buf += c;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  });
  return { lines, waitFor: (pred, what, ms) => until(() => pred(lines), what, ms).then(() => undefined) };
}

/** A new folder in the system's temp folder (by its real path), removed once the test is over, passed or failed. */
export function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A script file in the home, for stand-in agents. */
export function script(home: { dir: string }, name: string, body: string): string {
  const file = path.join(home.dir, name);
  fs.writeFileSync(file, body, { mode: 0o755 });
  return file;
}
