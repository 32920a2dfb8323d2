// The journal: the only durable state, and with its tables' modules (runs,
// events, launch environments, usage, meta, loops) and retention.ts (its
// batches, as journal.retention, in this journal's transactions) the only
// code that touches SQLite. A run's row and the event that explains its
// change are written in one IMMEDIATE transaction, so a crash can never leave
// one without the other. Records read back are decoded, checked, with the
// defaults of fields older records lack (run-decoder.ts).

import type { SpendRow } from '../protocol/results.js';
import type Database from 'better-sqlite3';
import type { EventInput, RunEvent } from '../core/events.js';
import type { Run } from '../core/types.js';
import type { Loop } from '../core/loop-policy.js';
import { openDatabase } from './database.js';
import { JournalUnavailable, unavailableReason } from './errors.js';
import { EventRows, eventFromRow } from './event-rows.js';
import { LaunchEnvs } from './launch-envs.js';
import { LoopRows } from './loop-rows.js';
import { Meta } from './meta.js';
import { JournalRetention } from './retention.js';
import { RunRows, type ListQuery } from './run-rows.js';
import { Usage } from './usage.js';

export { JournalUnavailable, JournalVersionError } from './errors.js';
export type { ListQuery } from './run-rows.js';

/** Hears every committed event, with the run row written beside it (null for events about no row change). */
export type EventListener = (event: RunEvent, run: Run | null) => void;

export class Journal {
  readonly db: Database.Database;
  /** Why the store could not be written when it was opened (a full disk), or null: the supervisor then starts degraded. */
  readonly unwritableAtOpen: string | null;
  private queueSeq: number;
  private readonly stmts;
  private readonly runs: RunRows;
  private readonly events: EventRows;
  private readonly envs: LaunchEnvs;
  private readonly usage: Usage;
  private readonly meta: Meta;
  private readonly loopRows: LoopRows;
  /** What retention reads and removes (retention.ts): in the same database, in this journal's transactions. */
  readonly retention: JournalRetention;
  /** Callbacks for every committed event, in seq order; the server broadcasts from here. */
  private listeners: EventListener[] = [];
  /** Events of the open transaction, each with the run row it wrote (if any). */
  private pending: { event: RunEvent; run: Run | null }[] = [];
  private depth = 0;

  /** The clock events are stamped with: the owner's, so that event and run times agree (the supervisor's is monotonic wall time). */
  private readonly now: () => number;

  constructor(file: string, opts: { synchronous?: 'normal' | 'full'; readonly?: boolean; now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
    const opened = openDatabase(file, opts);
    this.db = opened.db;
    this.unwritableAtOpen = opened.unwritableAtOpen;
    this.stmts = {
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
    };
    this.runs = new RunRows(this.db);
    this.events = new EventRows(this.db);
    this.envs = new LaunchEnvs(this.db);
    this.usage = new Usage(this.db);
    this.meta = new Meta(this.db);
    this.loopRows = new LoopRows(this.db);
    this.queueSeq = this.runs.maxQueueSeq();
    this.retention = new JournalRetention(this.db, (fn) => this.transaction(fn));
  }

  onEvent(fn: EventListener): () => void {
    this.listeners.push(fn);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== fn);
    };
  }

  /**
   * Run fn in one IMMEDIATE transaction; nested calls join the outer one.
   * Listeners hear about events only after the commit, so nobody ever sees an
   * event that a crash could take back; `onCommit` (outermost call only) runs
   * between the commit and the listeners.
   */
  transaction<T>(fn: () => T, onCommit?: () => void): T {
    if (this.depth > 0) return fn();
    this.depth++;
    let result: T;
    try {
      // Prepared BEGIN/COMMIT rather than db.transaction(fn) per call: that
      // wrapper is rebuilt on every call, a sizeable share of a transition.
      this.stmts.begin.run();
      result = fn();
      this.stmts.commit.run();
    } catch (e) {
      this.pending = [];
      if (this.db.inTransaction) this.stmts.rollback.run();
      const unavailable = unavailableReason(e);
      if (unavailable !== null) throw new JournalUnavailable(unavailable);
      throw e;
    } finally {
      this.depth--;
    }
    const committed = this.pending;
    this.pending = [];
    // The owner's memory follows the commit before anyone hears of it.
    onCommit?.();
    for (const { event, run } of committed) for (const l of this.listeners) l(event, run);
    return result;
  }

  /** Inside transaction()'s fn. */
  get inTransaction(): boolean {
    return this.depth > 0;
  }

  nextQueueSeq(): number {
    return this.queueSeq + 1;
  }

  private append(run: string | null, ev: EventInput, ts: number, row: Run | null = null): RunEvent {
    // An untyped caller (a script, an older test) may leave data out: the column wants an object, and
    // the listeners hear the event as it reads back.
    const data = JSON.stringify(ev.data ?? {});
    const seq = this.events.insert(ts, run, ev.type, data);
    const event: RunEvent = ev.data === undefined ? eventFromRow({ seq, ts, run, type: ev.type, data }) : { seq, ts, run, ...ev };
    this.pending.push({ event, run: row });
    return event;
  }

  /**
   * Insert a queued run with its event; `launchEnv` is the environment it is
   * to start with (its maker's), kept beside the row and read back at launch.
   */
  insertRun(run: Run, ev: EventInput, ts = this.now(), launchEnv: Record<string, string> | null = null): RunEvent {
    return this.transaction(() => {
      this.runs.insert(run);
      if (launchEnv !== null) this.envs.attach(run.uuid, launchEnv);
      if (run.queue_seq > this.queueSeq) this.queueSeq = run.queue_seq;
      return this.append(run.uuid, ev, ts, run);
    });
  }

  /** Persist a run's new state, with the event that explains it (or none for meter-only updates). */
  updateRun(run: Run, ev: EventInput | null, ts = this.now()): RunEvent | null {
    return this.transaction(() => {
      this.runs.update(run);
      return ev ? this.append(run.uuid, ev, ts, run) : null;
    });
  }

  /** An event alone; `row` is the run as it stands with it (what listeners get beside a run's event). */
  appendEvent(run: string | null, ev: EventInput, ts = this.now(), row: Run | null = null): RunEvent {
    return this.transaction(() => this.append(run, ev, ts, row));
  }

  /** A run's name without reading its record, or null when there is no such run. */
  nameOf(uuid: string): string | null {
    return this.runs.nameOf(uuid);
  }

  getRun(uuid: string): Run | null {
    return this.runs.get(uuid);
  }

  /** The uuids of the runs a run made, in queue order. */
  childrenOf(uuid: string): string[] {
    return this.runs.childrenOf(uuid);
  }

  /**
   * The environment a run was queued with and its id, or null (runs queued
   * without one start with the supervisor's). Parsed once per environment.
   */
  launchEnv(uuid: string): { id: string; env: Readonly<Record<string, string>> } | null {
    return this.envs.of(uuid);
  }

  /** Runs whose worktree may still exist, active or ended. */
  runsWithWorktree(): Run[] {
    return this.runs.withWorktree();
  }

  runsByName(name: string): Run[] {
    return this.runs.byName(name);
  }

  /** Up to 3 runs whose uuid starts with prefix: enough to tell unique from ambiguous. */
  runsByPrefix(prefix: string): Run[] {
    return this.runs.byPrefix(prefix);
  }

  /** Every run that is not ended, in queue order: what the supervisor rebuilds its state from. */
  activeRuns(): Run[] {
    return this.runs.active();
  }

  listRuns(q: ListQuery): Run[] {
    return this.runs.list(q);
  }

  countRuns(): number {
    return this.runs.count();
  }

  /** The newest runs of a workload (a loop's: `loop:NAME`), newest first. */
  runsByWorkload(provider: string, workload: string, limit: number): Run[] {
    return this.runs.byWorkload(provider, workload, limit);
  }

  eventsSince(seq: number, limit = 10_000): RunEvent[] {
    return this.events.since(seq, limit);
  }

  lastSeq(): number {
    return this.events.last();
  }

  /** The oldest event kept (0 when none): a client resuming from before it has missed what was pruned. */
  firstSeq(): number {
    return this.events.first();
  }

  /** The newest events about a loop (its scheduler's decisions), oldest first. */
  loopEvents(name: string, limit: number): RunEvent[] {
    return this.events.ofLoop(name, limit);
  }

  getMeta<T>(key: string): T | null {
    return this.meta.get<T>(key);
  }

  setMeta(key: string, value: unknown): void {
    this.transaction(() => this.meta.set(key, value));
  }

  /** Add a fleet usage increment to its minute (joins the caller's transaction). */
  addUsage(ts: number, tokens: number, cost: number): void {
    this.transaction(() => this.usage.add(ts, tokens, cost));
  }

  /**
   * Spend by provider and by workload of the runs live in a window (not
   * ended, or ended since `sinceTs`), their whole usage each; and the fleet's
   * usage minute by minute over the last `minutes` up to `nowTs`.
   */
  spend(
    sinceTs: number,
    nowTs: number,
    minutes: number,
  ): { providers: SpendRow[]; workloads: SpendRow[]; perMinute: { minute: number; tokens: number; cost: number }[] } {
    return this.usage.spend(sinceTs, nowTs, minutes);
  }

  /** Fleet usage from `sinceTs` on (minute resolution); 0 for all time. */
  usageSince(sinceTs: number): { tokens: number; cost: number } {
    return this.usage.since(sinceTs);
  }

  /** Every loop, with the environment its runs start with. */
  loops(): { record: Loop; env: Record<string, string> | null }[] {
    return this.loopRows.all();
  }

  /** Insert or update a loop (joins the caller's transaction); `env` only on insert. */
  saveLoop(loop: Loop, env?: Record<string, string> | null): void {
    this.transaction(() => (env !== undefined ? this.loopRows.insert(loop, env) : this.loopRows.update(loop)));
  }

  deleteLoop(name: string): void {
    this.transaction(() => this.loopRows.delete(name));
  }

  walCheckpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
