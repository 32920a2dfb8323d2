// The runs with a process: for each, its output tailer, the watch on its
// directory, its child handle when we are its parent, its adapter and the
// reducer's memory, its clocks and timers, and its input writer; and one
// sweep over them all. It hears output and exits and hands them to its
// listeners (progress, exits); it decides nothing about a run's state. Its
// records are its own: other rooms read and change them through its methods.

import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createAdapter, createDetectingAdapter, type ExtendedAdapter } from '../agents/index.js';
import { initialProgress, type ProgressState } from '../core/run-progress.js';
import type { ExitReason, Protocol, Run } from '../core/types.js';
import { runDir, type Home } from '../config/home.js';
import type { FifoWriter } from '../runtime/fifo-writer.js';
import { isOurProcess, processExists, readRunStatus, type RunStatus } from '../runtime/launcher.js';
import type { LongTimeout } from '../runtime/long-timer.js';
import { Unreadable } from '../runtime/os-limits.js';
import { Tailer, type TailLine } from '../runtime/tailer.js';
import { monoNow } from './clock.js';
import type { RunStore } from './run-store.js';

export type Adapter = ExtendedAdapter & { protocol?: () => Protocol | null };

/** The sweep's tick: a re-adopted run that died without a word is found within about this long. */
const SWEEP_MS = 1000;
/** Ticks between a run's costlier checks (its pid's start time, its output's size), spread over the runs. */
const CYCLE = 30;

/** The timers a live run may have: its guard deadline, and the KILL after a stop's grace. */
export type TimerName = 'guard' | 'kill';

interface Live {
  /** Our child when we started it ourselves: its exit event is the quickest news of the run's end. */
  child: ChildProcess | null;
  tailer: Tailer;
  /** The run directory, watched for output in `out` and the wrapper's `exit` line in `status`. */
  dirWatch: fs.FSWatcher | null;
  adapter: Adapter;
  /** What the run reducer keeps between reads (loop window, last result, a decided stop). */
  progress: ProgressState;
  timers: Record<TimerName, LongTimeout | null>;
  /** The output time the stall clock reads (epoch ms, monotonic). */
  lastOutputAt: number;
  /** The agent's input FIFO: what was sent and not yet in the pipe, written as it drains. */
  input: FifoWriter | null;
  /** Monotonic ms at which the run started, for timeouts immune to clock jumps. */
  startedMono: number;
  /** Its exit was heard: what follows is its ending. */
  exited: boolean;
  /** Someone takes this run's session over: stop it when its turn ends (`run.takeover`). */
  takeoverAtTurnEnd: boolean;
  /** Our child's exit event came: the process is gone, whatever its files say. */
  childExited: boolean;
  /**
   * Its output or status file could not be read when told to (out of
   * descriptors): read again on the sweep's next tick. An exit is never
   * reported without its status and last output read.
   */
  recheck: boolean;
  /** Said once in the log while it cannot be read, not on every retry. */
  toldUnreadable: boolean;
  /** Its place in the sweep's cycle: which tick does its costlier checks. */
  slot: number;
}

export interface LiveListeners {
  /** New complete lines of a run's output. */
  onLines(uuid: string, lines: TailLine[]): void;
  /** The wrapper exited, or was found gone (`vanished`). */
  onExit(uuid: string, code: number | null, vanished: boolean): void;
  /** The wrapper is gone without having started its agent (it could not fork): a launch to try again. */
  onUnstarted(uuid: string): void;
}

export class LiveRuns {
  private readonly runs = new Map<string, Live>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private nextSlot = 0;
  private listeners: LiveListeners = { onLines: () => undefined, onExit: () => undefined, onUnstarted: () => undefined };

  constructor(private readonly d: { home: Home; store: Pick<RunStore, 'get'>; log: (msg: string) => void }) {}

  /** Set once, by the composition root: who hears output and exits. */
  listen(l: LiveListeners): void {
    this.listeners = l;
  }

  has(uuid: string): boolean {
    return this.runs.has(uuid);
  }

  uuids(): string[] {
    return [...this.runs.keys()];
  }

  // ---------- the reducer's memory, the stop decided, the clocks ----------

  adapter(uuid: string): Adapter | null {
    return this.runs.get(uuid)?.adapter ?? null;
  }

  progress(uuid: string): ProgressState | null {
    return this.runs.get(uuid)?.progress ?? null;
  }

  setProgress(uuid: string, state: ProgressState): void {
    const live = this.runs.get(uuid);
    if (live) live.progress = state;
  }

  /** The reason a guardrail decided to stop this run, or null. */
  stoppedFor(uuid: string): { reason: ExitReason; detail: string | null } | null {
    return this.runs.get(uuid)?.progress.stoppedFor ?? null;
  }

  markStopped(uuid: string, reason: ExitReason, detail: string | null): void {
    const live = this.runs.get(uuid);
    if (live) live.progress = { ...live.progress, stoppedFor: { reason, detail } };
  }

  /** Its exit is heard once: false if it was already. */
  markExited(uuid: string): boolean {
    const live = this.runs.get(uuid);
    if (!live || live.exited) return false;
    live.exited = true;
    return true;
  }

  /** A stop is under way (decided, or its exit heard): no stall says it again. */
  stopping(uuid: string): boolean {
    const live = this.runs.get(uuid);
    return live !== undefined && (live.exited || live.progress.stoppedFor !== null);
  }

  /** Ask for a take-over at the end of the turn: false if it was asked already (or the run is not live). */
  requestTakeover(uuid: string): boolean {
    const live = this.runs.get(uuid);
    if (!live || live.takeoverAtTurnEnd) return false;
    live.takeoverAtTurnEnd = true;
    return true;
  }

  takeoverRequested(uuid: string): boolean {
    return this.runs.get(uuid)?.takeoverAtTurnEnd === true;
  }

  clocks(uuid: string): { startedAt: number; lastOutputAt: number } | null {
    const live = this.runs.get(uuid);
    return live ? { startedAt: live.startedMono, lastOutputAt: live.lastOutputAt } : null;
  }

  heard(uuid: string, now: number): void {
    const live = this.runs.get(uuid);
    if (live) live.lastOutputAt = now;
  }

  /** Replace a run's timer of that name (null: clear it). */
  setTimer(uuid: string, name: TimerName, timer: LongTimeout | null): void {
    const live = this.runs.get(uuid);
    if (!live) {
      timer?.clear();
      return;
    }
    live.timers[name]?.clear();
    live.timers[name] = timer;
  }

  /** A timer of that name was set (it may have fired since). */
  hasTimer(uuid: string, name: TimerName): boolean {
    return (this.runs.get(uuid)?.timers[name] ?? null) !== null;
  }

  timerPending(uuid: string, name: TimerName): boolean {
    return this.runs.get(uuid)?.timers[name]?.pending === true;
  }

  /** The run's input writer, made on first use. */
  writer(uuid: string, make: () => FifoWriter): FifoWriter | null {
    const live = this.runs.get(uuid);
    if (!live) return null;
    live.input ??= make();
    return live.input;
  }

  /** A line of the run's output read whole from its file, past the tailer's limit (a request carrying a whole file), when at most `max` bytes. */
  wholeLine(uuid: string, line: TailLine, max: number): string | null {
    const live = this.runs.get(uuid);
    return live ? Tailer.readLineAt(live.tailer.file, line.start, line.end, max) : null;
  }

  /** Read what the agent wrote last (the run is ending): the complete lines go to onLines, the partial one comes back. */
  drain(uuid: string): TailLine | null {
    const live = this.runs.get(uuid);
    if (!live) return null;
    live.tailer.read();
    return live.tailer.flushPartial();
  }

  // ---------- watch and let go ----------

  /** Follow a spawned run: its output and its exit (its guard is the caller's effect). */
  watch(run: Run, child: ChildProcess | null): void {
    const dir = runDir(this.d.home, run.uuid);
    const adapter = run.protocol
      ? createAdapter(run.protocol, { modelTurns: true, attempt: run.attempts.length, opened: run.status !== 'starting' })
      : createDetectingAdapter({ modelTurns: true });
    // No poll timer per tailer: the one sweep re-reads them all.
    const tailer = new Tailer(path.join(dir, 'out'), run.out_offset, (lines) => this.listeners.onLines(run.uuid, lines), 0);
    const live: Live = {
      child,
      tailer,
      dirWatch: null,
      adapter,
      progress: { ...initialProgress(), loop: run.loop_state },
      timers: { guard: null, kill: null },
      // Re-adopted: counted from now (output times are not journaled).
      lastOutputAt: monoNow(),
      input: null,
      startedMono: run.started_at ?? monoNow(),
      exited: false,
      takeoverAtTurnEnd: false,
      childExited: false,
      recheck: false,
      toldUnreadable: false,
      slot: this.nextSlot++ % CYCLE,
    };
    this.runs.set(run.uuid, live);
    // One watch per run, on its directory: `out` grows (read it), and the
    // wrapper appends `exit N` to `status` when the agent ends — how the end
    // of a run we are not the parent of is heard at once. The sweep re-reads
    // and re-checks in case a notification is lost.
    try {
      live.dirWatch = fs.watch(dir, { persistent: false }, (_ev, name) => {
        if (name === 'out' || name === null) this.readOut(run.uuid, live);
        if (name === 'status' || name === null) this.onStatus(run.uuid);
      });
      live.dirWatch.on('error', () => undefined);
    } catch {
      live.dirWatch = null;
    }
    tailer.start(false);
    if (child) {
      child.on('exit', () => {
        live.childExited = true;
        this.hearExit(run.uuid);
      });
    }
    this.armSweep();
    // It may have ended before anything above was listening.
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      live.childExited = true;
      this.hearExit(run.uuid);
    } else this.onStatus(run.uuid);
  }

  private readOut(uuid: string, live: Live): boolean {
    if (live.tailer.read()) return true;
    this.unreadable(uuid, live, `${live.tailer.file}: could not be read`);
    return false;
  }

  /** The status file changed (or may have): an `exit` line there is the run's end. */
  private onStatus(uuid: string): void {
    const live = this.runs.get(uuid);
    if (!live) return;
    let st: RunStatus;
    try {
      st = readRunStatus(runDir(this.d.home, uuid));
    } catch (e) {
      if (!(e instanceof Unreadable)) throw e;
      this.unreadable(uuid, live, e.message);
      return;
    }
    if (st.exit !== null) this.hearExit(uuid, st);
  }

  /**
   * The process is gone (or its status says so): its status and its last
   * output read, then its end told. `read`: the status as just read (its
   * `exit` line), not read twice.
   */
  private hearExit(uuid: string, read?: RunStatus): void {
    const live = this.runs.get(uuid);
    if (!live || live.exited) return;
    let st: RunStatus;
    try {
      st = read ?? readRunStatus(runDir(this.d.home, uuid));
    } catch (e) {
      if (!(e instanceof Unreadable)) throw e;
      this.unreadable(uuid, live, e.message);
      return;
    }
    if (!this.readOut(uuid, live)) return;
    live.recheck = false;
    if (st.unstarted) this.listeners.onUnstarted(uuid);
    // Gone without an exit status: its wrapper was killed (or could not write it), as when found so at start-up.
    else this.listeners.onExit(uuid, st.exit, st.exit === null);
  }

  private unreadable(uuid: string, live: Live, why: string): void {
    live.recheck = true;
    if (!live.toldUnreadable) this.d.log(`run ${uuid}: status of its files unreadable (${why}); reading them again until they can be`);
    live.toldUnreadable = true;
    this.armSweep();
  }

  /** A read that failed, tried again: the output, then the exit if the process is gone. */
  private recheck(uuid: string, live: Live): void {
    live.recheck = false;
    if (!this.readOut(uuid, live)) return;
    const r = live.child === null ? this.d.store.get(uuid) : null;
    const gone = live.childExited || (r !== null && r !== undefined && r.pid !== null && !isOurProcess(r.pid, r.pid_start));
    if (gone) this.hearExit(uuid);
    else this.onStatus(uuid);
    if (!live.recheck) live.toldUnreadable = false;
  }

  /** Stop listening to a run (its process goes on): files, child, timers, input. */
  detach(uuid: string): void {
    const live = this.runs.get(uuid);
    if (!live) return;
    live.tailer.close();
    live.dirWatch?.close();
    live.dirWatch = null;
    live.child?.removeAllListeners('exit');
    live.timers.guard?.clear();
    live.timers.kill?.clear();
    live.input?.close();
    this.runs.delete(uuid);
  }

  /** Let go of every run (stopping, degrading); the journal keeps their offsets (stopping.ts saves them first). */
  detachAll(): void {
    for (const uuid of [...this.runs.keys()]) this.detach(uuid);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
  }

  /**
   * One timer for every run, its cost proportional to what happens, not to
   * the runs (1,000 idle re-adopted runs cost 18% of a core when each was
   * read 4 times a second). Output and the wrapper's `exit` line come through
   * the directory watch; this is the backstop. Each tick: a re-adopted run's
   * wrapper still there (kill 0: one system call; our own children tell us of
   * their exit), a run whose files could not be read read again, a run with
   * no directory watch polled, a descriptor kept for a quiet file let go.
   * Once a cycle per run (spread over the ticks): its pid's start time (a
   * zombie, a reused pid) and its output's size against what was read (a
   * notification lost).
   */
  private armSweep(): void {
    if (this.sweepTimer) return;
    let tick = 0;
    this.sweepTimer = setInterval(() => {
      tick++;
      const now = Date.now();
      // Deleting from a Map while iterating it is safe: a run detached meanwhile is not visited.
      for (const [uuid, live] of this.runs) {
        if (live.recheck) {
          this.recheck(uuid, live);
          continue;
        }
        live.tailer.releaseIdle(now);
        const full = (live.slot + tick) % CYCLE === 0;
        if (live.dirWatch === null) {
          this.readOut(uuid, live);
          this.onStatus(uuid);
        } else if (full) this.backstop(uuid, live);
        if (live.child === null) {
          const r = this.d.store.get(uuid);
          if (r && r.pid !== null && (full ? !isOurProcess(r.pid, r.pid_start) : !processExists(r.pid))) this.hearExit(uuid);
        }
      }
      if (this.runs.size === 0 && this.sweepTimer) {
        clearInterval(this.sweepTimer);
        this.sweepTimer = null;
      }
    }, SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Output a change notification did not bring: its size, and a read only when it grew. */
  private backstop(uuid: string, live: Live): void {
    let size: number;
    try {
      size = fs.statSync(live.tailer.file).size;
    } catch {
      return;
    }
    if (size !== live.tailer.seen) this.readOut(uuid, live);
  }
}
