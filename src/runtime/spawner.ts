// The supervisor's side of the spawn helper (spawn-helper.ts). Started for a
// burst of launches, used once it is up, and retired after a quiet spell so
// an idle fleet carries one process, not two. Whoever uses it falls back to
// spawning directly while it starts, and when it fails or goes away.

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The compiled helper beside this module (dist/src/runtime/spawn-helper.js). */
const HELPER_SCRIPT = fileURLToPath(new URL('./spawn-helper.js', import.meta.url));

export class SpawnHelperGone extends Error {}

interface Pending {
  resolve: (pid: number) => void;
  reject: (e: Error) => void;
}

export class SpawnHelper {
  private child: ChildProcess | null = null;
  private ready = false;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private idleTimer: NodeJS.Timeout | null = null;
  /** Base environments the running helper already holds (by id). */
  private sentBases = new Set<string>();
  /** Settles when the running helper answers (true) or goes away first (false). */
  private readyPromise: Promise<boolean> | null = null;

  /**
   * @param idleMs  how long without a spawn before it exits
   * @param script  the helper's compiled entry (tests running from src/ point at dist/)
   */
  constructor(
    private readonly idleMs = 2000,
    private readonly script = HELPER_SCRIPT,
    /** How long it may take to answer before it is given up (the quiet spell only starts once it has). */
    private readonly startMs = 30_000,
  ) {}

  /** Up and answering: spawn through it. */
  get up(): boolean {
    return this.ready && this.child !== null;
  }

  /** The helper's pid while it runs (for footprint figures and tests). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Start it if it is not running (it is used from the next launch on).
   * Resolves true once it answers, false if it went away first.
   */
  warm(): Promise<boolean> {
    if (this.child) {
      if (this.ready) this.touch();
      return this.readyPromise ?? Promise.resolve(this.ready);
    }
    const child = fork(this.script, [], {
      // Its own small heap: its fork of each wrapper is what has to stay cheap.
      execArgv: ['--max-semi-space-size=1'],
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
    });
    this.child = child;
    this.ready = false;
    this.sentBases = new Set();
    let settle: (up: boolean) => void = () => {};
    const readyPromise = new Promise<boolean>((resolve) => (settle = resolve));
    this.readyPromise = readyPromise;
    // One that never answers would otherwise never be retired: its idle clock starts at readiness.
    const startTimer = setTimeout(() => {
      if (this.child === child && !this.ready) this.close();
    }, this.startMs);
    startTimer.unref();
    child.on('message', (m: { id?: number; pid?: number; error?: string; code?: string; ready?: boolean }) => {
      if (m.ready === true && this.child === child) {
        this.ready = true;
        clearTimeout(startTimer);
        // The quiet spell counts from when it can be used: a start slower than
        // idleMs (a loaded machine) must not retire it before its first spawn.
        this.touch();
        settle(true);
      }
      if (m.id === undefined) return;
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (typeof m.pid === 'number') p.resolve(m.pid);
      else p.reject(Object.assign(new Error(m.error ?? 'spawn failed'), { code: m.code ?? 'ESPAWN' }));
    });
    const gone = (): void => {
      settle(false);
      clearTimeout(startTimer);
      if (this.child !== child) return;
      this.child = null;
      this.ready = false;
      if (this.readyPromise === readyPromise) this.readyPromise = null;
      for (const p of this.pending.values()) p.reject(new SpawnHelperGone('the spawn helper went away'));
      this.pending.clear();
    };
    child.on('exit', gone);
    child.on('error', gone);
    // It must never keep the supervisor alive on its own.
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
    return readyPromise;
  }

  /**
   * Start `file args` detached in `cwd` with `env` added to a base environment:
   * `base` (sent to the helper once per id, then named by its id) or, without
   * one, the supervisor's own. Resolves to its pid.
   */
  spawn(
    file: string,
    args: string[],
    cwd: string,
    env: Record<string, string>,
    base: { id: string; env: Readonly<Record<string, string>> } | null = null,
  ): Promise<number> {
    const child = this.child;
    if (!child || !this.ready) return Promise.reject(new SpawnHelperGone('the spawn helper is not running'));
    this.touch();
    const id = this.nextId++;
    let baseMsg: { id: string; env?: Readonly<Record<string, string>> } | null = null;
    if (base !== null) {
      baseMsg = this.sentBases.has(base.id) ? { id: base.id } : { id: base.id, env: base.env };
      this.sentBases.add(base.id);
    }
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        child.send({ id, file, args, cwd, env, base: baseMsg });
      } catch (e) {
        this.pending.delete(id);
        reject(new SpawnHelperGone(`the spawn helper went away: ${(e as Error).message}`));
      }
    });
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0) this.close();
      else this.touch();
    }, this.idleMs);
    this.idleTimer.unref();
  }

  close(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const child = this.child;
    this.child = null;
    this.ready = false;
    this.readyPromise = null;
    for (const p of this.pending.values()) p.reject(new SpawnHelperGone('the spawn helper was closed'));
    this.pending.clear();
    if (child) {
      child.disconnect?.();
      child.kill();
    }
  }
}
