// Records journaled by an older orcr read back whole: every field Run has
// since gained is filled with its default. The rows are written straight into
// SQLite, in the shape the first journal wrote them.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { JournalRecordError } from '../../src/journal/decode.js';
import { newRun } from '../../src/core/run-record.js';
import type { Run } from '../../src/core/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function journalFile(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-j-'));
  dirs.push(d);
  const file = path.join(d, 'orcr.db');
  new Journal(file).close();
  return file;
}

const OLDEST_LIMITS = { max_turns: 5, max_tokens: null, max_cost_usd: null, timeout_ms: null, idle_after_ms: null, loop: 'warn' };

/** A run's record as the first journal wrote it: the fields Run had then, and no other. */
function oldestRecord(uuid: string, queueSeq: number): Record<string, unknown> {
  return {
    uuid,
    name: 'old',
    provider: 'p',
    workload: 'default',
    protocol: null,
    status: 'queued',
    exit_reason: null,
    exit_detail: null,
    exit_code: null,
    blocked_kind: null,
    queue_seq: queueSeq,
    pid: null,
    pid_start: null,
    command: ['true'],
    cwd: '/',
    env: { A: '1' },
    prompt: 'hi',
    interactive: false,
    limits: OLDEST_LIMITS,
    turns: 0,
    input_seq: 0,
    tokens: { input: 0, output: 0, cached: 0 },
    cost_usd: 0,
    session_id: null,
    last_tool: null,
    last_text: null,
    created_at: 1_000,
    started_at: null,
    ended_at: null,
    status_at: 1_000,
    kill_requested_at: null,
    out_offset: 0,
  };
}

function writeRaw(file: string, record: Record<string, unknown>): void {
  const raw = new Database(file);
  raw
    .prepare(`INSERT INTO runs (uuid, name, status, queue_seq, provider, workload, created_at, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(record.uuid, record.name, record.status, record.queue_seq, record.provider, record.workload, record.created_at, JSON.stringify(record));
  raw.close();
}

describe('records of an older orcr', () => {
  it('read back with every field Run gained since filled with its default', () => {
    const file = journalFile();
    writeRaw(file, oldestRecord('old-1', 1));
    const j = new Journal(file);
    const expected: Run = {
      uuid: 'old-1',
      name: 'old',
      provider: 'p',
      workload: 'default',
      protocol: null,
      status: 'queued',
      exit_reason: null,
      exit_detail: null,
      exit_code: null,
      exit_note: null,
      blocked_kind: null,
      queue_seq: 1,
      pid: null,
      pid_start: null,
      command: ['true'],
      cwd: '/',
      env: { A: '1' },
      prompt: 'hi',
      prompt_argv: false,
      interactive: false,
      limits: {
        max_turns: 5,
        max_tokens: null,
        max_cost_usd: null,
        timeout_ms: null,
        idle_after_ms: null,
        turn_timeout_ms: null,
        loop: 'warn',
        on_stall: 'terminate',
      },
      turns: 0,
      input_seq: 0,
      tokens: { input: 0, output: 0, cached: 0 },
      cost_usd: 0,
      session_id: null,
      last_tool: null,
      last_text: null,
      created_at: 1_000,
      started_at: null,
      ended_at: null,
      status_at: 1_000,
      kill_requested_at: null,
      stop_requested: null,
      out_offset: 0,
      cost_reported: null,
      cost_base: 0,
      warned_meters: [],
      lease_id: null,
      loop_state: { tools: [], texts: [], detected: false, warned: false, repetitions: 0, detections: 0 },
      loop_flags: { detected: false, warned: false, repetitions: 0 },
      stalled_since: null,
      parent: null,
      depth: 0,
      tree: { tokens: { input: 0, output: 0, cached: 0 }, cost_usd: 0 },
      worktree: null,
      agent_retry: null,
      limited_at: null,
      after: [],
      after_any: false,
      retries: 0,
      retry_at: null,
      resume_after: null,
      last_result: null,
      attempts: [],
      approvals: { allow: [], deny: [] },
      denials: 0,
      protocol_errors: { count: 0, last: null },
    };
    const read = j.getRun('old-1');
    expect(read).toStrictEqual(expected);
    expect(j.activeRuns()).toStrictEqual([expected]);
    expect(j.listRuns({ all: true })).toStrictEqual([expected]);
    // The defaults are what a new run starts with: an old run reads as it would be made today.
    const made = newRun({
      uuid: 'old-1',
      name: 'old',
      provider: 'p',
      workload: 'default',
      queue_seq: 1,
      command: ['true'],
      cwd: '/',
      now: 1_000,
      env: { A: '1' },
      prompt: 'hi',
    });
    expect(read).toStrictEqual({ ...made, limits: { ...made.limits, max_turns: 5 } });
    j.close();
  });

  it('reads an attempt journaled before attempts had a kind as a continuation', () => {
    const file = journalFile();
    const attempt = { n: 1, started_at: 1, ended_at: 2, reason: 'errored', detail: 'limit', session_id: 'S1', prompt: null };
    writeRaw(file, { ...oldestRecord('old-2', 1), attempts: [attempt] });
    const j = new Journal(file);
    expect(j.getRun('old-2')!.attempts).toStrictEqual([{ ...attempt, kind: 'continue' }]);
    j.close();
  });

  it('keeps the fields it does not know (a later orcr wrote them) through a rewrite', () => {
    const file = journalFile();
    writeRaw(file, { ...oldestRecord('new-1', 1), from_the_future: { x: 1 }, limits: { ...OLDEST_LIMITS, max_future: 3 } });
    const j = new Journal(file);
    const r = j.getRun('new-1')!;
    j.updateRun({ ...r, turns: 1 }, null);
    expect(j.getRun('new-1')).toMatchObject({ turns: 1, from_the_future: { x: 1 }, limits: { max_turns: 5, on_stall: 'terminate', max_future: 3 } });
    // And beside every field this orcr writes.
    const today = newRun({ uuid: 'new-2', name: 'today', provider: 'p', workload: 'default', queue_seq: 2, command: ['true'], cwd: '/', now: 1 });
    writeRaw(file, { ...today, from_the_future: 'y', tree: { ...today.tree, future_meter: 2 } });
    expect(j.getRun('new-2')).toStrictEqual({ ...today, from_the_future: 'y', tree: { ...today.tree, future_meter: 2 } });
    j.close();
  });

  it('names the run and the field of a record that does not read', () => {
    const file = journalFile();
    writeRaw(file, { ...oldestRecord('bad-1', 1), turns: '3' });
    writeRaw(file, { ...oldestRecord('bad-2', 2), limits: { ...OLDEST_LIMITS, max_turns: 'five' } });
    writeRaw(file, {
      ...oldestRecord('bad-3', 3),
      attempts: [{ n: 1, started_at: 1, ended_at: 2, reason: 'tired', detail: null, session_id: null, prompt: null }],
    });
    writeRaw(file, { ...oldestRecord('bad-4', 4), env: { A: 1 } });
    const j = new Journal(file);
    expect(() => j.getRun('bad-1')).toThrow(JournalRecordError);
    expect(() => j.getRun('bad-1')).toThrow(`the journal's record of run bad-1 does not read: turns: expected a number, found "3"`);
    expect(() => j.getRun('bad-2')).toThrow(`the journal's record of run bad-2 does not read: limits.max_turns: expected a number, found "five"`);
    expect(() => j.getRun('bad-4')).toThrow(`the journal's record of run bad-4 does not read: env.A: expected a string, found 1`);
    expect(() => j.getRun('bad-3')).toThrow(/record of run bad-3 does not read: attempts\[0\]\.reason: expected one of completed, .*, found "tired"/);
    j.close();
  });
});
