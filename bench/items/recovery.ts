// 6. Recovery: supervisor start to ready with 100,000 ended and 1,000 live
// runs in the journal. Ready = the socket answers `hello` (the supervisor
// rebuilds and reconciles before it listens).
//
// The journal is built directly with src/journal/journal.ts (4 events per
// ended run: queued, starting, working, ended). The 1,000 live runs are real:
// each is a `sleep 3600` started through src/runtime/launcher.ts's launch(),
// so it runs under the real `sh` wrapper in its own process group and the
// supervisor takes the re-adopt path (pid + start time match, wrapper argv
// names the run dir), the expensive one. The supervisor is started as
// `orcr serve`, timed from spawn to hello, then stopped with `orcr server
// stop` (the agents keep running) and started again for the next repeat.
//
// The ended runs ended an hour before the bench, within the retention
// (`retention.ended`, 30 days by default), as in a home that runs: its
// hourly retention pass keeps nothing older. So the supervisor's CPU after
// ready is what settling in costs (the re-adopted runs, and its first
// retention pass, 2 s after start, finding nothing to collect). Until
// 2026-12-06 they were dated 1970: that pass collected all 100,000, and the
// "idle" figure measured the first two seconds of that collection.

import { Journal } from '../../src/journal/journal.js';
import { launch } from '../../src/runtime/launcher.js';
import { homePaths, runDir } from '../../src/config/home.js';
import type { Run } from '../../src/core/types.js';
import { fig, type Figure, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, makeHome, startSupervisor } from '../lib/orcr.js';
import { CpuMeter, sleep, trackGroup } from '../lib/proc.js';
import { sampleRun } from './journal.js';

const uuidOf = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function build(dir: string, ended: number, live: number): void {
  const home = homePaths(dir);
  // Live agents first, while this process is small (spawn cost grows with RSS).
  const liveRuns: Run[] = [];
  for (let i = 0; i < live; i++) {
    const seq = ended + i + 1;
    const uuid = uuidOf(seq);
    const l = launch({ dir: runDir(home, uuid), argv: ['sleep', '3600'], cwd: dir, env: { ...process.env, ORCR_RUN: uuid }, stdinFifo: false });
    trackGroup(l.pid);
    const now = Date.now();
    liveRuns.push({
      ...sampleRun(uuid, seq),
      protocol: null,
      command: ['sleep', '3600'],
      status: 'working',
      pid: l.pid,
      pid_start: l.pidStart,
      started_at: now,
      status_at: now,
    });
  }
  const j = new Journal(home.db, { synchronous: 'normal' });
  const BATCH = 5000;
  const anHourAgo = Date.now() - 3_600_000;
  for (let s = 1; s <= ended; s += BATCH) {
    j.transaction(() => {
      for (let seq = s; seq < Math.min(ended + 1, s + BATCH); seq++) {
        const t = anHourAgo + seq;
        const r = { ...sampleRun(uuidOf(seq), seq), created_at: t };
        j.insertRun(r, { type: 'queued', data: { name: r.name, provider: r.provider, workload: r.workload, queue_seq: seq } }, t);
        j.appendEvent(r.uuid, { type: 'starting', data: { from: 'queued' } }, t);
        j.appendEvent(r.uuid, { type: 'working', data: { from: 'starting', pid: 1234 } }, t);
        const e: Run = { ...r, status: 'ended', exit_reason: 'completed', exit_code: 0, started_at: t, ended_at: t + 1000, status_at: t + 1000 };
        j.updateRun(e, { type: 'ended', data: { from: 'working', reason: 'completed', detail: null, exit_code: 0 } }, t + 1000);
      }
    });
  }
  j.transaction(() => {
    for (const r of liveRuns) {
      j.insertRun(r, { type: 'queued', data: { name: r.name, provider: r.provider, workload: r.workload, queue_seq: r.queue_seq } });
      j.appendEvent(r.uuid, { type: 'starting', data: { from: 'queued' } });
      j.appendEvent(r.uuid, { type: 'working', data: { from: 'starting', pid: r.pid! } });
    }
  });
  j.walCheckpoint();
  j.close();
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const ended = 100_000;
  // The quick form re-adopts 200 live runs instead of 1,000 (launching them is most of its time).
  const live = ctx.quick ? 200 : 1000;
  const reps = ctx.quick ? 1 : 5;
  const I = '6';
  // Baseline: an empty home, for Node's own start-up and module loading.
  const empty: number[] = [];
  for (let r = 0; r < reps; r++) {
    const h = makeHome({});
    try {
      const s = await startSupervisor(h.dir);
      empty.push(s.readyMs);
      await s.stop();
    } finally {
      h.remove();
    }
  }
  const home = makeHome({ concurrency: { max: live } });
  const ready: number[] = [];
  const settlingCpu: number[] = [];
  const settledCpu: number[] = [];
  try {
    const t0 = performance.now();
    build(home.dir, ended, live);
    ctx.log(`  built ${ended.toLocaleString('en-US')} ended + ${live} live runs in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    for (let r = 0; r < reps; r++) {
      const s = await startSupervisor(home.dir, { timeoutMs: 120_000 });
      ready.push(s.readyMs);
      if (r === 0) {
        const c = await connect(home.dir);
        const st = await c.call('server.status');
        const list = await c.call('run.list', {});
        c.close();
        const working = list.runs.filter((x) => x.status === 'working').length;
        if (st.active !== live || working !== live) throw new Error(`recovery re-adopted ${working} of ${live} live runs (active ${st.active})`);
      }
      // What settling in costs with nothing happening: from just after ready
      // past the first retention pass (2 s after start); then settled.
      const settling = new CpuMeter(() => [s.pid]);
      await sleep(300);
      settling.start();
      await sleep(3000);
      settlingCpu.push(settling.read());
      await sleep(700);
      const settled = new CpuMeter(() => [s.pid]);
      settled.start();
      await sleep(ctx.quick ? 1000 : 2000);
      settledCpu.push(settled.read());
      await s.stop();
    }
  } finally {
    home.remove();
  }
  const figures: Figure[] = [
    fig(I, `start → ready, empty home (Node start-up, modules)`, 'ms', empty),
    fig(I, `start → ready, ${ended.toLocaleString('en-US')} ended + ${live.toLocaleString('en-US')} live (real, re-adopted)`, 'ms', ready, {
      target: '< 1 s',
      meets: (m) => m < 1000,
      ceiling: 10_000,
    }),
    fig(
      I,
      `  supervisor CPU settling in, 0.3–3.3 s after ready (${live} re-adopted runs; the first retention pass, nothing to collect)`,
      '% core',
      settlingCpu,
    ),
    fig(I, `  supervisor CPU settled, 4–${ctx.quick ? 5 : 6} s after ready, ${live} re-adopted runs idle`, '% core', settledCpu),
  ];
  return { figures, skipped: [] };
}

export const recovery: Item = { key: 'recovery', item: '6', title: 'recovery', run };
