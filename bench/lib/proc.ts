// /proc readings (CPU ticks, RSS, PSS, process trees) and process helpers.
// Everything the bench starts is tracked here so that it can be killed on
// every exit path: the bench never leaves a process behind.

import { execFileSync, spawn, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import { groupAlive, signalGroup } from '../../src/runtime/launcher.js';

let tck: number | null = null;
/** Clock ticks per second (USER_HZ) for /proc/PID/stat times. */
function clkTck(): number {
  if (tck === null) {
    try {
      tck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      tck = 100;
    }
  }
  return tck;
}

export interface Stat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  /** utime + stime, in ticks. */
  cpu: number;
  starttime: number;
}

export function stat(pid: number): Stat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state); field N is f[N - 3].
  return {
    pid,
    comm,
    state: f[0]!,
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    cpu: Number(f[11]) + Number(f[12]),
    starttime: Number(f[19]),
  };
}

/** A process's argv (/proc/PID/cmdline), or [] when it is gone. */
function argv(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

/**
 * Whether pid runs `script` (a path ending so) under Node.js. Found by its
 * argv, not its name in /proc: Node.js 24 names its main thread `MainThread`
 * (older ones left `node`), so a `comm` test finds nothing there.
 */
export function runsScript(pid: number, script: string): boolean {
  return argv(pid).some((a) => a.endsWith(script));
}

/** Resident set size in KiB (VmRSS), or 0 when the process is gone. */
export function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Proportional set size in KiB (shared pages divided among their users), or 0. */
export function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function children(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
      if (text) for (const c of text.split(' ')) out.push(Number(c));
    }
  } catch {
    /* gone */
  }
  return out;
}

export function descendants(pid: number): number[] {
  const out: number[] = [];
  const todo = [pid];
  while (todo.length) {
    for (const c of children(todo.pop()!)) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

/** CPU use of a set of processes over a window, as % of one core. */
export class CpuMeter {
  private t0 = 0;
  private ticks0 = 0;
  constructor(private readonly pids: () => number[]) {}
  private ticks(): number {
    let sum = 0;
    for (const pid of this.pids()) sum += stat(pid)?.cpu ?? 0;
    return sum;
  }
  start(): void {
    this.t0 = performance.now();
    this.ticks0 = this.ticks();
  }
  /** % of one core since start(). */
  read(): number {
    const secs = (performance.now() - this.t0) / 1000;
    return ((this.ticks() - this.ticks0) / clkTck() / secs) * 100;
  }
}

// ---------- tracked processes ----------

const groups = new Set<number>();
const cleanups: (() => void | Promise<void>)[] = [];

/** Remember a process group to SIGKILL at exit (unless forgotten first). */
export function trackGroup(pgid: number): void {
  groups.add(pgid);
}
export function untrackGroup(pgid: number): void {
  groups.delete(pgid);
}

export function onCleanup(fn: () => void | Promise<void>): () => void {
  cleanups.push(fn);
  return () => {
    const i = cleanups.indexOf(fn);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

export function killGroup(pgid: number, sig: NodeJS.Signals = 'SIGKILL'): boolean {
  return signalGroup(pgid, sig);
}

/** Wait until no process is left in the group (or the time runs out). */
export async function waitGroupGone(pgid: number, timeoutMs = 5000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() > end) return false;
    await sleep(10);
  }
  return true;
}

export async function runCleanups(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (e) {
      process.stderr.write(`bench cleanup: ${(e as Error).message}\n`);
    }
  }
  for (const g of groups) killGroup(g);
  groups.clear();
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Timed {
  code: number | null;
  ms: number;
  stdout: string;
  stderr: string;
}

/**
 * Run `sh -c cmd` in its own process group, timed from the spawn call to its
 * exit. The group is killed when the time runs out and on bench exit.
 */
export function timedShell(cmd: string, opts: SpawnOptions & { timeoutMs?: number; input?: string } = {}): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn('/bin/sh', ['-c', cmd], { ...opts, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const pgid = child.pid!;
    trackGroup(pgid);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      if (stdout.length < 1 << 20) stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      if (stderr.length < 1 << 20) stderr += c;
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          killGroup(pgid);
        }, opts.timeoutMs)
      : null;
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (timer) clearTimeout(timer);
      killGroup(pgid); // anything it left behind
      untrackGroup(pgid);
      resolve({ code, ms, stdout, stderr });
    });
  });
}

/** `cmd`'s executable on PATH, then in `also` (folders a PATH may leave out), or null. */
export function which(cmd: string, also: string[] = []): string | null {
  for (const dir of [...(process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':'), ...also]) {
    if (!dir) continue;
    const f = `${dir}/${cmd}`;
    try {
      fs.accessSync(f, fs.constants.X_OK);
      return f;
    } catch {
      /* next */
    }
  }
  return null;
}

/** Peak resident set size in KiB (VmHWM), or 0 when the process is gone. */
export function hwmKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const FS_TYPES: Record<number, string> = {
  0x01021994: 'tmpfs',
  0xef53: 'ext4',
  0x58465342: 'xfs',
  0x9123683e: 'btrfs',
  0x794c7630: 'overlayfs',
  0x6969: 'nfs',
  0x2fc12fc1: 'zfs',
};
/** The file system type of a directory, by statfs magic. */
export function fsType(dir: string): string {
  try {
    const t = fs.statfsSync(dir).type;
    return FS_TYPES[t] ?? `0x${t.toString(16)}`;
  } catch {
    return 'unknown';
  }
}
