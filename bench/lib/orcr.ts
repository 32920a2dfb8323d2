// orcr under test: throw-away homes, a supervisor started as `orcr serve` in
// its own process group, stopped with `orcr server stop`, and every agent it
// left running killed by process group, so nothing outlives the bench.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, SUPERVISOR_NODE_ARGS } from '../../src/client/client.js';
import { homePaths } from '../../src/config/home.js';
import { killGroup, onCleanup, sleep, timedShell, trackGroup, untrackGroup, waitGroupGone } from './proc.js';
import { readRunStatus } from '../../src/runtime/launcher.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository root (bench/lib is dist/bench/lib once compiled). */
export const root = path.resolve(here, '../../..');
const cli = path.join(root, 'dist/src/cli/main.js');
export const tuiMain = path.join(root, 'dist/src/tui/main.js');
export const node = process.execPath;

/** The Node flags on the first line of the TUI's bin (`#!/usr/bin/env -S node FLAGS`): the bench starts it with what a user's shell does. */
export function tuiNodeArgs(): string[] {
  const first = fs.readFileSync(tuiMain, 'utf8').split('\n', 1)[0]!;
  const m = /^#!\/usr\/bin\/env\s+(?:-S\s+)?node\b(.*)$/.exec(first);
  if (!m) throw new Error(`${tuiMain}: its first line is not "#!/usr/bin/env [-S] node ...": ${first}`);
  return m[1]!.trim().split(/\s+/).filter(Boolean);
}

/** Quote one word for sh. */
export const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
export const orcrCmd = `${q(node)} ${q(cli)}`;

export interface Home {
  dir: string;
  remove(): void;
}

/** A fresh ORCR_HOME (0700) with this config; removed on bench exit at the latest. */
/** Where homes are made: ORCR_BENCH_TMP, else the OS temp dir. */
export function benchTmp(): string {
  const t = process.env.ORCR_BENCH_TMP;
  return t && t.trim() !== '' ? path.resolve(t) : os.tmpdir();
}

export function makeHome(config: unknown, prefix = 'orcr-bench-', base = benchTmp()): Home {
  const dir = fs.mkdtempSync(path.join(base, prefix));
  fs.chmodSync(dir, 0o700);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  const remove = (): void => {
    killRunGroups(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const forget = onCleanup(remove);
  return {
    dir,
    remove: () => {
      forget();
      remove();
    },
  };
}

export const homeEnv = (dir: string): NodeJS.ProcessEnv => ({ ...process.env, ORCR_HOME: dir });

/** SIGKILL every agent's process group recorded in the home (agents outlive the supervisor by design). */
function killRunGroups(dir: string): number {
  let n = 0;
  let uuids: string[] = [];
  try {
    uuids = fs.readdirSync(path.join(dir, 'runs'));
  } catch {
    return 0;
  }
  for (const u of uuids) {
    try {
      const pid = readRunStatus(path.join(dir, 'runs', u)).pid;
      if (pid !== null && killGroup(pid)) n++;
    } catch {
      /* never started */
    }
  }
  return n;
}

export interface Supervisor {
  pid: number;
  /** Spawn → `hello` answered. */
  readyMs: number;
  stop(): Promise<void>;
}

/** Poll the socket until `hello` is answered; returns the connected client. */
async function waitReady(dir: string, timeoutMs: number, alive: () => boolean = () => true): Promise<Client> {
  const end = performance.now() + timeoutMs;
  for (;;) {
    try {
      return await Client.connect(homePaths(dir), { autoStart: false });
    } catch (e) {
      if (performance.now() > end || !alive()) throw new Error(`the supervisor of ${dir} did not answer hello: ${(e as Error).message}`);
      await sleep(2);
    }
  }
}

/** Start `orcr serve` for the home and wait until its socket answers hello. */
export async function startSupervisor(dir: string, opts: { timeoutMs?: number; nodeArgs?: string[] } = {}): Promise<Supervisor> {
  const log = fs.openSync(path.join(dir, 'server.log'), 'a', 0o600);
  const t0 = performance.now();
  // ORCR_BENCH_PROF=DIR: every supervisor writes a CPU profile there when it stops.
  const prof = process.env.ORCR_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.ORCR_BENCH_PROF)}`] : [];
  // With the Node flags orcr itself starts its supervisor with.
  const child = spawn(node, [...prof, ...SUPERVISOR_NODE_ARGS, ...(opts.nodeArgs ?? []), cli, 'serve'], {
    env: homeEnv(dir),
    detached: true,
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  const pid = child.pid!;
  trackGroup(pid);
  let exited = false;
  const gone = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const client = await waitReady(dir, opts.timeoutMs ?? 30_000, () => !exited).catch((e: Error) => {
    killGroup(pid);
    let tail = '';
    try {
      tail = fs.readFileSync(path.join(dir, 'server.log'), 'utf8').split('\n').slice(-5).join('\n');
    } catch {
      /* none */
    }
    throw new Error(`${e.message}\n${tail}`);
  });
  const readyMs = performance.now() - t0;
  client.close();
  const stop = async (): Promise<void> => {
    if (!exited) {
      // The documented way: `orcr server stop`; SIGKILL only if it does not go.
      await timedShell(`${orcrCmd} server stop`, { env: homeEnv(dir), timeoutMs: 15_000 });
      await Promise.race([gone, sleep(10_000)]);
    }
    killGroup(pid);
    await waitGroupGone(pid, 2000);
    untrackGroup(pid);
  };
  return { pid, readyMs, stop };
}

/**
 * A fresh home with a running supervisor: fn, then `orcr server stop`, the
 * agents' process groups killed and the home removed, whatever happens.
 */
export async function withOrcr<T>(
  config: unknown,
  fn: (dir: string, sup: Supervisor) => Promise<T>,
  opts: { nodeArgs?: string[]; base?: string } = {},
): Promise<T> {
  const home = makeHome(config, 'orcr-bench-', opts.base);
  let sup: Supervisor | null = null;
  try {
    sup = await startSupervisor(home.dir, opts);
    return await fn(home.dir, sup);
  } finally {
    if (sup) await sup.stop();
    home.remove();
  }
}

export async function connect(dir: string): Promise<Client> {
  return Client.connect(homePaths(dir), { autoStart: false });
}
