// The journal: the only durable state, and with retention.ts (its batches,
// as journal.retention, in this journal's transactions) the only code that
// touches SQLite. A run's row and the event that explains its change are
// written in one IMMEDIATE transaction, so a crash can never leave one
// without the other.

import type { SpendRow } from '../protocol/results.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { EventInput, RunEvent } from '../core/events.js';
import { worktreeLive, type Run } from '../core/types.js';
import type { Loop } from '../core/loop-policy.js';
import { roundCost } from '../core/budget.js';
import { JournalRetention } from './retention.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

/** One provider's or workload's spend in a window. */
export class JournalVersionError extends Error {
  override readonly name = 'JournalVersionError';
}

/** The store cannot be written right now (disk full, read-only, I/O error); nothing was committed. */
export class JournalUnavailable extends Error {
  override readonly name = 'JournalUnavailable';
}

const UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY)/;

/** Hears every committed event, with the run row written beside it (null for events about no row change). */
export type EventListener = (event: RunEvent, run: Run | null) => void;

export interface ListQuery {
  all?: boolean;
  status?: string;
  provider?: string;
  limit?: number;
  /** Only runs queued before this queue_seq (the next page back). */
  before?: number;
}

interface RunRow {
  record: string;
}
interface EventRow {
  seq: number;
  ts: number;
  run: string | null;
  type: string;
  data: string;
}

/** An event read back: this journal wrote it, so its data has its type's shape. */
const rowEvent = (r: EventRow): RunEvent => ({ seq: r.seq, ts: r.ts, run: r.run, type: r.type, data: JSON.parse(r.data) }) as RunEvent;

/**
 * The journal tells who ran what, where and when: owner-only (0600) whatever
 * the umask. SQLite makes the -wal and -shm files with the database file's
 * mode, so a new database file is made here first; looser files from before
 * are tightened.
 */
function ownerOnly(file: string): void {
  if (file === '' || file === ':memory:' || file.startsWith('file:')) return;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch (e) {
    // There already, or a place SQLite will refuse with its own, better message (read-only, missing directory).
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return;
    fd = -1;
  }
  if (fd >= 0) {
    fs.fchmodSync(fd, 0o600); // a umask can take bits away from the mode asked for, even the owner's
    fs.closeSync(fd);
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((fs.statSync(f).mode & 0o077) !== 0) fs.chmodSync(f, 0o600);
    } catch {
      /* missing (SQLite makes it with the database's mode), or on a read-only file system */
    }
  }
}

export class Journal {
  readonly db: Database.Database;
  /** Why the store could not be written when it was opened (a full disk), or null: the supervisor then starts degraded. */
  readonly unwritableAtOpen: string | null = null;
  private queueSeq = 0;
  private readonly stmts;
  /** What retention reads and removes (retention.ts): in the same database, in this journal's transactions. */
  readonly retention: JournalRetention;
  /** Callbacks for every committed event, in seq order; the server broadcasts from here. */
  private listeners: EventListener[] = [];
  /** Events of the open transaction, each with the run row it wrote (if any). */
  private pending: { event: RunEvent; run: Run | null }[] = [];
  private depth = 0;
  /** Environment objects already stored (by identity), and parsed ones by id: launches of one fan-out read one. */
  private readonly envIds = new WeakMap<object, string>();
  private readonly parsedEnvs = new Map<string, Record<string, string>>();

  /** The clock events are stamped with: the owner's, so that event and run times agree (the supervisor's is monotonic wall time). */
  private readonly now: () => number;

  constructor(file: string, opts: { synchronous?: 'normal' | 'full'; readonly?: boolean; now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
    if (!opts.readonly) ownerOnly(file);
    this.db = new Database(file, { readonly: opts.readonly ?? false, timeout: 5000 });
    if (!opts.readonly) {
      try {
        this.db.pragma('journal_mode = WAL');
        this.setUp(opts.synchronous);
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (typeof code !== 'string' || !UNAVAILABLE.test(code)) throw e;
        // A full disk: the WAL's shared-memory index cannot grow, so not even a read works. With the
        // exclusive locking mode SQLite keeps that index in memory (only this process opens the journal):
        // reads work, writes fail until there is room, and the supervisor starts degraded.
        this.db.close();
        this.db = new Database(file, { timeout: 5000 });
        this.db.pragma('locking_mode = EXCLUSIVE');
        this.db.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
        // A store never made (no schema) cannot be served: the original error says why.
        if (this.userVersion() === 0) throw e;
        this.checkVersion();
        this.unwritableAtOpen = `${code}: ${(e as Error).message}`;
      }
    } else {
      this.checkVersion();
    }
    this.stmts = {
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      insertRun: this.db.prepare(
        `INSERT INTO runs (uuid, name, status, queue_seq, provider, workload, created_at, record, parent, worktree)
         VALUES (@uuid, @name, @status, @queue_seq, @provider, @workload, @created_at, @record, @parent, @worktree)`,
      ),
      updateRun: this.db.prepare(`UPDATE runs SET status = @status, record = @record, ended_at = @ended_at, worktree = @worktree WHERE uuid = @uuid`),
      // A run whose worktree may still exist is kept: its row is what tells gc and prune whose it is.
      withWorktree: this.db.prepare(`SELECT record FROM runs WHERE worktree IS NOT NULL ORDER BY queue_seq`),
      firstSeq: this.db.prepare(`SELECT MIN(seq) AS seq FROM events`),
      insertEnv: this.db.prepare(`INSERT INTO envs (id, env) VALUES (?, ?) ON CONFLICT(id) DO NOTHING`),
      setRunEnv: this.db.prepare(`UPDATE runs SET env_id = ? WHERE uuid = ?`),
      runEnvId: this.db.prepare(`SELECT env_id FROM runs WHERE uuid = ?`),
      getEnv: this.db.prepare(`SELECT env FROM envs WHERE id = ?`),
      insertEvent: this.db.prepare(`INSERT INTO events (ts, run, type, data) VALUES (?, ?, ?, ?)`),
      getRun: this.db.prepare(`SELECT record FROM runs WHERE uuid = ?`),
      nameOf: this.db.prepare(`SELECT name FROM runs WHERE uuid = ?`),
      children: this.db.prepare(`SELECT uuid FROM runs WHERE parent = ? ORDER BY queue_seq`),
      byName: this.db.prepare(`SELECT record FROM runs WHERE name = ? ORDER BY queue_seq DESC LIMIT 50`),
      byPrefix: this.db.prepare(`SELECT record FROM runs WHERE uuid >= ? AND uuid < ? ORDER BY uuid LIMIT 3`),
      active: this.db.prepare(`SELECT record FROM runs WHERE status != 'ended' ORDER BY queue_seq`),
      eventsSince: this.db.prepare(`SELECT seq, ts, run, type, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?`),
      lastSeq: this.db.prepare(`SELECT COALESCE(MAX(seq), 0) AS seq FROM events`),
      maxQueueSeq: this.db.prepare(`SELECT COALESCE(MAX(queue_seq), 0) AS q FROM runs`),
      getMeta: this.db.prepare(`SELECT value FROM meta WHERE key = ?`),
      setMeta: this.db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
      delMeta: this.db.prepare(`DELETE FROM meta WHERE key = ?`),
      addUsage: this.db.prepare(
        `INSERT INTO usage_minutes (minute, tokens, cost) VALUES (?, ?, ?)
         ON CONFLICT(minute) DO UPDATE SET tokens = tokens + excluded.tokens, cost = cost + excluded.cost`,
      ),
      usageSince: this.db.prepare(`SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost), 0) AS cost FROM usage_minutes WHERE minute >= ?`),
    };
    this.queueSeq = (this.stmts.maxQueueSeq.get() as { q: number }).q;
    this.retention = new JournalRetention(this.db, (fn) => this.transaction(fn));
  }

  private setUp(synchronous: 'normal' | 'full' | undefined): void {
    // NORMAL in WAL mode loses nothing when the process crashes (only on power
    // loss); FULL is offered for those who need that too.
    this.db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // Truncate the WAL back to this size after each checkpoint: bounded on disk.
    this.db.pragma('journal_size_limit = 16777216');
    // A new store hands pages that retention frees back to the file system
    // (auto_vacuum can only be chosen before the first table exists).
    if (this.userVersion() === 0) this.db.pragma('auto_vacuum = INCREMENTAL');
    this.migrate();
  }

  private userVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  private checkVersion(): number {
    const v = this.userVersion();
    if (v > SCHEMA_VERSION) {
      throw new JournalVersionError(
        `the journal ${this.db.name} has schema version ${v}, but this orcr understands up to ${SCHEMA_VERSION}: it was written by a newer orcr; upgrade orcr (the journal was not touched)`,
      );
    }
    return v;
  }

  private migrate(): void {
    const from = this.checkVersion();
    for (let v = from; v < SCHEMA_VERSION; v++) {
      this.db
        .transaction(() => {
          this.db.exec(MIGRATIONS[v]!);
          this.db.pragma(`user_version = ${v + 1}`);
        })
        .immediate();
    }
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
      const code = (e as { code?: unknown }).code;
      if (typeof code === 'string' && UNAVAILABLE.test(code)) {
        throw new JournalUnavailable(`${code}: ${(e as Error).message}`);
      }
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
    // An untyped caller (a script, an older test) may leave data out: the column wants an object.
    const data = ev.data ?? {};
    const info = this.stmts.insertEvent.run(ts, run, ev.type, JSON.stringify(data));
    const event = { seq: Number(info.lastInsertRowid), ts, run, type: ev.type, data } as RunEvent;
    this.pending.push({ event, run: row });
    return event;
  }

  /**
   * Insert a queued run with its event; `launchEnv` is the environment it is
   * to start with (its maker's), kept beside the row and read back at launch.
   */
  insertRun(run: Run, ev: EventInput, ts = this.now(), launchEnv: Record<string, string> | null = null): RunEvent {
    return this.transaction(() => {
      this.stmts.insertRun.run({
        uuid: run.uuid,
        name: run.name,
        status: run.status,
        queue_seq: run.queue_seq,
        provider: run.provider,
        workload: run.workload,
        created_at: run.created_at,
        record: JSON.stringify(run),
        parent: run.parent ?? null,
        worktree: worktreeLive(run.worktree) ? run.worktree.path : null,
      });
      if (launchEnv !== null) this.stmts.setRunEnv.run(this.envId(launchEnv), run.uuid);
      if (run.queue_seq > this.queueSeq) this.queueSeq = run.queue_seq;
      return this.append(run.uuid, ev, ts, run);
    });
  }

  /** Persist a run's new state, with the event that explains it (or none for meter-only updates). */
  updateRun(run: Run, ev: EventInput | null, ts = this.now()): RunEvent | null {
    return this.transaction(() => {
      this.stmts.updateRun.run({
        uuid: run.uuid,
        status: run.status,
        record: JSON.stringify(run),
        ended_at: run.ended_at,
        worktree: worktreeLive(run.worktree) ? run.worktree.path : null,
      });
      return ev ? this.append(run.uuid, ev, ts, run) : null;
    });
  }

  /** An event alone; `row` is the run as it stands with it (what listeners get beside a run's event). */
  appendEvent(run: string | null, ev: EventInput, ts = this.now(), row: Run | null = null): RunEvent {
    return this.transaction(() => this.append(run, ev, ts, row));
  }

  /** A run's name without reading its record, or null when there is no such run. */
  nameOf(uuid: string): string | null {
    return (this.stmts.nameOf.get(uuid) as { name: string } | undefined)?.name ?? null;
  }

  getRun(uuid: string): Run | null {
    const row = this.stmts.getRun.get(uuid) as RunRow | undefined;
    return row ? (JSON.parse(row.record) as Run) : null;
  }

  /** The uuids of the runs a run made, in queue order. */
  childrenOf(uuid: string): string[] {
    return (this.stmts.children.all(uuid) as { uuid: string }[]).map((r) => r.uuid);
  }

  /**
   * The id of an environment, stored once. A fan-out's runs share one object
   * (hashed once); the same environment from another request hashes to the
   * same id.
   */
  private envId(env: Record<string, string>): string {
    const known = this.envIds.get(env);
    if (known !== undefined) return known;
    const text = JSON.stringify(env, Object.keys(env).sort());
    const id = crypto.createHash('sha256').update(text).digest('base64url');
    this.stmts.insertEnv.run(id, text);
    this.envIds.set(env, id);
    return id;
  }

  /**
   * The environment a run was queued with and its id, or null (runs queued
   * without one start with the supervisor's). Parsed once per environment.
   */
  launchEnv(uuid: string): { id: string; env: Readonly<Record<string, string>> } | null {
    const id = (this.stmts.runEnvId.get(uuid) as { env_id: string | null } | undefined)?.env_id ?? null;
    if (id === null) return null;
    let env = this.parsedEnvs.get(id);
    if (env === undefined) {
      const row = this.stmts.getEnv.get(id) as { env: string } | undefined;
      if (!row) return null;
      env = JSON.parse(row.env) as Record<string, string>;
      if (this.parsedEnvs.size >= 64) this.parsedEnvs.clear();
      this.parsedEnvs.set(id, env);
    }
    return { id, env };
  }

  /** Runs whose worktree may still exist, active or ended. */
  runsWithWorktree(): Run[] {
    return (this.stmts.withWorktree.all() as RunRow[]).map((r) => JSON.parse(r.record) as Run);
  }

  runsByName(name: string): Run[] {
    return (this.stmts.byName.all(name) as RunRow[]).map((r) => JSON.parse(r.record) as Run);
  }

  /** Up to 3 runs whose uuid starts with prefix: enough to tell unique from ambiguous. */
  runsByPrefix(prefix: string): Run[] {
    const p = prefix.toLowerCase();
    const hi = p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1);
    return (this.stmts.byPrefix.all(p, hi) as RunRow[]).map((r) => JSON.parse(r.record) as Run);
  }

  /** Every run that is not ended, in queue order: what the supervisor rebuilds its state from. */
  activeRuns(): Run[] {
    return (this.stmts.active.all() as RunRow[]).map((r) => JSON.parse(r.record) as Run);
  }

  listRuns(q: ListQuery): Run[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (!q.all && !q.status) where.push(`status != 'ended'`);
    if (q.status) {
      where.push('status = ?');
      args.push(q.status);
    }
    if (q.provider) {
      where.push('provider = ?');
      args.push(q.provider);
    }
    if (q.before !== undefined) {
      where.push('queue_seq < ?');
      args.push(q.before);
    }
    const sql = `SELECT record FROM (SELECT record, queue_seq FROM runs ${
      where.length ? 'WHERE ' + where.join(' AND ') : ''
    } ORDER BY queue_seq DESC LIMIT ?) ORDER BY queue_seq`;
    args.push(q.limit ?? 10_000);
    return (this.db.prepare(sql).all(...args) as RunRow[]).map((r) => JSON.parse(r.record) as Run);
  }

  countRuns(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM runs').get() as { n: number }).n;
  }

  eventsSince(seq: number, limit = 10_000): RunEvent[] {
    return (this.stmts.eventsSince.all(seq, limit) as EventRow[]).map(rowEvent);
  }

  lastSeq(): number {
    return (this.stmts.lastSeq.get() as { seq: number }).seq;
  }

  getMeta<T>(key: string): T | null {
    const row = this.stmts.getMeta.get(key) as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as T) : null;
  }

  setMeta(key: string, value: unknown): void {
    this.transaction(() => {
      if (value === null || value === undefined) this.stmts.delMeta.run(key);
      else this.stmts.setMeta.run(key, JSON.stringify(value));
    });
  }

  /** Add a fleet usage increment to its minute (joins the caller's transaction). */
  addUsage(ts: number, tokens: number, cost: number): void {
    this.transaction(() => this.stmts.addUsage.run(Math.floor(ts / 60_000), tokens, cost));
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
    const by = (col: 'provider' | 'workload'): SpendRow[] =>
      (
        this.db
          .prepare(
            `SELECT ${col} AS key, COUNT(*) AS runs,
               COALESCE(SUM(json_extract(record, '$.tokens.input') + json_extract(record, '$.tokens.output')), 0) AS tokens,
               COALESCE(SUM(json_extract(record, '$.cost_usd')), 0) AS cost
             FROM runs WHERE status != 'ended' OR ended_at >= ? GROUP BY ${col} ORDER BY cost DESC, tokens DESC, key`,
          )
          .all(sinceTs) as SpendRow[]
      ).map((r) => ({ ...r, cost: roundCost(r.cost) }));
    const last = Math.floor(nowTs / 60_000);
    const rows = this.db.prepare(`SELECT minute, tokens, cost FROM usage_minutes WHERE minute > ? ORDER BY minute`).all(last - minutes) as {
      minute: number;
      tokens: number;
      cost: number;
    }[];
    return { providers: by('provider'), workloads: by('workload'), perMinute: rows.map((r) => ({ ...r, cost: roundCost(r.cost) })) };
  }

  /** Fleet usage from `sinceTs` on (minute resolution); 0 for all time. */
  usageSince(sinceTs: number): { tokens: number; cost: number } {
    const sum = this.stmts.usageSince.get(Math.floor(sinceTs / 60_000)) as { tokens: number; cost: number };
    // A sum of REALs carries float noise (6.199999…); costs are kept to a millionth of a dollar.
    return { tokens: sum.tokens, cost: roundCost(sum.cost) };
  }

  // ---------- loops ----------

  /** Every loop, with the environment its runs start with. */
  loops(): { record: Loop; env: Record<string, string> | null }[] {
    return (this.db.prepare('SELECT record, env FROM loops ORDER BY name').all() as { record: string; env: string | null }[]).map((r) => ({
      record: JSON.parse(r.record) as Loop,
      env: r.env === null ? null : (JSON.parse(r.env) as Record<string, string>),
    }));
  }

  /** Insert or update a loop (joins the caller's transaction); `env` only on insert. */
  saveLoop(loop: Loop, env?: Record<string, string> | null): void {
    this.transaction(() => {
      if (env !== undefined)
        this.db
          .prepare('INSERT INTO loops (name, record, env) VALUES (?, ?, ?)')
          .run(loop.name, JSON.stringify(loop), env === null ? null : JSON.stringify(env));
      else this.db.prepare('UPDATE loops SET record = ? WHERE name = ?').run(JSON.stringify(loop), loop.name);
    });
  }

  deleteLoop(name: string): void {
    this.transaction(() => this.db.prepare('DELETE FROM loops WHERE name = ?').run(name));
  }

  /** The newest runs of a workload (a loop's: `loop:NAME`), newest first. */
  runsByWorkload(provider: string, workload: string, limit: number): Run[] {
    return (
      this.db.prepare('SELECT record FROM runs WHERE provider = ? AND workload = ? ORDER BY queue_seq DESC LIMIT ?').all(provider, workload, limit) as RunRow[]
    ).map((r) => JSON.parse(r.record) as Run);
  }

  /** The newest events about a loop (its scheduler's decisions), oldest first. */
  loopEvents(name: string, limit: number): RunEvent[] {
    const rows = this.db
      .prepare(`SELECT seq, ts, run, type, data FROM events WHERE substr(type, 1, 5) = 'loop_' AND json_extract(data, '$.loop') = ? ORDER BY seq DESC LIMIT ?`)
      .all(name, limit) as EventRow[];
    return rows.reverse().map(rowEvent);
  }

  /** The oldest event kept (0 when none): a client resuming from before it has missed what was pruned. */
  firstSeq(): number {
    return (this.stmts.firstSeq.get() as { seq: number | null }).seq ?? 0;
  }

  walCheckpoint(): void {
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
