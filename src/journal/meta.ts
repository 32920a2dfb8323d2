// The meta table: a few small values by key (holds, the fleet's budget trip,
// the home's id, a paused queue), each written and read by the room that owns
// its key.

import type Database from 'better-sqlite3';

export class Meta {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], { value: string }>(`SELECT value FROM meta WHERE key = ?`),
      set: db.prepare<[string, string]>(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`),
      delete: db.prepare<[string]>(`DELETE FROM meta WHERE key = ?`),
    };
  }

  get<T>(key: string): T | null {
    const row = this.stmts.get.get(key);
    // Not checked: the room that owns the key names the type of what it stored there.
    return row ? (JSON.parse(row.value) as T) : null;
  }

  /** null or undefined removes the key. */
  set(key: string, value: unknown): void {
    if (value === null || value === undefined) this.stmts.delete.run(key);
    else this.stmts.set.run(key, JSON.stringify(value));
  }
}
