// The loops table: one row per loop, its record as JSON and the environment
// of the client that made it, which its runs start with.

import type Database from 'better-sqlite3';
import { OVERLAPS, type Loop, type LoopSchedule } from '../core/loop-policy.js';
import { bool, decodeAs, nullable, num, object, oneOf, str, stringRecord, strings, type Decoder } from './decode.js';

const cron = object<{ cron: string; tz: string }>((c) => ({ cron: str(c.cron, 'cron'), tz: str(c.tz, 'tz') }));
const once = object<{ once_at: number }>((o) => ({ once_at: num(o.once_at, 'once_at') }));
const schedule: Decoder<LoopSchedule> = (v, key) => (typeof v === 'object' && v !== null && 'once_at' in v ? once(v, key) : cron(v, key));
const nullNum = nullable(num);
const overlap = oneOf(OVERLAPS);
const pending = nullable(object<NonNullable<Loop['pending']>>((p) => ({ since: num(p.since, 'since'), coalesced: num(p.coalesced, 'coalesced') })));

const loop = object<Loop>((l) => ({
  name: str(l.name, 'name'),
  schedule: schedule(l.schedule, 'schedule'),
  command: strings(l.command, 'command'),
  cwd: str(l.cwd, 'cwd'),
  max_concurrency: num(l.max_concurrency, 'max_concurrency'),
  overlap: overlap(l.overlap, 'overlap'),
  timeout_ms: nullNum(l.timeout_ms, 'timeout_ms'),
  paused: bool(l.paused, 'paused'),
  created_at: num(l.created_at, 'created_at'),
  next_fire_at: nullNum(l.next_fire_at, 'next_fire_at'),
  pending: pending(l.pending, 'pending'),
  fired: num(l.fired, 'fired'),
}));

interface LoopRow {
  name: string;
  record: string;
  env: string | null;
}

export class LoopRows {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      all: db.prepare<[], LoopRow>(`SELECT name, record, env FROM loops ORDER BY name`),
      insert: db.prepare<[string, string, string | null]>(`INSERT INTO loops (name, record, env) VALUES (?, ?, ?)`),
      update: db.prepare<[string, string]>(`UPDATE loops SET record = ? WHERE name = ?`),
      delete: db.prepare<[string]>(`DELETE FROM loops WHERE name = ?`),
    };
  }

  /** Every loop, with the environment its runs start with. */
  all(): { record: Loop; env: Record<string, string> | null }[] {
    return this.stmts.all.all().map((r) => ({
      record: decodeAs(loop, JSON.parse(r.record), `record of loop ${r.name}`),
      env: r.env === null ? null : decodeAs(stringRecord, JSON.parse(r.env), `environment of loop ${r.name}`),
    }));
  }

  insert(l: Loop, env: Record<string, string> | null): void {
    this.stmts.insert.run(l.name, JSON.stringify(l), env === null ? null : JSON.stringify(env));
  }

  update(l: Loop): void {
    this.stmts.update.run(JSON.stringify(l), l.name);
  }

  delete(name: string): void {
    this.stmts.delete.run(name);
  }
}
