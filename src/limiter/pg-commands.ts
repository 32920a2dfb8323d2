// Commands between machines (issue 43), in orcr_command: one machine's
// supervisor writes a socket method and its params for another's, with a
// NOTIFY on that machine's channel; the owner takes each exactly once (an
// UPDATE … WHERE taken_at IS NULL that two takers cannot both win), carries
// it out, and writes the answer with a NOTIFY on the caller's channel. A
// command not taken in time is withdrawn by its caller (never carried out
// late: a kill sent to a machine that comes back an hour later must not
// land); old rows are deleted by every member. Times are the database's.

import crypto from 'node:crypto';
import type pg from 'pg';
import type { MachineRow, Refusal } from '../core/cluster-commands.js';
import type { Published } from '../core/fleet-view.js';
import type { ClusterDb } from './pg-db.js';
import { ClusterRefused } from './pg-errors.js';

/** The channel a machine LISTENs on for commands and answers addressed to it. */
export function hostChannel(cluster: string, host: string): string {
  return 'orcr_h' + crypto.createHash('sha256').update(`${cluster}\n${host}`).digest('hex').slice(0, 24);
}

export interface TakenCommand {
  id: string;
  from_host: string;
  method: string;
  params: Record<string, unknown>;
}

/** What the caller reads of its command: taken or not, and the answer once done. */
export interface CommandState {
  taken: boolean;
  answer: { result?: unknown; error?: { code: string; message: string } } | null;
}

/** A role that may read the cluster's tables but not write orcr_command is told which grant it lacks. */
function lacksGrant(e: unknown): ClusterRefused | null {
  if ((e as { code?: string })?.code !== '42501') return null;
  return new ClusterRefused(
    'the cluster database role may not write orcr_command (a read-only role can view the fleet, not act on it): ' +
      'GRANT SELECT, INSERT, UPDATE, DELETE ON orcr_command TO role; GRANT USAGE ON SEQUENCE orcr_command_id_seq TO role',
  );
}

export class PgCommands {
  constructor(
    private readonly db: Pick<ClusterDb, 'q' | 'tx'>,
    private readonly cluster: string,
    private readonly host: string,
  ) {}

  /**
   * Send a command to `host` unless `verdict` refuses it on the machine's row
   * (read in the same transaction): its id, or the refusal. A missing grant
   * is a ClusterRefused naming it.
   */
  async send(host: string, method: string, params: unknown, verdict: (m: MachineRow | null) => Refusal | null): Promise<{ id: string } | Refusal> {
    return this.db.tx(async (c) => {
      const m = await machineRow(c, this.cluster, host);
      const refused = verdict(m);
      if (refused) return refused;
      const r = await c
        .query<{ id: string }>(`INSERT INTO orcr_command (cluster, host, from_host, method, params) VALUES ($1, $2, $3, $4, $5) RETURNING id`, [
          this.cluster,
          host,
          this.host,
          method,
          JSON.stringify(params),
        ])
        .catch((e: unknown) => Promise.reject(lacksGrant(e) ?? e));
      const id = String(r.rows[0]!.id);
      await c.query(`SELECT pg_notify($1, $2)`, [hostChannel(this.cluster, host), `command:${id}`]);
      return { id };
    });
  }

  /** The commands for this machine not taken yet and sent within `freshMs`, taken now (each by one taker only), oldest first. */
  async take(freshMs: number, limit = 20): Promise<TakenCommand[]> {
    const r = await this.db.q<{ id: string; from_host: string; method: string; params: Record<string, unknown> }>(
      `UPDATE orcr_command SET taken_at = now() WHERE id IN (
         SELECT id FROM orcr_command WHERE cluster = $1 AND host = $2 AND taken_at IS NULL AND done_at IS NULL
           AND created_at >= now() - ($3 || ' milliseconds')::interval
         ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
       AND taken_at IS NULL
       RETURNING id, from_host, method, params`,
      [this.cluster, this.host, String(freshMs), limit],
    );
    return r.rows.map((x) => ({ id: String(x.id), from_host: x.from_host, method: x.method, params: x.params })).sort((a, b) => Number(a.id) - Number(b.id));
  }

  /**
   * Commands an earlier supervisor of this machine took and left unanswered
   * (it stopped or died while carrying them out), each with how long ago it
   * was sent: read before this supervisor takes any, so none is its own.
   */
  async orphans(): Promise<(TakenCommand & { age_ms: number })[]> {
    const r = await this.db.q<{ id: string; from_host: string; method: string; params: Record<string, unknown>; age_ms: number }>(
      `SELECT id, from_host, method, params, (extract(epoch FROM now() - created_at) * 1000)::float8 AS age_ms FROM orcr_command
        WHERE cluster = $1 AND host = $2 AND taken_at IS NOT NULL AND done_at IS NULL ORDER BY id`,
      [this.cluster, this.host],
    );
    return r.rows.map((x) => ({ id: String(x.id), from_host: x.from_host, method: x.method, params: x.params, age_ms: x.age_ms }));
  }

  /** Write a command's answer, and tell its caller. */
  async answer(cmd: Pick<TakenCommand, 'id' | 'from_host'>, answer: CommandState['answer']): Promise<void> {
    await this.db.tx(async (c) => {
      await c.query(`UPDATE orcr_command SET answer = $2, done_at = now() WHERE id = $1 AND done_at IS NULL`, [cmd.id, JSON.stringify(answer)]);
      await c.query(`SELECT pg_notify($1, $2)`, [hostChannel(this.cluster, cmd.from_host), `answer:${cmd.id}`]);
    });
  }

  /** Where a command of ours stands; null once deleted (withdrawn, or cleaned). */
  async state(id: string): Promise<CommandState | null> {
    const r = await this.db.q<{ taken: boolean; answer: CommandState['answer'] }>(
      `SELECT taken_at IS NOT NULL AS taken, answer FROM orcr_command WHERE id = $1 AND from_host = $2`,
      [id, this.host],
    );
    const row = r.rows[0];
    return row ? { taken: row.taken, answer: row.answer } : null;
  }

  /** Take back a command nobody took: true if it is withdrawn (never to be carried out), false if it was taken meanwhile. */
  async withdraw(id: string): Promise<boolean> {
    const r = await this.db.q(`DELETE FROM orcr_command WHERE id = $1 AND taken_at IS NULL`, [id]);
    return (r.rowCount ?? 0) > 0;
  }

  /** The caller gave up on a command (its client went away): marked done, so its owner drops what it still does for it. */
  async abandon(id: string): Promise<void> {
    await this.db.q(`UPDATE orcr_command SET done_at = now(), answer = $2 WHERE id = $1 AND done_at IS NULL`, [
      id,
      JSON.stringify({ error: { code: 'stopped', message: 'the caller went away' } }),
    ]);
  }

  /** Of the commands this machine is carrying out, those done already (abandoned by their callers). */
  async abandoned(ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const r = await this.db.q<{ id: string }>(`SELECT id FROM orcr_command WHERE id = ANY($1::bigint[]) AND done_at IS NOT NULL`, [ids]);
    return r.rows.map((x) => String(x.id));
  }

  /** Other machines' published runs that may answer to `ref` (its name, or a uuid prefix): core/fleet-view's lookupPublished decides. */
  async runsAnswering(ref: string): Promise<Published[]> {
    const prefix = /^[0-9a-f-]{4,}$/i.test(ref) ? ref.toLowerCase() : null;
    const r = await this.db.q<Published>(
      `SELECT host, uuid, name, status FROM orcr_run WHERE cluster = $1 AND host <> $2 AND (name = $3 OR ($4::text IS NOT NULL AND uuid LIKE $4 || '%')) ORDER BY host, updated_at`,
      [this.cluster, this.host, ref, prefix],
    );
    return r.rows;
  }

  /** A machine's heartbeat age and whether it takes commands (null: no such machine). */
  machine(host: string): Promise<MachineRow | null> {
    return this.db.tx((c) => machineRow(c, this.cluster, host));
  }

  /** Delete answered commands older than `keepMs`, and commands never answered older than a day (a taker that died with them). */
  async clean(keepMs: number): Promise<number> {
    const r = await this.db.q(
      `DELETE FROM orcr_command WHERE cluster = $1 AND (done_at < now() - ($2 || ' milliseconds')::interval OR created_at < now() - interval '1 day')`,
      [this.cluster, String(keepMs)],
    );
    return r.rowCount ?? 0;
  }
}

async function machineRow(c: pg.PoolClient, cluster: string, host: string): Promise<MachineRow | null> {
  const r = await c.query<{ age_ms: number; accept_commands: boolean }>(
    `SELECT (extract(epoch FROM now() - heartbeat) * 1000)::float8 AS age_ms, accept_commands FROM orcr_host WHERE cluster = $1 AND host = $2`,
    [cluster, host],
  );
  const row = r.rows[0];
  return row ? { age_ms: Number(row.age_ms), accept_commands: row.accept_commands } : null;
}
