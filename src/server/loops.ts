// Loops: durable cron for a command. A loop owns time only; what it fires is
// an ordinary orcr run (provider `loop`, workload `loop:NAME`, protocol
// plain), started through the same launcher and wrapper as an agent — its own
// process group, pid and start time, an exit status the wrapper writes — so it
// survives a supervisor restart and is re-adopted like any run, and the agents
// its command makes (through the CLI, with ORCR_RUN set) are its children.
//
// A loop run never enters the limiter (planRun says so: `admission:
// 'at_once'`): the agent caps are for agents, and a loop's only cap is its own
// max_concurrency (a separate axis). The agents it spawns queue and obey
// every cap as usual.
//
// Every decision (fired, pending, coalesced, skipped, missed, paused, timed
// out) is an event written in the unit of work that changes the loop's row;
// the decisions themselves are core/loop-policy's.

import type { FireOutcome } from '../protocol/results.js';
import type { PublicLoop, PublicLoopRun } from '../protocol/views.js';
import { parseDuration } from '../config/duration.js';
import { checkZone, CronError, parseCron, parseOnceAt } from '../core/cron.js';
import {
  decideFire,
  dueAt,
  isLoopRun,
  LOOP_PROVIDER,
  loopNameProblem,
  loopOfRun,
  loopRunStatus,
  loopWorkload,
  nextScheduled,
  pendingStarts,
  type Loop,
  type LoopSchedule,
  type Overlap,
} from '../core/loop-policy.js';
import { transition } from '../core/run-state.js';
import type { Run } from '../core/types.js';
import type { EventInput, LoopEventInput, RunEvent } from '../core/events.js';
import { setLongTimeout, type LongTimeout } from '../runtime/long-timer.js';
import { monoNow, type WallClock } from './clock.js';
import type { Launching } from './launching.js';
import type { Lifecycle } from './lifecycle.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';
import { planRun } from './spec-resolution.js';
import type { Stops } from './stops.js';
import { RemoteError } from '../protocol/errors.js';

/** The scheduler looks at the wall clock at least this often: a machine waking from sleep is noticed within it. */
const TICK_MS = 30_000;

export interface LoopCreate {
  name: string;
  cron?: string;
  once_at?: string;
  tz: string;
  max_concurrency: number;
  overlap: Overlap;
  timeout_ms: number | null;
  command: string[];
  cwd: string;
  env: Record<string, string> | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export class Loops {
  private loops = new Map<string, Loop>();
  private envs = new Map<string, Record<string, string> | null>();
  private timer: LongTimeout | null = null;
  private readonly timeouts = new Map<string, LongTimeout>();

  constructor(
    private readonly p: {
      store: RunStore;
      lifecycle: Pick<Lifecycle, 'writes' | 'draining' | 'fail' | 'background'>;
      launching: Pick<Launching, 'launch'>;
      stops: Pick<Stops, 'stop' | 'kill' | 'stopBelow'>;
      live: Pick<LiveRuns, 'stoppedFor'>;
      /** The wall clock the schedules are read by (clock.ts). */
      now: WallClock;
    },
  ) {
    // A loop run's end may let its pending run start. Heard after the commit;
    // acted on in a turn of its own, outside the unit of work that ended it.
    p.store.reader.onEvent((event, row) => {
      if (event.type === 'ended' && row && isLoopRun(row)) setImmediate(() => this.onRunEnded(row));
    });
  }

  // ---------- life ----------

  /** After the runs are reconciled: load the loops, skip what was missed while no supervisor ran, re-arm. */
  start(): void {
    this.loops.clear();
    this.envs.clear();
    for (const { record, env } of this.p.store.reader.loops()) {
      this.loops.set(record.name, record);
      this.envs.set(record.name, env);
    }
    for (const run of this.p.store.active()) if (isLoopRun(run)) this.armTimeout(run);
    this.tick();
    for (const name of this.loops.keys()) this.startPending(name);
  }

  stop(): void {
    this.timer?.clear();
    this.timer = null;
    for (const t of this.timeouts.values()) t.clear();
    this.timeouts.clear();
  }

  private get live(): boolean {
    return this.p.lifecycle.writes();
  }

  /** Fire what is due, skip what is long overdue, and sleep until the next fire (or TICK_MS, to notice a sleep). */
  private tick(): void {
    this.timer?.clear();
    this.timer = null;
    if (!this.live) return;
    const now = this.p.now();
    for (const loop of [...this.loops.values()]) {
      if (loop.paused) continue;
      const due = dueAt(loop.schedule, loop.next_fire_at, now);
      if (due.kind === 'missed') {
        this.write({ ...loop, next_fire_at: due.next }, [
          { type: 'loop_missed', data: { first: iso(due.first), count: due.count, next_fire_at: iso(due.next) } },
        ]);
      } else if (due.kind === 'fire') {
        this.fire(loop.name, 'schedule', due.scheduled, due.next);
      }
    }
    let next = Infinity;
    for (const loop of this.loops.values()) if (!loop.paused && loop.next_fire_at !== null) next = Math.min(next, loop.next_fire_at);
    const delay = Math.max(0, Math.min(next - this.p.now(), TICK_MS));
    this.timer = setLongTimeout(
      () => {
        try {
          this.tick();
        } catch (e) {
          this.p.lifecycle.fail(e);
        }
      },
      delay,
      { unref: true },
    );
  }

  // ---------- writes ----------

  /** The loop's new row and the events explaining it, one unit of work; memory after the commit. */
  private write(loop: Loop, events: LoopEventInput[], run: Run | null = null): void {
    const { store } = this.p;
    store.transaction(() => {
      store.saveLoop(loop);
      // `run`, when given, was saved in this unit of work: the row the events are written beside.
      for (const e of events) store.event(run?.uuid ?? null, { type: e.type, data: { loop: loop.name, ...e.data } } as EventInput);
      store.afterCommit(() => {
        if (this.loops.has(loop.name)) this.loops.set(loop.name, loop);
      });
    });
  }

  private get(name: string): Loop {
    const loop = this.loops.get(name);
    if (!loop) throw new RemoteError('not_found', `no loop ${JSON.stringify(name)}`);
    return loop;
  }

  /** The loop's runs that have not ended. */
  activeRuns(name: string): Run[] {
    return [...this.p.store.active()].filter((r) => loopOfRun(r) === name).sort((a, b) => a.queue_seq - b.queue_seq);
  }

  create(c: LoopCreate): PublicLoop {
    const problem = loopNameProblem(c.name);
    if (problem) throw new RemoteError('usage', problem);
    if (this.loops.has(c.name)) throw new RemoteError('usage', `a loop named ${JSON.stringify(c.name)} exists (orcr loop rm ${c.name} first)`);
    if ((c.cron === undefined) === (c.once_at === undefined)) throw new RemoteError('usage', 'a loop needs a cron schedule or --once-at, not both');
    if (c.command.length === 0) throw new RemoteError('usage', 'a loop needs a command after --');
    const now = this.p.now();
    let schedule: LoopSchedule;
    try {
      const tz = checkZone(c.tz);
      schedule = c.cron !== undefined ? (parseCron(c.cron), { cron: c.cron.trim(), tz }) : { once_at: parseOnceAt(c.once_at!, now, tz, parseDuration) };
    } catch (e) {
      if (e instanceof CronError) throw new RemoteError('usage', e.message);
      throw e;
    }
    const next = 'once_at' in schedule ? schedule.once_at : nextScheduled(schedule, now);
    if (next === null) throw new RemoteError('usage', `"${c.cron}" never fires`);
    // Its runs start as if its maker had run them, but not inside the run that made it: a loop outlives it.
    const env = c.env === null ? null : Object.fromEntries(Object.entries(c.env).filter(([k]) => k !== 'ORCR_RUN' && k !== 'ORCR_RUN_NAME'));
    const loop: Loop = {
      name: c.name,
      schedule,
      command: c.command,
      cwd: c.cwd,
      max_concurrency: c.max_concurrency,
      overlap: c.overlap,
      timeout_ms: c.timeout_ms,
      paused: false,
      created_at: now,
      next_fire_at: next,
      pending: null,
      fired: 0,
    };
    const { store } = this.p;
    store.transaction(() => {
      store.saveLoop(loop, env);
      store.event(null, {
        type: 'loop_created',
        data: { loop: loop.name, schedule: 'cron' in schedule ? schedule.cron : 'once', tz: 'tz' in schedule ? schedule.tz : null, next_fire_at: iso(next) },
      });
      store.afterCommit(() => {
        this.loops.set(loop.name, loop);
        this.envs.set(loop.name, env);
      });
    });
    this.tick();
    return this.view(loop);
  }

  /**
   * A fire (scheduled, by hand, or a pending run's turn): start a run, or —
   * at the loop's cap — keep it pending (queue), fold it into the pending one
   * (queue, coalesced) or drop it (skip). `next`: the schedule's next fire.
   */
  fire(name: string, by: 'schedule' | 'hand', scheduled: number | null, next?: number | null): FireOutcome {
    const loop = this.get(name);
    const after: Loop = next === undefined ? { ...loop } : { ...loop, next_fire_at: next };
    const at = { by, scheduled_at: iso(scheduled) };
    if (this.p.lifecycle.draining) {
      this.write(after, [{ type: 'loop_skipped', data: { ...at, reason: 'draining' } }]);
      return { action: 'skipped', run: null, name: null };
    }
    const active = this.activeRuns(name).length;
    const d = decideFire(loop, active);
    switch (d.kind) {
      case 'start': {
        const run = this.startRun(after, [{ type: 'loop_fired', data: at }]);
        return { action: 'started', run: run.uuid, name: run.name };
      }
      case 'pend':
        this.write({ ...after, pending: { since: this.p.now(), coalesced: 0 } }, [{ type: 'loop_pending', data: { ...at, active } }]);
        return { action: 'pending', run: null, name: null };
      case 'coalesce':
        this.write({ ...after, pending: { ...loop.pending!, coalesced: loop.pending!.coalesced + 1 } }, [
          { type: 'loop_coalesced', data: { ...at, active, coalesced: loop.pending!.coalesced + 1 } },
        ]);
        return { action: 'coalesced', run: null, name: null };
      case 'skip':
        this.write(after, [{ type: 'loop_skipped', data: { ...at, reason: 'overlap', active } }]);
        return { action: 'skipped', run: null, name: null };
    }
  }

  /** A loop run, queued and promoted in one unit of work (no limiter: see the top), then launched. */
  private startRun(loop: Loop, events: LoopEventInput[]): Run {
    const { store } = this.p;
    const now = monoNow();
    let n = loop.fired + 1;
    while (store.holderOfName(`${loop.name}.${n}`) !== undefined) n++;
    const plan = planRun({ kind: 'loop', loop, name: `${loop.name}.${n}`, launchEnv: this.envs.get(loop.name) ?? null, now });
    const run = plan.make(store.reader.nextQueueSeq());
    const starting = transition(run, 'starting', now);
    store.transaction(() => {
      store.insert(
        run,
        { type: 'queued', data: { name: run.name, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, ...plan.queued } },
        now,
        plan.launchEnv,
      );
      store.save(starting, { type: 'starting', data: { from: 'queued', loop: loop.name } });
      this.write({ ...loop, fired: n, pending: null }, events, starting);
      store.afterCommit(() => {
        this.p.launching.launch([starting]);
        this.armTimeout(starting);
      });
    });
    return starting;
  }

  /** The pending run starts if the loop has room (after one of its runs ended, at start-up, on resume). */
  private startPending(name: string): void {
    const loop = this.loops.get(name);
    if (!loop || !this.live || loop.paused || this.p.lifecycle.draining) return;
    if (!pendingStarts(loop, this.activeRuns(name).length)) return;
    this.startRun(loop, [{ type: 'loop_fired', data: { by: 'pending', pending_since: iso(loop.pending!.since), coalesced: loop.pending!.coalesced } }]);
  }

  private onRunEnded(run: Run): void {
    this.timeouts.get(run.uuid)?.clear();
    this.timeouts.delete(run.uuid);
    const name = loopOfRun(run);
    if (name !== null && this.live) this.p.lifecycle.background(Promise.resolve().then(() => this.startPending(name)));
  }

  /** --timeout: measured from the run's start, so a re-adopted run keeps its deadline. */
  private armTimeout(run: Run): void {
    const name = loopOfRun(run);
    const loop = name === null ? undefined : this.loops.get(name);
    if (!loop || loop.timeout_ms === null || this.timeouts.has(run.uuid)) return;
    const at = (run.started_at ?? run.created_at) + loop.timeout_ms;
    const timeoutMs = loop.timeout_ms;
    this.timeouts.set(
      run.uuid,
      setLongTimeout(
        () => {
          this.timeouts.delete(run.uuid);
          if (!this.live || !this.p.store.get(run.uuid)) return;
          // The run first, then the agents it made: a kill of the run does not reach them by itself.
          this.p.store.transaction(() => {
            this.p.store.event(run.uuid, { type: 'loop_timed_out', data: { loop: loop.name, timeout_ms: timeoutMs } });
            this.p.stops.stop(run.uuid, 'timeout', 'loop --timeout');
            this.p.stops.stopBelow(run.uuid, 'killed', null);
          });
        },
        at - monoNow(),
        { unref: true },
      ),
    );
  }

  /** `loop run stop`: the loop's live runs stop, their agents with them; a pending run is dropped. */
  stopRuns(name: string): string[] {
    const loop = this.get(name);
    const runs = this.activeRuns(name);
    const { store, stops } = this.p;
    store.transaction(() => {
      if (loop.pending !== null) this.write({ ...loop, pending: null }, [{ type: 'loop_pending_dropped', data: { reason: 'stopped' } }]);
      for (const r of runs) {
        stops.stopBelow(r.uuid, 'killed', null);
        stops.kill(r.uuid, false);
      }
    });
    return runs.map((r) => r.uuid);
  }

  setPaused(name: string, paused: boolean): PublicLoop {
    const loop = this.get(name);
    if (loop.paused !== paused) {
      // Fires while paused are not made up: a resumed loop waits for its next one from now.
      const next = paused ? loop.next_fire_at : nextScheduled(loop.schedule, this.p.now());
      this.write({ ...loop, paused, next_fire_at: next }, [
        { type: paused ? 'loop_paused' : 'loop_resumed', data: { next_fire_at: paused ? null : iso(next) } },
      ]);
      if (!paused) this.startPending(name);
      this.tick();
    }
    return this.view(this.get(name));
  }

  /** `loop rm`: refused while its runs are live unless `killActive` (they are killed, with their agents). */
  remove(name: string, killActive: boolean): { removed: string; killed: string[] } {
    const loop = this.get(name);
    const active = this.activeRuns(name);
    if (active.length > 0 && !killActive) {
      throw new RemoteError(
        'usage',
        `loop ${JSON.stringify(name)} has ${active.length} active run${active.length === 1 ? '' : 's'} (${active.map((r) => r.name).join(', ')}): stop them (orcr loop run stop ${name}) or give --kill-active`,
      );
    }
    const { store, stops } = this.p;
    store.transaction(() => {
      store.deleteLoop(name);
      store.event(null, {
        type: 'loop_removed',
        data: { loop: name, killed: active.map((r) => r.uuid), pending_dropped: loop.pending !== null },
      });
      for (const r of active) {
        stops.stopBelow(r.uuid, 'killed', null);
        stops.kill(r.uuid, false);
      }
      store.afterCommit(() => {
        this.loops.delete(name);
        this.envs.delete(name);
      });
    });
    return { removed: name, killed: active.map((r) => r.uuid) };
  }

  // ---------- reads ----------

  list(): PublicLoop[] {
    return [...this.loops.values()].sort((a, b) => a.name.localeCompare(b.name)).map((l) => this.view(l));
  }

  show(name: string): PublicLoop {
    return this.view(this.get(name));
  }

  private stopping(run: Run): boolean {
    return this.p.live.stoppedFor(run.uuid) !== null;
  }

  view(loop: Loop): PublicLoop {
    const s = loop.schedule;
    const last = this.p.store.reader.runsByWorkload(LOOP_PROVIDER, loopWorkload(loop.name), 20).find((r) => r.status === 'ended') ?? null;
    return {
      name: loop.name,
      schedule: 'cron' in s ? s.cron : `once at ${iso(s.once_at)}`,
      cron: 'cron' in s ? s.cron : null,
      tz: 'tz' in s ? s.tz : null,
      once_at: 'once_at' in s ? iso(s.once_at) : null,
      command: loop.command,
      cwd: loop.cwd,
      max_concurrency: loop.max_concurrency,
      overlap: loop.overlap,
      timeout_ms: loop.timeout_ms,
      paused: loop.paused,
      created_at: iso(loop.created_at)!,
      next_fire_at: loop.paused ? null : iso(loop.next_fire_at),
      pending: loop.pending === null ? null : { since: iso(loop.pending.since)!, coalesced: loop.pending.coalesced },
      active: this.activeRuns(loop.name).map((r) => ({ uuid: r.uuid, name: r.name, status: loopRunStatus(r, this.stopping(r)) })),
      last: last === null ? null : { uuid: last.uuid, name: last.name, status: loopRunStatus(last), exit_code: last.exit_code, ended_at: iso(last.ended_at) },
    };
  }

  /** `loop run ls`: the pending run (if any), then the runs, newest first. */
  runs(name: string, limit = 100): PublicLoopRun[] {
    const loop = this.get(name);
    const { reader } = this.p.store;
    const out: PublicLoopRun[] = [];
    if (loop.pending !== null) {
      out.push({
        uuid: null,
        name: null,
        loop: name,
        status: 'pending',
        run_status: null,
        exit_reason: null,
        exit_code: null,
        pid: null,
        created_at: iso(loop.pending.since)!,
        started_at: null,
        ended_at: null,
        children: 0,
        coalesced: loop.pending.coalesced,
      });
    }
    for (const stored of reader.runsByWorkload(LOOP_PROVIDER, loopWorkload(name), limit)) {
      const r = this.p.store.get(stored.uuid) ?? stored;
      out.push({
        uuid: r.uuid,
        name: r.name,
        loop: name,
        status: loopRunStatus(r, this.stopping(r)),
        run_status: r.status,
        exit_reason: r.exit_reason,
        exit_code: r.exit_code,
        pid: r.pid,
        created_at: iso(r.created_at)!,
        started_at: iso(r.started_at),
        ended_at: iso(r.ended_at),
        children: reader.childrenOf(r.uuid).length,
      });
    }
    return out;
  }

  events(name: string, limit = 200): RunEvent[] {
    // A removed loop's history stays readable; a name that never was a loop is not found.
    const events = this.p.store.reader.loopEvents(name, limit);
    if (events.length === 0) this.get(name);
    return events;
  }
}
