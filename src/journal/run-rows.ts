// The runs table: a run's record (its JSON, rewritten at every change) beside
// the columns it is found by (name, status, queue order, provider and
// workload, its maker, its worktree, when it ended). Rows only: the journal
// wraps the writes in its transactions, with the events that explain them.

import type Database from 'better-sqlite3';
import { worktreeLive, type Run } from '../core/types.js';
import { runFromRecord } from './run-decoder.js';

export interface ListQuery {
  all?: boolean;
  status?: string;
  provider?: string;
  limit?: number;
  /** Only runs queued before this queue_seq (the next page back). */
  before?: number;
}

interface RecordRow {
  uuid: string;
  record: string;
}

const runOf = (r: RecordRow): Run => runFromRecord(r.record, r.uuid);

/** The directory of a run's worktree while it may exist: gc and prune find them by it. */
const worktreeColumn = (run: Run): string | null => (worktreeLive(run.worktree) ? run.worktree.path : null);

export class RunRows {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      insert: db.prepare<{
        uuid: string;
        name: string;
        status: string;
        queue_seq: number;
        provider: string;
        workload: string;
        created_at: number;
        record: string;
        parent: string | null;
        worktree: string | null;
      }>(
        `INSERT INTO runs (uuid, name, status, queue_seq, provider, workload, created_at, record, parent, worktree)
         VALUES (@uuid, @name, @status, @queue_seq, @provider, @workload, @created_at, @record, @parent, @worktree)`,
      ),
      update: db.prepare<{ uuid: string; status: string; record: string; ended_at: number | null; worktree: string | null }>(
        `UPDATE runs SET status = @status, record = @record, ended_at = @ended_at, worktree = @worktree WHERE uuid = @uuid`,
      ),
      // A run whose worktree may still exist is kept: its row is what tells gc and prune whose it is.
      withWorktree: db.prepare<[], RecordRow>(`SELECT uuid, record FROM runs WHERE worktree IS NOT NULL ORDER BY queue_seq`),
      get: db.prepare<[string], RecordRow>(`SELECT uuid, record FROM runs WHERE uuid = ?`),
      nameOf: db.prepare<[string], { name: string }>(`SELECT name FROM runs WHERE uuid = ?`),
      children: db.prepare<[string], { uuid: string }>(`SELECT uuid FROM runs WHERE parent = ? ORDER BY queue_seq`),
      byName: db.prepare<[string], RecordRow>(`SELECT uuid, record FROM runs WHERE name = ? ORDER BY queue_seq DESC LIMIT 50`),
      byPrefix: db.prepare<[string, string], RecordRow>(`SELECT uuid, record FROM runs WHERE uuid >= ? AND uuid < ? ORDER BY uuid LIMIT 3`),
      byWorkload: db.prepare<[string, string, number], RecordRow>(
        `SELECT uuid, record FROM runs WHERE provider = ? AND workload = ? ORDER BY queue_seq DESC LIMIT ?`,
      ),
      active: db.prepare<[], RecordRow>(`SELECT uuid, record FROM runs WHERE status != 'ended' ORDER BY queue_seq`),
      maxQueueSeq: db.prepare<[], { q: number }>(`SELECT COALESCE(MAX(queue_seq), 0) AS q FROM runs`),
      count: db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM runs`),
    };
  }

  insert(run: Run): void {
    this.stmts.insert.run({
      uuid: run.uuid,
      name: run.name,
      status: run.status,
      queue_seq: run.queue_seq,
      provider: run.provider,
      workload: run.workload,
      created_at: run.created_at,
      record: JSON.stringify(run),
      parent: run.parent,
      worktree: worktreeColumn(run),
    });
  }

  update(run: Run): void {
    this.stmts.update.run({ uuid: run.uuid, status: run.status, record: JSON.stringify(run), ended_at: run.ended_at, worktree: worktreeColumn(run) });
  }

  get(uuid: string): Run | null {
    const row = this.stmts.get.get(uuid);
    return row ? runOf(row) : null;
  }

  nameOf(uuid: string): string | null {
    return this.stmts.nameOf.get(uuid)?.name ?? null;
  }

  childrenOf(uuid: string): string[] {
    return this.stmts.children.all(uuid).map((r) => r.uuid);
  }

  withWorktree(): Run[] {
    return this.stmts.withWorktree.all().map(runOf);
  }

  byName(name: string): Run[] {
    return this.stmts.byName.all(name).map(runOf);
  }

  /** Up to 3 runs whose uuid starts with prefix. */
  byPrefix(prefix: string): Run[] {
    const p = prefix.toLowerCase();
    const hi = p.slice(0, -1) + String.fromCharCode(p.charCodeAt(p.length - 1) + 1);
    return this.stmts.byPrefix.all(p, hi).map(runOf);
  }

  byWorkload(provider: string, workload: string, limit: number): Run[] {
    return this.stmts.byWorkload.all(provider, workload, limit).map(runOf);
  }

  active(): Run[] {
    return this.stmts.active.all().map(runOf);
  }

  list(q: ListQuery): Run[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
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
    const sql = `SELECT uuid, record FROM (SELECT uuid, record, queue_seq FROM runs ${
      where.length ? 'WHERE ' + where.join(' AND ') : ''
    } ORDER BY queue_seq DESC LIMIT ?) ORDER BY queue_seq`;
    args.push(q.limit ?? 10_000);
    return this.db
      .prepare<(string | number)[], RecordRow>(sql)
      .all(...args)
      .map(runOf);
  }

  count(): number {
    return this.stmts.count.get()?.n ?? 0;
  }

  maxQueueSeq(): number {
    return this.stmts.maxQueueSeq.get()?.q ?? 0;
  }
}
