// 4. Journal: durable transitions per second, and the WAL's size after
// 1,000,000 transitions (40,000 in the quick form).
//
// A transition is what the supervisor writes for a state change: the run's
// row (its whole JSON record) and the event that explains it, in one
// IMMEDIATE transaction (Journal.updateRun). Measured through
// src/journal/journal.ts on a home in the bench's temp dir:
//  - one transaction per transition (what the supervisor does today), with
//    synchronous=NORMAL (the default) and FULL;
//  - group commit: 100 transitions per transaction (Journal.transaction
//    around them), NORMAL.
// Then a long run of the lifecycle mix a real run produces (queued insert,
// starting, working, ended: 4 transitions per run), one transaction each,
// sampling the WAL file every 10,000 transitions.

import fs from 'node:fs';
import path from 'node:path';
import { Journal } from '../../src/journal/journal.js';
import type { Run } from '../../src/core/types.js';
import { newRun } from '../../src/core/run-record.js';
import { fig, type Figure, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { makeHome } from '../lib/orcr.js';

export function sampleRun(uuid: string, queue_seq: number): Run {
  return newRun({ uuid, name: uuid, provider: 'p', workload: 'default', queue_seq, command: ['true'], cwd: '/', now: 0 });
}

const size = (f: string): number => {
  try {
    return fs.statSync(f).size;
  } catch {
    return 0;
  }
};

/** Transitions/s with `batch` transitions per transaction. */
function rate(sync: 'normal' | 'full', n: number, batch: number): number {
  const home = makeHome({}, 'orcr-bench-j-');
  try {
    const j = new Journal(path.join(home.dir, 'orcr.db'), { synchronous: sync });
    const base = sampleRun('bench', 1);
    j.insertRun(base, { type: 'queued', data: { name: base.name, provider: base.provider, workload: base.workload, queue_seq: base.queue_seq } });
    const t0 = performance.now();
    if (batch === 1) {
      for (let i = 0; i < n; i++) j.updateRun({ ...base, turns: i }, { type: 'usage', data: { turns: i, tokens: base.tokens, cost_usd: base.cost_usd } });
    } else {
      for (let i = 0; i < n; i += batch) {
        j.transaction(() => {
          for (let k = i; k < Math.min(n, i + batch); k++)
            j.updateRun({ ...base, turns: k }, { type: 'usage', data: { turns: k, tokens: base.tokens, cost_usd: base.cost_usd } });
        });
      }
    }
    const r = n / ((performance.now() - t0) / 1000);
    j.close();
    return r;
  } finally {
    home.remove();
  }
}

interface Long {
  rate: number;
  walMaxMb: number;
  walEndMb: number;
  dbMb: number;
}

/** The lifecycle mix, one transaction per transition, for `total` transitions. */
function long(total: number): Long {
  const home = makeHome({}, 'orcr-bench-j-');
  try {
    const db = path.join(home.dir, 'orcr.db');
    const wal = `${db}-wal`;
    const j = new Journal(db, { synchronous: 'normal' });
    let walMax = 0;
    let n = 0;
    let seq = 0;
    const t0 = performance.now();
    while (n < total) {
      seq++;
      const uuid = `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`;
      let r = sampleRun(uuid, seq);
      j.insertRun(r, { type: 'queued', data: { name: r.name, provider: r.provider, workload: r.workload, queue_seq: seq } });
      r = { ...r, status: 'starting', started_at: Date.now(), status_at: Date.now() };
      j.updateRun(r, { type: 'starting', data: { from: 'queued' } });
      r = { ...r, status: 'working', pid: 1000 + (seq % 30000), pid_start: '12345', status_at: Date.now() };
      j.updateRun(r, { type: 'working', data: { from: 'starting', pid: r.pid! } });
      r = { ...r, status: 'ended', exit_reason: 'completed', exit_code: 0, ended_at: Date.now(), status_at: Date.now() };
      j.updateRun(r, { type: 'ended', data: { from: 'working', reason: 'completed', detail: null, exit_code: 0 } });
      n += 4;
      if (n % 10_000 === 0) walMax = Math.max(walMax, size(wal));
    }
    const elapsed = (performance.now() - t0) / 1000;
    walMax = Math.max(walMax, size(wal));
    const walEnd = size(wal);
    j.close();
    return { rate: total / elapsed, walMaxMb: walMax / 1e6, walEndMb: walEnd / 1e6, dbMb: size(db) / 1e6 };
  } finally {
    home.remove();
  }
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const reps = ctx.quick ? 2 : 5;
  const single: number[] = [];
  const full: number[] = [];
  const group: number[] = [];
  for (let r = 0; r < reps; r++) {
    single.push(rate('normal', ctx.quick ? 3000 : 20_000, 1));
    full.push(rate('full', ctx.quick ? 300 : 3000, 1));
    group.push(rate('normal', ctx.quick ? 20_000 : 100_000, 100));
  }
  const total = ctx.quick ? 40_000 : 1_000_000;
  ctx.log(`  ${total.toLocaleString('en-US')} transitions, one transaction each…`);
  const l = long(total);
  const I = '4';
  const T = '≥ 20,000/s';
  const figures: Figure[] = [
    fig(I, `transitions/s, 1 per transaction, synchronous=normal (as the supervisor writes)`, '/s', single, {
      target: T,
      meets: (m) => m >= 20_000,
      floor: 2000,
    }),
    fig(I, `transitions/s, 1 per transaction, synchronous=full`, '/s', full),
    fig(I, `transitions/s, group commit of 100, synchronous=normal`, '/s', group, { target: T, meets: (m) => m >= 20_000, floor: 2000 }),
    fig(I, `${total.toLocaleString('en-US')} lifecycle transitions, 1 per transaction: rate`, '/s', [l.rate], {
      target: T,
      meets: (m) => m >= 20_000,
      floor: 1500,
    }),
    fig(I, `  WAL size, largest seen (every 10,000)`, 'MB', [l.walMaxMb], {
      target: 'bounded (≤ 16 MB journal_size_limit + 1 checkpoint)',
      meets: (m) => m <= 20,
      ceiling: 200,
    }),
    fig(I, `  WAL size at the end`, 'MB', [l.walEndMb]),
    fig(I, `  orcr.db size at the end (events are never pruned)`, 'MB', [l.dbMb], { note: `${((l.dbMb * 1e6) / total).toFixed(0)} bytes per transition` }),
  ];
  return { figures, skipped: [] };
}

export const journal: Item = { key: 'journal', item: '4', title: 'journal', run };
