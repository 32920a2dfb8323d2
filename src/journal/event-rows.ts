// The events table: the journal's log, one row per event in seq order, its
// data as JSON.

import type Database from 'better-sqlite3';
import type { RunEvent } from '../core/events.js';
import { anObject, decodeAs } from './decode.js';

interface EventRow {
  seq: number;
  ts: number;
  run: string | null;
  type: string;
  data: string;
}

/**
 * An event read back. Its data is checked to be an object, not field by
 * field against its type's shape: this journal wrote it through EventInput,
 * which ties a type to its data, and an event of a type a later orcr no
 * longer has is still shown (`orcr events`, a client's replay).
 */
export function eventFromRow(r: EventRow): RunEvent {
  const data = decodeAs(anObject, JSON.parse(r.data), `event ${r.seq}'s data`);
  // The one claim not checked: that this type's data has its shape (above).
  return { seq: r.seq, ts: r.ts, run: r.run, type: r.type, data } as RunEvent;
}

export class EventRows {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare<[number, string | null, string, string]>(`INSERT INTO events (ts, run, type, data) VALUES (?, ?, ?, ?)`),
      since: db.prepare<[number, number], EventRow>(`SELECT seq, ts, run, type, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?`),
      last: db.prepare<[], { seq: number }>(`SELECT COALESCE(MAX(seq), 0) AS seq FROM events`),
      first: db.prepare<[], { seq: number | null }>(`SELECT MIN(seq) AS seq FROM events`),
      ofLoop: db.prepare<[string, number], EventRow>(
        `SELECT seq, ts, run, type, data FROM events WHERE substr(type, 1, 5) = 'loop_' AND json_extract(data, '$.loop') = ? ORDER BY seq DESC LIMIT ?`,
      ),
    };
  }

  /** Its seq. */
  insert(ts: number, run: string | null, type: string, data: string): number {
    return Number(this.stmts.insert.run(ts, run, type, data).lastInsertRowid);
  }

  since(seq: number, limit: number): RunEvent[] {
    return this.stmts.since.all(seq, limit).map(eventFromRow);
  }

  last(): number {
    return this.stmts.last.get()?.seq ?? 0;
  }

  first(): number {
    return this.stmts.first.get()?.seq ?? 0;
  }

  /** The newest events about a loop, oldest first. */
  ofLoop(name: string, limit: number): RunEvent[] {
    return this.stmts.ofLoop.all(name, limit).reverse().map(eventFromRow);
  }
}
