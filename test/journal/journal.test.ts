import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, JournalVersionError } from '../../src/journal/journal.js';
import { SCHEMA_VERSION } from '../../src/journal/schema.js';
import type { Run } from '../../src/core/types.js';
import type { EventInput, RunEvent } from '../../src/core/events.js';
import { newRun } from '../../src/core/run-record.js';

const dirs: string[] = [];
function dbFile(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-j-'));
  dirs.push(d);
  return path.join(d, 'orcr.db');
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function run(j: Journal, name: string, over: Partial<Run> = {}): Run {
  return {
    ...newRun({ uuid: `uuid-${name}`, name, provider: 'p', workload: 'default', queue_seq: j.nextQueueSeq(), command: ['true'], cwd: '/', now: 1_000 }),
    ...over,
  };
}

/** The event a run is inserted with, as the supervisor writes it. */
const queued = (r: Run): EventInput => ({ type: 'queued', data: { name: r.name, provider: r.provider, workload: r.workload, queue_seq: r.queue_seq } });

describe('journal', () => {
  it('writes a run and its event together, with monotonic queue_seq and event seq', () => {
    const j = new Journal(dbFile());
    const seen: RunEvent[] = [];
    j.onEvent((e) => seen.push(e));
    const a = run(j, 'a');
    j.insertRun(a, queued(a));
    const b = run(j, 'b');
    j.insertRun(b, queued(b));
    expect(b.queue_seq).toBe(a.queue_seq + 1);
    j.updateRun({ ...a, status: 'starting' }, { type: 'starting', data: { from: 'queued' } });
    expect(seen.map((e) => [e.seq, e.type])).toEqual([
      [1, 'queued'],
      [2, 'queued'],
      [3, 'starting'],
    ]);
    expect(j.activeRuns().map((r) => [r.name, r.status])).toEqual([
      ['a', 'starting'],
      ['b', 'queued'],
    ]);
    j.close();
  });

  it('rolls back the run row and its event together, and tells no listener', () => {
    const j = new Journal(dbFile());
    const seen: RunEvent[] = [];
    j.onEvent((e) => seen.push(e));
    const a = run(j, 'a');
    expect(() =>
      j.transaction(() => {
        j.insertRun(a, queued(a));
        throw new Error('crash mid-transaction');
      }),
    ).toThrow('crash mid-transaction');
    expect(j.getRun(a.uuid)).toBeNull();
    expect(j.eventsSince(0)).toEqual([]);
    expect(seen).toEqual([]);
    j.close();
  });

  it('keeps queue order and state across a reopen', () => {
    const file = dbFile();
    const j = new Journal(file);
    for (const n of ['a', 'b', 'c']) {
      const r = run(j, n);
      j.insertRun(r, queued(r));
    }
    j.close();
    const k = new Journal(file);
    expect(k.activeRuns().map((r) => r.name)).toEqual(['a', 'b', 'c']);
    expect(k.nextQueueSeq()).toBe(4);
    expect(k.lastSeq()).toBe(3);
    k.close();
  });

  it('refuses a store written by a newer orcr without touching it', () => {
    const file = dbFile();
    new Journal(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    const before = fs.readFileSync(file);
    expect(() => new Journal(file)).toThrow(JournalVersionError);
    expect(() => new Journal(file)).toThrow(/newer orcr/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('finds runs by name and by unique uuid prefix', () => {
    const j = new Journal(dbFile());
    const x = run(j, 'x', { uuid: 'abcd-1' });
    j.insertRun(x, queued(x));
    const y = run(j, 'y', { uuid: 'abce-2' });
    j.insertRun(y, queued(y));
    expect(j.runsByName('x').map((r) => r.uuid)).toEqual(['abcd-1']);
    expect(j.runsByPrefix('abc').length).toBe(2);
    expect(j.runsByPrefix('abcd').map((r) => r.name)).toEqual(['x']);
    j.close();
  });

  it('keeps the WAL bounded over many transitions', () => {
    const file = dbFile();
    const j = new Journal(file);
    const a = run(j, 'a');
    j.insertRun(a, queued(a));
    for (let i = 0; i < 20_000; i++) j.updateRun({ ...a, turns: i }, { type: 'usage', data: { turns: i, tokens: a.tokens, cost_usd: 0 } });
    const wal = fs.statSync(`${file}-wal`).size;
    // auto-checkpoints every ~1000 pages, and journal_size_limit truncates the file back
    expect(wal).toBeLessThan(20 * 1024 * 1024);
    j.close();
  });

  it('sums fleet usage per minute, over all time or from a point on (a rolling window)', () => {
    const j = new Journal(dbFile());
    j.addUsage(1_000, 5_000, 5);
    j.addUsage(50_000, 600, 0.6);
    j.addUsage(99_000, 500, 0.5);
    j.addUsage(125_000, 100, 0.1);
    expect(j.usageSince(0)).toEqual({ tokens: 6_200, cost: 6.2 });
    // Minute resolution: from 60 s on counts the minutes starting at 60 s and at 120 s.
    expect(j.usageSince(60_000)).toEqual({ tokens: 600, cost: 0.6 });
    expect(j.usageSince(130_000)).toEqual({ tokens: 100, cost: 0.1 });
    expect(j.usageSince(180_000)).toEqual({ tokens: 0, cost: 0 });
  });

  it("keeps each run's launch environment once per distinct environment", () => {
    const j = new Journal(dbFile());
    const env = { PATH: '/bin', FOO: 'x' };
    for (const name of ['a', 'b']) {
      const r = run(j, name);
      j.insertRun(r, queued(r), 1, { ...env });
    }
    const c = run(j, 'c');
    j.insertRun(c, queued(c), 1);
    expect(j.launchEnv('uuid-a')?.env).toEqual(env);
    expect(j.launchEnv('uuid-b')).toEqual(j.launchEnv('uuid-a'));
    expect(j.launchEnv('uuid-c')).toBeNull();
    expect((j.db.prepare('SELECT COUNT(*) AS n FROM envs').get() as { n: number }).n).toBe(1);
  });
});
