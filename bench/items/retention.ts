// R. A home that lives for months. (1) orcr.db's size after 1, 5 and 10
// cycles of 10,000 ended runs written and collected by `orcr gc` (3 cycles of
// 2,000 in the quick form): a journal that reuses what gc frees stays within a
// bound. (2) Release → next start under a cap while gc collects 100,000 ended
// runs (20,000 quick) and 200 runs work, against the same with no gc: the
// collection runs in batches that must not stall admission.
//
// Ended runs are written straight into the journal with src/journal (4 events
// each, as a run leaves them) through a second connection while the supervisor
// runs; they are not in its memory (ended runs never are), only in the store.

import fs from 'node:fs';
import type { Run } from '../../src/core/types.js';
import { homePaths } from '../../src/config/home.js';
import { Journal } from '../../src/journal/journal.js';
import type { RunEvent } from '../../src/core/events.js';
import { fig, median, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, withOrcr } from '../lib/orcr.js';
import { sleep } from '../lib/proc.js';
import { sampleRun } from './journal.js';

const I = 'R';
let serial = 0;
const uuidOf = (n: number): string => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;

/** `count` runs that ended an hour ago, with their four events, written as a supervisor would leave them. */
function writeEnded(dir: string, count: number): void {
  const j = new Journal(homePaths(dir).db, { synchronous: 'normal' });
  try {
    const t = Date.now() - 3_600_000;
    for (let done = 0; done < count; done += 2000) {
      j.transaction(() => {
        for (let i = 0; i < Math.min(2000, count - done); i++) {
          // Far above the supervisor's own queue_seq (it keeps its next one in memory).
          const seq = 1_000_000_000 + serial + 1;
          const r = { ...sampleRun(uuidOf(++serial), seq), created_at: t };
          void seq;
          j.insertRun(r, { type: 'queued', data: { name: r.name, provider: r.provider, workload: r.workload, queue_seq: seq } }, t);
          j.appendEvent(r.uuid, { type: 'starting', data: { from: 'queued' } }, t);
          j.appendEvent(r.uuid, { type: 'working', data: { from: 'starting', pid: 1234 } }, t);
          const e: Run = { ...r, status: 'ended', exit_reason: 'completed', exit_code: 0, started_at: t, ended_at: t + 1000, status_at: t + 1000 };
          j.updateRun(e, { type: 'ended', data: { from: 'working', reason: 'completed', detail: null, exit_code: 0 } }, t + 1000);
        }
      });
    }
  } finally {
    j.close();
  }
}

const dbBytes = (dir: string): number => {
  let n = 0;
  for (const f of ['orcr.db', 'orcr.db-wal']) {
    try {
      n += fs.statSync(`${dir}/${f}`).size;
    } catch {
      /* none */
    }
  }
  return n;
};

async function run(ctx: Ctx): Promise<ItemResult> {
  const per = ctx.quick ? 2000 : 10_000;
  const marks = ctx.quick ? [1, 2, 3] : [1, 5, 10];
  const sizes = new Map<number, number>();
  await withOrcr({}, async (dir) => {
    const c = await connect(dir);
    try {
      for (let cycle = 1; cycle <= marks[marks.length - 1]!; cycle++) {
        writeEnded(dir, per);
        await c.call('gc', { older_than_ms: 60_000 });
        if (marks.includes(cycle)) {
          sizes.set(cycle, dbBytes(dir));
          ctx.log(
            `  after ${cycle} cycle${cycle === 1 ? '' : 's'} of ${per.toLocaleString('en-US')} runs + gc: orcr.db ${(dbBytes(dir) / 1024 / 1024).toFixed(2)} MB`,
          );
        }
      }
    } finally {
      c.close();
    }
  });

  // Release → next start with and without a collection going on.
  const big = ctx.quick ? 20_000 : 100_000;
  const gaps = { quiet: [] as number[], gc: [] as number[] };
  let gcMs = 0;
  await withOrcr({ concurrency: { max: 201, workloads: { probe: { max: 1 } } } }, async (dir) => {
    writeEnded(dir, big);
    const c = await connect(dir);
    const events: { at: number; e: RunEvent }[] = [];
    c.onEvent((m) => events.push({ at: performance.now(), e: m.event }));
    await c.call('subscribe', {});
    await c.call('run.enqueue', { specs: Array.from({ length: 200 }, () => ({ cwd: '/', command: ['sleep', '600'] })) });
    const probes = async (n: number): Promise<number[]> => {
      const from = events.length;
      await c.call('run.enqueue', { specs: Array.from({ length: n }, () => ({ cwd: '/', workload: 'probe', command: ['true'] })) });
      const ended = (): number => events.slice(from).filter((x) => x.e.type === 'ended').length;
      while (ended() < n) await sleep(10);
      const out: number[] = [];
      let last: number | null = null;
      for (const { at, e } of events.slice(from)) {
        if (e.type === 'ended') last = at;
        if (e.type === 'working' && last !== null) {
          out.push(at - last);
          last = null;
        }
      }
      return out;
    };
    gaps.quiet = await probes(100);
    const t0 = performance.now();
    let done = false;
    const collecting = c.call('gc', { older_than_ms: 60_000 }).then(() => {
      done = true;
      gcMs = performance.now() - t0;
    });
    while (!done) gaps.gc.push(...(await probes(20)));
    await collecting;
    c.close();
    ctx.log(
      `  gc of ${big.toLocaleString('en-US')} ended runs took ${(gcMs / 1000).toFixed(1)} s; release → start ${median(gaps.quiet).toFixed(2)} ms quiet, ${median(gaps.gc).toFixed(2)} ms during gc`,
    );
  });

  return {
    figures: [
      ...marks.map((m) =>
        fig(I, `orcr.db after ${m} cycle${m === 1 ? '' : 's'} of ${per.toLocaleString('en-US')} runs + gc`, 'MB', [sizes.get(m)! / 1024 / 1024]),
      ),
      fig(I, `  growth from cycle ${marks[0]} to ${marks[marks.length - 1]}`, '×', [sizes.get(marks[marks.length - 1]!)! / sizes.get(marks[0]!)!], {
        target: 'bounded (≤ 1.2×)',
        meets: (m) => m <= 1.2,
      }),
      fig(I, `gc of ${big.toLocaleString('en-US')} ended runs while 200 work`, 's', [gcMs / 1000]),
      fig(I, '  release → next start, cap 1, no gc (median)', 'ms', [median(gaps.quiet)]),
      fig(I, '  release → next start, cap 1, during that gc (median)', 'ms', [median(gaps.gc)], {
        target: 'within its usual figure (L: < 5 ms)',
        meets: (m) => m < 5,
        ceiling: 100,
      }),
    ],
    skipped: [],
  };
}

export const retention: Item = { key: 'retention', item: 'R', title: 'a home that lives for months', run };
