// Launch environments: the environment of the client that made each run,
// stored once per distinct environment (the envs table, named by its hash)
// and referred to from its run's row; written at enqueue, read at launch.

import crypto from 'node:crypto';
import type Database from 'better-sqlite3';
import { decodeAs, stringRecord } from './decode.js';

export class LaunchEnvs {
  private readonly stmts;
  /** Environment objects already stored (by identity), and parsed ones by id: launches of one fan-out read one. */
  private readonly ids = new WeakMap<object, string>();
  private readonly parsed = new Map<string, Record<string, string>>();

  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare<[string, string]>(`INSERT INTO envs (id, env) VALUES (?, ?) ON CONFLICT(id) DO NOTHING`),
      setRunEnv: db.prepare<[string, string]>(`UPDATE runs SET env_id = ? WHERE uuid = ?`),
      runEnvId: db.prepare<[string], { env_id: string | null }>(`SELECT env_id FROM runs WHERE uuid = ?`),
      get: db.prepare<[string], { env: string }>(`SELECT env FROM envs WHERE id = ?`),
    };
  }

  /** Keep `env` as the environment the run starts with (its row must exist). */
  attach(uuid: string, env: Record<string, string>): void {
    this.stmts.setRunEnv.run(this.idOf(env), uuid);
  }

  /**
   * The id of an environment, stored once. A fan-out's runs share one object
   * (hashed once); the same environment from another request hashes to the
   * same id.
   */
  private idOf(env: Record<string, string>): string {
    const known = this.ids.get(env);
    if (known !== undefined) return known;
    const text = JSON.stringify(env, Object.keys(env).sort());
    const id = crypto.createHash('sha256').update(text).digest('base64url');
    this.stmts.insert.run(id, text);
    this.ids.set(env, id);
    return id;
  }

  /**
   * The environment a run was queued with and its id, or null (runs queued
   * without one start with the supervisor's). Parsed once per environment.
   */
  of(uuid: string): { id: string; env: Readonly<Record<string, string>> } | null {
    const id = this.stmts.runEnvId.get(uuid)?.env_id ?? null;
    if (id === null) return null;
    let env = this.parsed.get(id);
    if (env === undefined) {
      const row = this.stmts.get.get(id);
      if (!row) return null;
      env = decodeAs(stringRecord, JSON.parse(row.env), `launch environment ${id}`);
      if (this.parsed.size >= 64) this.parsed.clear();
      this.parsed.set(id, env);
    }
    return { id, env };
  }
}
