// Retention's side of the journal: what a collection would remove, and the
// batches that remove it (ended runs with their events, the event log's old
// part, old usage minutes folded into one), each batch one transaction of
// the journal's; then the pages freed handed back to the file system.

import fs from 'node:fs';
import type Database from 'better-sqlite3';

interface Bytes {
  bytes: number;
}
interface Counted extends Bytes {
  n: number;
}
interface RunBytes extends Bytes {
  uuid: string;
}
/** What an aggregate over no rows sums to (an aggregate always gives its one row: this is for the type). */
const NONE: Counted = { n: 0, bytes: 0 };

/** The journal's transaction(): nested calls join the outer one. */
export type Transact = <T>(fn: () => T) => T;

export class JournalRetention {
  private readonly stmts;

  constructor(
    private readonly db: Database.Database,
    private readonly transact: Transact,
  ) {
    this.stmts = {
      oldEnded: this.db.prepare<[number, number], RunBytes>(
        `SELECT uuid, length(CAST(record AS BLOB)) AS bytes FROM runs WHERE status = 'ended' AND ended_at < ? AND worktree IS NULL ORDER BY ended_at LIMIT ?`,
      ),
      oldEndedAll: this.db.prepare<[number], RunBytes>(
        `SELECT uuid, length(CAST(record AS BLOB)) AS bytes FROM runs WHERE status = 'ended' AND ended_at < ? AND worktree IS NULL`,
      ),
      runEventBytes: this.db.prepare<[string], Bytes>(`SELECT COALESCE(SUM(length(CAST(data AS BLOB))), 0) AS bytes FROM events WHERE run = ?`),
      gcOwnEvents: this.db.prepare<[number], Counted>(
        `SELECT COUNT(*) AS n, COALESCE(SUM(length(CAST(data AS BLOB))), 0) AS bytes FROM events WHERE run IN (SELECT uuid FROM runs WHERE status = 'ended' AND ended_at < ? AND worktree IS NULL)`,
      ),
      // The log's part pruneEvents takes once the runs are gone: up to the last event before the time that is not theirs.
      gcLogEvents: this.db.prepare<{ before: number }, Counted>(
        `WITH gone AS (SELECT uuid FROM runs WHERE status = 'ended' AND ended_at < @before AND worktree IS NULL),
              kept AS (SELECT seq, ts, data FROM events WHERE run IS NULL OR run NOT IN (SELECT uuid FROM gone))
         SELECT COUNT(*) AS n, COALESCE(SUM(length(CAST(data AS BLOB))), 0) AS bytes FROM kept WHERE seq <= (SELECT MAX(seq) FROM kept WHERE ts < @before)`,
      ),
      eventBytesUpTo: this.db.prepare<[number, number], Bytes>(
        `SELECT COALESCE(SUM(length(CAST(data AS BLOB))), 0) AS bytes FROM (SELECT data FROM events WHERE seq <= ? ORDER BY seq LIMIT ?)`,
      ),
      deleteRun: this.db.prepare<[string]>(`DELETE FROM runs WHERE uuid = ?`),
      deleteRunEvents: this.db.prepare<[string]>(`DELETE FROM events WHERE run = ?`),
      deleteRunApprovals: this.db.prepare<[string]>(`DELETE FROM approvals WHERE run = ?`),
      oldestEvent: this.db.prepare<[], { ts: number }>(`SELECT ts FROM events ORDER BY seq LIMIT 1`),
      lastEventBefore: this.db.prepare<[number], { seq: number | null }>(`SELECT MAX(seq) AS seq FROM events WHERE ts < ?`),
      deleteEventsUpTo: this.db.prepare<[number, number]>(`DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE seq <= ? ORDER BY seq LIMIT ?)`),
      deleteUnusedEnvs: this.db.prepare<[]>(`DELETE FROM envs WHERE id NOT IN (SELECT env_id FROM runs WHERE env_id IS NOT NULL)`),
      oldUsage: this.db.prepare<[number], { n: number; tokens: number; cost: number }>(
        `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost), 0) AS cost, COUNT(*) AS n FROM usage_minutes WHERE minute < ?`,
      ),
      deleteOldUsage: this.db.prepare<[number]>(`DELETE FROM usage_minutes WHERE minute < ?`),
      addUsage: this.db.prepare<[number, number, number]>(
        `INSERT INTO usage_minutes (minute, tokens, cost) VALUES (?, ?, ?)
         ON CONFLICT(minute) DO UPDATE SET tokens = tokens + excluded.tokens, cost = cost + excluded.cost`,
      ),
    };
  }

  /**
   * What collectEnded and then pruneEvents would remove for `before`, counted
   * the way they count: the runs (their uuids, for their directories), every
   * event that goes (the runs' own and the old part of the log), and the
   * bytes of those rows (the records and the events' data).
   */
  gcPlan(before: number): { uuids: string[]; events: number; bytes: number } {
    const uuids = this.stmts.oldEndedAll.all(before);
    const own = this.stmts.gcOwnEvents.get(before) ?? NONE;
    const log = this.stmts.gcLogEvents.get({ before }) ?? NONE;
    return { uuids: uuids.map((r) => r.uuid), events: own.n + log.n, bytes: uuids.reduce((a, r) => a + r.bytes, 0) + own.bytes + log.bytes };
  }

  /**
   * One batch of retention, one transaction: up to `limit` runs that ended
   * before `before` go, with their own events and requests. Returns their uuids (their
   * directories are the caller's), how many events went with them, and the
   * bytes of the rows removed. Never touches a run that is not ended.
   */
  collectEnded(before: number, limit: number): { uuids: string[]; events: number; bytes: number } {
    return this.transact(() => {
      const rows = this.stmts.oldEnded.all(before, limit);
      let events = 0;
      let bytes = 0;
      for (const { uuid, bytes: b } of rows) {
        const own = this.stmts.runEventBytes.get(uuid) ?? NONE;
        events += this.stmts.deleteRunEvents.run(uuid).changes;
        this.stmts.deleteRunApprovals.run(uuid);
        this.stmts.deleteRun.run(uuid);
        bytes += b + own.bytes;
      }
      if (rows.length > 0) this.stmts.deleteUnusedEnvs.run();
      return { uuids: rows.map((r) => r.uuid), events, bytes };
    });
  }

  /**
   * Where the event log's old part ends: the last event from before `before`
   * (what pruneEvents takes, with every event below it, so what remains has
   * no gap), or null when there is none. Nothing indexes the events by time,
   * so finding it reads the whole log (~0.6 s of the event loop for 400,000
   * events): done only when the oldest event is from before `before`. Events
   * are stamped in the order they are written by a clock that only goes
   * forward while a supervisor runs, so when the oldest is newer none is
   * older; one set back across a restart by more than the retention only
   * leaves the log's old part for a later pass.
   */
  lastEventBefore(before: number): number | null {
    const oldest = this.stmts.oldestEvent.get();
    if (oldest === undefined || oldest.ts >= before) return null;
    return this.stmts.lastEventBefore.get(before)?.seq ?? null;
  }

  /**
   * One batch of the event log's oldest part: up to `limit` of the events up
   * to `last` (lastEventBefore), oldest first. Returns how many went, and
   * the bytes of their data.
   */
  pruneEvents(last: number, limit: number): { events: number; bytes: number } {
    return this.transact(() => {
      const { bytes } = this.stmts.eventBytesUpTo.get(last, limit) ?? NONE;
      return { events: this.stmts.deleteEventsUpTo.run(last, limit).changes, bytes };
    });
  }

  /** Per-minute fleet usage from before `before` folded into one row: sums over all time stay right, the table stays small. */
  compactUsage(before: number): void {
    const minute = Math.floor(before / 60_000);
    this.transact(() => {
      const old = this.stmts.oldUsage.get(minute);
      if (old === undefined || old.n <= 1) return;
      this.stmts.deleteOldUsage.run(minute);
      this.stmts.addUsage.run(minute - 1, old.tokens, old.cost);
    });
  }

  /** Give freed pages back to the file system, a few at a time (no-op unless the store uses incremental auto_vacuum). */
  vacuumSome(pages = 2000): void {
    this.db.pragma(`incremental_vacuum(${pages})`);
  }

  /** The store's size on disk (database file and its WAL), in bytes. */
  fileBytes(): number {
    let n = 0;
    for (const f of [this.db.name, `${this.db.name}-wal`]) {
      try {
        n += fs.statSync(f).size;
      } catch {
        /* no WAL */
      }
    }
    return n;
  }
}
