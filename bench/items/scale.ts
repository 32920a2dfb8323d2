// K. A thousand agents on one box (issue 26): what 1,000 idle live runs
// cost the supervisor (CPU, RSS, descriptors held), what a line of output
// costs when 1,000 runs each print a line a second, and a burst of 1,000
// spawns under a process limit (every run completes, nothing misrecorded,
// the supervisor up throughout).
//
// The idle runs are re-adopted `sleep 3600`s (built as item 6 builds them:
// real wrappers, rows in a journal), the path whose sweep cost 18% of a core
// before. The writers are perl one-liners (no fork per line) started by the
// supervisor itself. The process limit is a pids cgroup around the
// supervisor (its threads, its wrappers and their agents count): the
// process rlimit does not bind root, which this bench usually is. Without a
// pids cgroup to make, that part is skipped and says why.

import fs from 'node:fs';
import path from 'node:path';
import { Journal } from '../../src/journal/journal.js';
import { launch } from '../../src/runtime/launcher.js';
import { homePaths, runDir } from '../../src/config/home.js';
import type { Run } from '../../src/core/types.js';
import { fig, type Figure, type ItemResult, type Skipped } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, makeHome, startSupervisor } from '../lib/orcr.js';
import { CpuMeter, rssKb, sleep, trackGroup } from '../lib/proc.js';
import { sampleRun } from './journal.js';

const I = 'K';
const uuidOf = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const fds = (pid: number): number => fs.readdirSync(`/proc/${pid}/fd`).length;

/** `n` live `sleep 3600` runs in a fresh journal, for the supervisor to re-adopt. */
function buildIdle(dir: string, n: number): void {
  const home = homePaths(dir);
  const runs: Run[] = [];
  for (let i = 1; i <= n; i++) {
    const uuid = uuidOf(i);
    const l = launch({ dir: runDir(home, uuid), argv: ['sleep', '3600'], cwd: dir, env: { ...process.env, ORCR_RUN: uuid }, stdinFifo: false });
    trackGroup(l.pid);
    const now = Date.now();
    runs.push({
      ...sampleRun(uuid, i),
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
  j.transaction(() => {
    for (const r of runs) {
      j.insertRun(r, { type: 'queued', data: { name: r.name, provider: r.provider, workload: r.workload, queue_seq: r.queue_seq } });
      j.appendEvent(r.uuid, { type: 'working', data: { from: 'starting', pid: r.pid! } });
    }
  });
  j.close();
}

async function idle(ctx: Ctx, n: number): Promise<Figure[]> {
  const home = makeHome({ concurrency: { max: n } });
  try {
    buildIdle(home.dir, n);
    const s = await startSupervisor(home.dir, { timeoutMs: 120_000 });
    try {
      const c = await connect(home.dir);
      const st = await c.call('server.status');
      c.close();
      if (st.active !== n) throw new Error(`re-adopted ${st.active} of ${n}`);
      await sleep(1000);
      const cpu: number[] = [];
      for (let r = 0; r < (ctx.quick ? 1 : 3); r++) {
        const m = new CpuMeter(() => [s.pid]);
        m.start();
        await sleep(ctx.quick ? 3000 : 5000);
        cpu.push(m.read());
      }
      return [
        fig(I, `${n} idle live runs (re-adopted): supervisor CPU`, '% core', cpu, { target: '< 2', meets: (m) => m < 2, ceiling: 20 }),
        fig(I, `  supervisor RSS`, 'MB', [rssKb(s.pid) / 1024]),
        fig(I, `  descriptors the supervisor holds`, 'fds', [fds(s.pid)], { target: 'not one per run', meets: (m) => m < n / 4 }),
      ];
    } finally {
      await s.stop();
    }
  } finally {
    home.remove();
  }
}

async function writers(ctx: Ctx, n: number): Promise<Figure[]> {
  const home = makeHome({ concurrency: { max: n + 10 } });
  try {
    const s = await startSupervisor(home.dir, { timeoutMs: 60_000 });
    try {
      const c = await connect(home.dir);
      const perl = ['perl', '-e', '$|=1; while (1) { print "a line of output from an agent, eighty bytes or so, as an agent prints\\n"; sleep 1 }'];
      await c.call('run.enqueue', { specs: Array.from({ length: n }, (_, i) => ({ name: `w-${i}`, command: perl, cwd: home.dir })) });
      for (let t = 0; ; t++) {
        const st = await c.call('server.status');
        if (st.active >= n && (await c.call('run.list', { status: 'working' })).runs.length >= n) break;
        if (t > 600) throw new Error('the writers did not all start');
        await sleep(200);
      }
      c.close();
      await sleep(2000);
      const outBytes = (): number => {
        let sum = 0;
        for (const d of fs.readdirSync(path.join(home.dir, 'runs'))) {
          try {
            sum += fs.statSync(path.join(home.dir, 'runs', d, 'out')).size;
          } catch {
            /* gone */
          }
        }
        return sum;
      };
      const perLine: number[] = [];
      const cpus: number[] = [];
      for (let r = 0; r < (ctx.quick ? 1 : 3); r++) {
        const b0 = outBytes();
        const m = new CpuMeter(() => [s.pid]);
        m.start();
        const t0 = performance.now();
        await sleep(ctx.quick ? 3000 : 5000);
        const secs = (performance.now() - t0) / 1000;
        const pct = m.read();
        const lines = (outBytes() - b0) / 81;
        cpus.push(pct);
        perLine.push(((pct / 100) * secs * 1e6) / Math.max(1, lines));
      }
      return [
        fig(I, `${n} runs each printing a line a second: supervisor CPU`, '% core', cpus),
        fig(I, `  CPU per line of output`, 'µs', perLine),
        fig(I, `  descriptors the supervisor holds`, 'fds', [fds(s.pid)]),
      ];
    } finally {
      await s.stop();
    }
  } finally {
    home.remove();
  }
}

/** A pids cgroup to put the supervisor in, or why there is none. */
function pidsCgroup(): { dir: string } | { reason: string } {
  for (const base of ['/sys/fs/cgroup/pids', '/sys/fs/cgroup']) {
    if (!fs.existsSync(path.join(base, 'cgroup.procs'))) continue;
    const dir = path.join(base, `orcr-bench-${process.pid}`);
    try {
      fs.mkdirSync(dir);
      if (fs.existsSync(path.join(dir, 'pids.max'))) return { dir };
      fs.rmdirSync(dir);
    } catch {
      /* not ours to make */
    }
  }
  return { reason: 'no pids cgroup can be made (needs root and a pids controller)' };
}

async function burst(ctx: Ctx, n: number, room: number): Promise<{ figures: Figure[]; skipped: Skipped[] }> {
  const cg = pidsCgroup();
  if ('reason' in cg) return { figures: [], skipped: [{ item: I, name: `burst of ${n} spawns under a process limit`, reason: cg.reason }] };
  const home = makeHome({ concurrency: { max: n } });
  try {
    const s = await startSupervisor(home.dir, { timeoutMs: 60_000 });
    try {
      fs.writeFileSync(path.join(cg.dir, 'cgroup.procs'), String(s.pid));
      const current = Number(fs.readFileSync(path.join(cg.dir, 'pids.current'), 'utf8'));
      // The supervisor's own threads and `room` processes beyond them: a run is two (wrapper, agent).
      fs.writeFileSync(path.join(cg.dir, 'pids.max'), String(current + room));
      const c = await connect(home.dir);
      const t0 = performance.now();
      await c.call('run.enqueue', { specs: Array.from({ length: n }, (_, i) => ({ name: `b-${i}`, command: ['sleep', '0.2'], cwd: home.dir })) });
      let upThroughout = true;
      for (;;) {
        try {
          process.kill(s.pid, 0);
        } catch {
          upThroughout = false;
          break;
        }
        const st = await c.call('server.status');
        if (st.active === 0 && st.queued === 0) break;
        if (performance.now() - t0 > 600_000) throw new Error('the burst did not finish in 10 minutes');
        await sleep(250);
      }
      const secs = (performance.now() - t0) / 1000;
      const runs = [];
      for (let before: number | undefined; ;) {
        const page = await c.call('run.list', { all: true, before });
        runs.push(...page.runs);
        if (page.next === null || page.next === undefined) break;
        before = page.next;
      }
      const events = (await c.call('events', {})).events;
      c.close();
      const bad = runs.filter((r) => r.exit_reason !== 'completed' || r.exit_code !== 0).length;
      ctx.log(
        `  burst: ${runs.length} runs in ${secs.toFixed(1)} s, ${bad} not completed, ${events.filter((e) => e.type === 'resource_limit').length} limit spell(s), ${events.filter((e) => e.type === 'launch_retried').length} wrapper(s) relaunched`,
      );
      fs.writeFileSync(path.join(cg.dir, 'pids.max'), 'max');
      return {
        figures: [
          fig(I, `burst of ${n} spawns, room for ${room} processes: time to all ended`, 's', [secs]),
          fig(I, `  runs not completed with exit 0 (misrecorded)`, 'runs', [bad + (n - runs.length)], { target: '0', meets: (m) => m === 0, ceiling: 0.5 }),
          fig(I, `  supervisor up throughout`, 'yes=1', [upThroughout ? 1 : 0], { target: '1', meets: (m) => m === 1, floor: 0.5 }),
        ],
        skipped: [],
      };
    } finally {
      await s.stop();
    }
  } finally {
    home.remove();
    try {
      fs.rmdirSync(cg.dir);
    } catch {
      /* members left: killed with their groups */
    }
  }
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const n = ctx.quick ? 200 : 1000;
  const figures: Figure[] = [];
  ctx.log(`  ${n} idle live runs`);
  figures.push(...(await idle(ctx, n)));
  ctx.log(`  ${n} runs printing a line a second`);
  figures.push(...(await writers(ctx, n)));
  ctx.log(`  a burst of ${n} spawns under a process limit`);
  const b = await burst(ctx, n, ctx.quick ? 40 : 100);
  figures.push(...b.figures);
  return { figures, skipped: b.skipped };
}

export const scale: Item = { key: 'scale', item: I, title: 'a thousand agents on one box', run };
