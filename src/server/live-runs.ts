// The runs with a process: for each, its output tailer, the watch on its
// directory, its child handle when we are its parent, its adapter and the
// reducer's memory, its timers and input writer; and one sweep over them all.
// It hears output and exits and hands them on (progress, ending); it decides
// nothing about a run's state.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createAdapter, createDetectingAdapter, type ExtendedAdapter } from '../agents/index.js';
import { initialProgress, type ProgressState } from '../core/run-progress.js';
import type { Protocol, Run } from '../core/types.js';
import { runDir } from '../config/home.js';
import type { FifoWriter } from '../runtime/fifo-writer.js';
import { isOurProcess, readExitStatus } from '../runtime/launcher.js';
import type { LongTimeout } from '../runtime/long-timer.js';
import { Tailer } from '../runtime/tailer.js';
import { monoNow } from './clock.js';
import type { Parts } from './parts.js';

export interface Live {
  /** Our child when we started it ourselves: its exit event is the quickest news of the run's end. */
  child: ChildProcess | null;
  tailer: Tailer;
  /** The run directory, watched for output in `out` and the wrapper's `exit` line in `status`. */
  dirWatch: fs.FSWatcher | null;
  adapter: ExtendedAdapter & { protocol?: () => Protocol | null };
  /** What the run reducer keeps between reads (loop window, last result, a decided stop). */
  progress: ProgressState;
  killTimer: LongTimeout | null;
  guardTimer: LongTimeout | null;
  /** The per-turn deadline's one timer (see Stalls), and the output time it reads (epoch ms, monotonic). */
  stallTimer: LongTimeout | null;
  lastOutputAt: number;
  /** The agent's input FIFO: what was sent and not yet in the pipe, written as it drains. */
  input: FifoWriter | null;
  /** Monotonic ms at which the run started, for timeouts immune to clock jumps. */
  startedMono: number;
  finished: boolean;
  /** Someone takes this run's session over: stop it when its turn ends (`run.takeover`). */
  takeoverAtTurnEnd?: boolean;
}

export class LiveRuns {
  private readonly runs = new Map<string, Live>();
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(private readonly p: Parts) {}

  get(uuid: string): Live | undefined {
    return this.runs.get(uuid);
  }

  has(uuid: string): boolean {
    return this.runs.has(uuid);
  }

  /** Follow a spawned run: its output, its exit, its guards. */
  watch(run: Run, child: ChildProcess | null): void {
    const dir = runDir(this.p.home, run.uuid);
    const adapter = run.protocol ? createAdapter(run.protocol, { modelTurns: true }) : createDetectingAdapter({ modelTurns: true });
    // No poll timer per tailer: the one sweep re-reads them all.
    const tailer = new Tailer(path.join(dir, 'out'), run.out_offset, (lines) => this.p.progress.onLines(run.uuid, lines), 0);
    const live: Live = {
      child,
      tailer,
      dirWatch: null,
      adapter,
      progress: run.loop_state ? { ...initialProgress(), loop: run.loop_state } : initialProgress(),
      killTimer: null,
      guardTimer: null,
      stallTimer: null,
      // Re-adopted: counted from now (output times are not journaled).
      lastOutputAt: monoNow(),
      input: null,
      startedMono: run.started_at ?? monoNow(),
      finished: false,
    };
    this.runs.set(run.uuid, live);
    // One watch per run, on its directory: `out` grows (read it), and the
    // wrapper appends `exit N` to `status` when the agent ends — how the end
    // of a run we are not the parent of is heard at once. The sweep re-reads
    // and re-checks in case a notification is lost.
    try {
      live.dirWatch = fs.watch(dir, { persistent: false }, (_ev, name) => {
        if (name === 'out' || name === null) live.tailer.read();
        if (name === 'status' || name === null) this.onStatus(run.uuid);
      });
      live.dirWatch.on('error', () => undefined);
    } catch {
      live.dirWatch = null;
    }
    tailer.start(false);
    if (child) child.on('exit', () => this.p.ending.finish(run.uuid, readExitStatus(dir), false));
    this.p.guards.arm(run.uuid);
    this.armSweep();
    // It may have ended before anything above was listening.
    if (child && (child.exitCode !== null || child.signalCode !== null)) this.p.ending.finish(run.uuid, readExitStatus(dir), false);
    else this.onStatus(run.uuid);
  }

  private onStatus(uuid: string): void {
    const code = readExitStatus(runDir(this.p.home, uuid));
    if (code !== null) this.p.ending.finish(uuid, code, false);
  }

  /** Stop listening to a run (its process goes on): files, child, timers, input. */
  detach(uuid: string): void {
    const live = this.runs.get(uuid);
    if (!live) return;
    live.tailer.close();
    live.dirWatch?.close();
    live.dirWatch = null;
    live.child?.removeAllListeners('exit');
    live.killTimer?.clear();
    live.guardTimer?.clear();
    live.stallTimer?.clear();
    live.input?.close();
    this.runs.delete(uuid);
  }

  /** Let go of every run (stopping, degrading); the journal keeps their offsets (see Supervisor.stop). */
  detachAll(): void {
    for (const uuid of [...this.runs.keys()]) this.detach(uuid);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  uuids(): string[] {
    return [...this.runs.keys()];
  }

  /**
   * One timer for every run instead of two per run (a thousand re-adopted runs
   * cost a tenth of a core in timer callbacks): it notices a re-adopted run's
   * exit — only its parent hears of it otherwise — and, every fourth tick,
   * re-reads each output file in case a change notification was lost.
   */
  private armSweep(): void {
    if (this.sweepTimer) return;
    let tick = 0;
    this.sweepTimer = setInterval(() => {
      tick++;
      for (const [uuid, live] of [...this.runs]) {
        if (tick % 4 === 0) live.tailer.read();
        if (live.child === null) {
          const r = this.p.store.get(uuid);
          if (r && r.pid !== null && !isOurProcess(r.pid, r.pid_start)) this.p.ending.finish(uuid, readExitStatus(runDir(this.p.home, uuid)), false);
        }
      }
      if (this.runs.size === 0 && this.sweepTimer) {
        clearInterval(this.sweepTimer);
        this.sweepTimer = null;
      }
    }, 250);
    this.sweepTimer.unref();
  }
}
