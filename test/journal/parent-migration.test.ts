// Schema v5: the parent column. A v4 store (before nested runs) opens, keeps
// its runs (they read as roots), and a run's children are found by index.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/schema.js';
import { newRun } from '../../src/core/run-record.js';
import { event, type EventOf } from '../../src/core/events.js';
import type { Run } from '../../src/core/types.js';

/** The queued event as the supervisor writes it for a run made by another. */
const queued = (r: Run): EventOf<'queued'> =>
  event('queued', { name: r.name, provider: r.provider, workload: r.workload, queue_seq: r.queue_seq, parent: r.parent, depth: r.depth });

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('journal v5: parent', () => {
  it('migrates a v4 store and finds children by parent', () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-j-'));
    dirs.push(d);
    const file = path.join(d, 'orcr.db');
    const raw = new Database(file);
    for (let v = 0; v < 4; v++) raw.exec(MIGRATIONS[v]!);
    raw.pragma('user_version = 4');
    const {
      parent: _parent,
      depth: _depth,
      ...old
    } = newRun({ uuid: 'old-1', name: 'old', provider: 'p', workload: 'w', queue_seq: 1, command: ['true'], cwd: '/', now: 1 });
    raw
      .prepare(`INSERT INTO runs (uuid, name, status, queue_seq, provider, workload, created_at, record) VALUES (?, ?, 'queued', 1, 'p', 'w', 1, ?)`)
      .run(old.uuid, old.name, JSON.stringify(old));
    raw.close();

    const j = new Journal(file);
    expect(j.db.pragma('user_version', { simple: true }) as number).toBe(SCHEMA_VERSION);
    expect(j.getRun('old-1')!.parent ?? null).toBeNull();
    const kid = newRun({
      uuid: 'kid-1',
      name: 'kid',
      provider: 'p',
      workload: 'w',
      queue_seq: 2,
      command: ['true'],
      cwd: '/',
      now: 2,
      parent: 'old-1',
      depth: 1,
    });
    const kid2 = newRun({
      uuid: 'kid-2',
      name: 'kid2',
      provider: 'p',
      workload: 'w',
      queue_seq: 3,
      command: ['true'],
      cwd: '/',
      now: 3,
      parent: 'old-1',
      depth: 1,
    });
    j.insertRun(kid, queued(kid));
    j.insertRun(kid2, queued(kid2));
    expect(j.childrenOf('old-1')).toEqual(['kid-1', 'kid-2']);
    expect(j.childrenOf('kid-1')).toEqual([]);
    expect(j.getRun('kid-1')).toMatchObject({ parent: 'old-1', depth: 1 });
    j.close();
  });
});
