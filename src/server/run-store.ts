// The single writer of the journal, and the memory of the active runs. Every
// change goes through a unit of work: rows (runs, loops, meta, usage minutes,
// launch environments) and events are written in one journal transaction,
// and memory (the active runs, their names, and what callers register with
// afterCommit) changes only once that commit has succeeded — "journal first,
// memory second" by construction. What the unit of work decided should happen
// next comes as effects (core/effects), handed to the one interpreter once it
// commits. It opens and holds the journal: an event is appended one way, here;
// the other rooms read through its reader (journal/reader.ts). It never
// starts a process or decides a transition.

import type { Config } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { Effect } from '../core/effects.js';
import type { Loop } from '../core/loop-policy.js';
import type { Run } from '../core/types.js';
import type { ApprovalRecord } from '../core/approvals.js';
import type { EventInput } from '../core/events.js';
import { Journal } from '../journal/journal.js';
import { readerOf, type JournalReader } from '../journal/reader.js';
import { monoNow } from './clock.js';

export class RunStore {
  private readonly runs = new Map<string, Run>();
  /** Names of active runs (→ uuid): a new run may not take one. */
  private readonly byName = new Map<string, string>();
  /** The open unit of work: rows written in it (null: no longer active), and memory changes to make after its commit. */
  private staged: Map<string, Run | null> | null = null;
  private after: (() => void)[] = [];
  /** Memory changed provisionally in the open unit of work: how to take each change back if it fails. */
  private undo: (() => void)[] = [];
  /** Effects decided in the open unit of work. */
  private effects: Effect[] = [];
  /** Where committed effects go: the interpreter (server/effects.ts), set once by the composition root. */
  private sink: (effects: readonly Effect[]) => void = () => undefined;
  /** Told of a row saved without an event (text, tool, meters), once it is committed. */
  private quietListeners: ((uuid: string) => void)[] = [];

  /** What the journal holds, read (journal/reader.ts): how the rooms and the clients' reads see it. The journal itself stays here. */
  readonly reader: JournalReader;

  /** This home's journal, opened: the one place a supervisor's is, so every write goes through this store. */
  static open(home: Home, config: Config): RunStore {
    // One clock for run and event times: wall time at start, advanced monotonically.
    return new RunStore(new Journal(home.db, { synchronous: config.journal.synchronous, now: monoNow }));
  }

  constructor(private readonly journal: Journal) {
    this.reader = readerOf(journal);
  }

  /** Why the journal could not be written when it was opened (a full disk), or null: the supervisor then starts degraded. */
  get unwritableAtOpen(): string | null {
    return this.journal.unwritableAtOpen;
  }

  /**
   * Run fn as one unit of work (nested calls join it). If the journal
   * refuses anything in it, nothing of it reaches memory and the error goes on.
   */
  transaction<T>(fn: () => T): T {
    if (this.staged !== null) return fn();
    // Its memory would never follow a commit it does not own.
    if (this.journal.inTransaction) throw new Error('run store: a unit of work cannot start inside a journal transaction');
    this.staged = new Map();
    this.after = [];
    this.undo = [];
    this.effects = [];
    let committed: Effect[] = [];
    let out: T;
    try {
      out = this.journal.transaction(fn, () => {
        committed = this.effects;
        this.apply();
      });
    } catch (e) {
      for (const fn of this.undo.reverse()) fn();
      throw e;
    } finally {
      this.staged = null;
      this.after = [];
      this.undo = [];
      this.effects = [];
    }
    // Once the unit of work is over: what the interpreter does may open units of its own.
    if (committed.length > 0) this.sink(committed);
    return out;
  }

  /** The interpreter that carries out effects after each commit. */
  onEffects(sink: (effects: readonly Effect[]) => void): void {
    this.sink = sink;
  }

  /** Effects decided in the current unit of work, carried out once it commits (at once outside one). */
  emit(...effects: Effect[]): void {
    if (effects.length === 0) return;
    if (this.staged === null) this.sink(effects);
    else this.effects.push(...effects);
  }

  /** Make a memory change once the current unit of work commits (at once outside one). */
  afterCommit(fn: () => void): void {
    if (this.staged === null) fn();
    else this.after.push(fn);
  }

  /**
   * A memory change the rest of the unit of work must read, made at once (a
   * run's reducer memory: a second batch of its lines, or its exit, in the
   * same unit reads what the first decided — at start-up the whole
   * reconciliation is one unit); `undo` takes it back if the unit fails.
   */
  provisional(change: () => void, undo: () => void): void {
    change();
    if (this.staged !== null) this.undo.push(undo);
  }

  private apply(): void {
    for (const [uuid, run] of this.staged!) {
      const had = this.runs.get(uuid);
      if (had && this.byName.get(had.name) === uuid) this.byName.delete(had.name);
      if (run === null || run.status === 'ended') this.runs.delete(uuid);
      else {
        this.runs.set(uuid, run);
        this.byName.set(run.name, uuid);
      }
    }
    for (const fn of this.after) fn();
  }

  private stage(run: Run): void {
    if (this.staged !== null) this.staged.set(run.uuid, run);
    else if (run.status === 'ended') {
      if (this.byName.get(run.name) === run.uuid) this.byName.delete(run.name);
      this.runs.delete(run.uuid);
    } else {
      this.runs.set(run.uuid, run);
      this.byName.set(run.name, run.uuid);
    }
  }

  // ---------- writes ----------

  /** A new queued run, its event, and the environment it will start with. */
  insert(run: Run, ev: EventInput, ts: number, launchEnv: Record<string, string> | null): void {
    this.transaction(() => {
      this.journal.insertRun(run, ev, ts, launchEnv);
      this.stage(run);
    });
  }

  /**
   * A run's new state with the event(s) that explain it (or none: meters
   * only); each event is heard with this row. An ended run leaves the active set.
   */
  save(run: Run, ev: EventInput | readonly EventInput[] | null): void {
    this.transaction(() => {
      if (Array.isArray(ev)) {
        this.journal.updateRun(run, null);
        for (const e of ev as readonly EventInput[]) this.journal.appendEvent(run.uuid, e, undefined, run);
      } else this.journal.updateRun(run, ev as EventInput | null);
      this.stage(run);
      if (ev === null) this.quiet(run.uuid);
    });
  }

  /** No event will carry this row to the clients: say it changed (after the commit), so a live view can fetch it. */
  private quiet(uuid: string): void {
    if (this.quietListeners.length > 0) this.afterCommit(() => this.quietListeners.forEach((l) => l(uuid)));
  }

  onQuietSave(fn: (uuid: string) => void): void {
    this.quietListeners.push(fn);
  }

  /**
   * Memory only: a change not worth a write of its own (the output offset,
   * the agent's last words and tool), journaled with the next save. `shown`:
   * it changes what a live view shows, which is told of it.
   */
  remember(run: Run, shown = false): void {
    this.stage(run);
    if (shown) this.quiet(run.uuid);
  }

  /** An event that changes no row: about a run (written beside its row as it stands), or about none (null). */
  event(uuid: string | null, ev: EventInput): void {
    this.transaction(() => {
      this.journal.appendEvent(uuid, ev, undefined, uuid === null ? null : (this.get(uuid) ?? null));
    });
  }

  /** A value of the journal's meta table (holds, the queue's pause, this home's id); null removes it. */
  setMeta(key: string, value: unknown): void {
    this.transaction(() => this.journal.setMeta(key, value));
  }

  /** Fleet usage added to its minute. */
  addUsage(at: number, tokens: number, cost: number): void {
    this.transaction(() => this.journal.addUsage(at, tokens, cost));
  }

  /** A new request's row, in the caller's unit of work (its events go with the run's): its id. */
  insertApproval(a: Omit<ApprovalRecord, 'id'>): number {
    return this.transaction(() => this.journal.insertApproval(a));
  }

  /** A request's new state, in the caller's unit of work (alone: a quiet save, as when its answer is delivered). */
  saveApproval(a: ApprovalRecord): void {
    this.transaction(() => this.journal.updateApproval(a));
  }

  /** A loop's row (`env` only when it is made). */
  saveLoop(loop: Loop, env?: Record<string, string> | null): void {
    this.transaction(() => this.journal.saveLoop(loop, env));
  }

  deleteLoop(name: string): void {
    this.transaction(() => this.journal.deleteLoop(name));
  }

  // ---------- retention's batches (journal/retention.ts): ended runs only, which memory does not hold ----------

  /** Up to `limit` runs ended before `before` removed, with their events. */
  collectEnded(before: number, limit: number): { uuids: string[]; events: number; bytes: number } {
    return this.transaction(() => this.journal.retention.collectEnded(before, limit));
  }

  /** The event log's oldest part, a batch: up to `limit` of the events up to `last` (reader.lastEventBefore). */
  pruneEvents(last: number, limit: number): { events: number; bytes: number } {
    return this.transaction(() => this.journal.retention.pruneEvents(last, limit));
  }

  /** Usage minutes from before `before` folded into one row. */
  compactUsage(before: number): void {
    this.transaction(() => this.journal.retention.compactUsage(before));
  }

  /** Freed pages back to the file system: not in a unit of work (SQLite vacuums outside a transaction). */
  vacuumSome(pages: number): void {
    this.journal.retention.vacuumSome(pages);
  }

  /** The WAL folded into the database file and truncated (outside a unit of work). */
  checkpoint(): void {
    this.journal.walCheckpoint();
  }

  /** The supervisor stops: the journal is closed. */
  close(): void {
    this.journal.close();
  }

  // ---------- reads ----------

  /** An active run as this unit of work sees it. */
  get(uuid: string): Run | undefined {
    if (this.staged !== null && this.staged.has(uuid)) {
      const r = this.staged.get(uuid)!;
      return r === null || r.status === 'ended' ? undefined : r;
    }
    return this.runs.get(uuid);
  }

  /** Any run: active from memory, else from the journal. */
  lookup(uuid: string): Run | null {
    if (this.staged !== null && this.staged.has(uuid)) return this.staged.get(uuid) ?? this.journal.getRun(uuid);
    return this.runs.get(uuid) ?? this.journal.getRun(uuid);
  }

  /** The active run holding this name (committed state). */
  holderOfName(name: string): string | undefined {
    return this.byName.get(name);
  }

  active(): IterableIterator<Run> {
    return this.runs.values();
  }

  activeUuids(): string[] {
    return [...this.runs.keys()];
  }

  get size(): number {
    return this.runs.size;
  }

  // ---------- whole-memory changes ----------

  /** At start: memory is the journal's active runs. */
  load(runs: readonly Run[]): void {
    this.clear();
    for (const run of runs) this.stage(run);
  }

  clear(): void {
    this.runs.clear();
    this.byName.clear();
  }
}
