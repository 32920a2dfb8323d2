// C. A fleet across machines: three supervisors (three homes) share one
// cluster in a throw-away PostgreSQL server. Figures: a slot freed on one
// machine reaching the next waiter on another (release → start, through
// NOTIFY), the database's transactions per second while 200 runs wait under a
// full cap of 8, and the cap held across machines (from /proc). Beside them,
// RunCell's published figures for its PostgreSQL limiter (100 ms poll;
// 1,800 tx/s at 200 waiters).

import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { RunEvent } from '../../src/core/types.js';
import { fig, median, pct, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, makeHome, startSupervisor, type Home, type Supervisor } from '../lib/orcr.js';
import { PgServer, pgUnavailable } from '../lib/pg-server.js';
import { sleep } from '../lib/proc.js';

const I = 'C';

interface Machine {
  home: Home;
  sup: Supervisor;
}

async function machines(server: PgServer, name: string, max: number): Promise<Machine[]> {
  const out: Machine[] = [];
  for (const host of ['m1', 'm2', 'm3']) {
    const home = makeHome({ concurrency: { max }, cluster: { url: server.url, name, host, lease_ttl: '30s' } }, 'orcr-bench-cluster-');
    out.push({ home, sup: await startSupervisor(home.dir) });
  }
  return out;
}

async function stopAll(ms: Machine[]): Promise<void> {
  for (const m of ms) {
    await m.sup.stop();
    m.home.remove();
  }
}

/** Runs of these homes alive now, by ORCR_RUN, from /proc. */
function liveRuns(dirs: string[]): number {
  const runs = new Set<string>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const env = fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0');
      const h = env.find((v) => v.startsWith('ORCR_HOME='))?.slice(10);
      const run = env.find((v) => v.startsWith('ORCR_RUN='))?.slice(9);
      if (h && run && dirs.includes(h)) runs.add(run);
    } catch {
      /* gone */
    }
  }
  return runs.size;
}

async function commits(server: PgServer): Promise<number> {
  const c = new pg.Client(server.url);
  await c.connect();
  try {
    const r = await c.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`);
    return Number(r.rows[0]!.n);
  } finally {
    await c.end();
  }
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const why = pgUnavailable();
  if (why) return { figures: [], skipped: [{ item: I, name: 'cluster', reason: why }] };
  const server = await PgServer.start();
  try {
    // 1. 200 waiters under a full cap of 8: what they cost the database, and the cap held.
    const idle = await machines(server, 'idle', 8);
    let txPerSec = NaN;
    let peak = 0;
    try {
      const dirs = idle.map((m) => m.home.dir);
      const go = path.join(dirs[0]!, 'go');
      for (const [i, m] of idle.entries()) {
        const c = await connect(m.home.dir);
        const holders = i === 0 ? 8 : 0;
        const specs = [
          ...Array.from({ length: holders }, () => ({ cwd: '/', command: ['sh', '-c', `while [ ! -f ${go} ]; do sleep 0.2; done`] })),
          ...Array.from({ length: i === 0 ? 66 : 67 }, () => ({ cwd: '/', command: ['true'] })),
        ];
        await c.call('run.enqueue', { specs });
        c.close();
      }
      const deadline = Date.now() + 30_000;
      while (liveRuns(dirs) < 8 && Date.now() < deadline) await sleep(50);
      // Settled: the enqueues and the notices they sent are behind us; what follows is the idle cost.
      await sleep(3000);
      const window = ctx.quick ? 3000 : 10_000;
      const t0 = performance.now();
      const c0 = await commits(server);
      const sampler = setInterval(() => (peak = Math.max(peak, liveRuns(dirs))), 50);
      await sleep(window);
      clearInterval(sampler);
      const c1 = await commits(server);
      // The two stat reads are transactions too.
      txPerSec = (c1 - c0 - 1) / ((performance.now() - t0) / 1000);
      ctx.log(`  200 waiting, 8 working: ${txPerSec.toFixed(1)} tx/s, at most ${peak} runs alive`);
      fs.writeFileSync(go, '');
    } finally {
      await stopAll(idle);
    }

    // 2. A slot freed on one machine, taken on another: cap 1, runs alternating between two machines.
    const pair = await machines(server, 'pair', 1);
    const gaps: number[] = [];
    let peakPair = 0;
    try {
      const n = ctx.quick ? 20 : 100;
      const events: { at: number; host: number; e: RunEvent }[] = [];
      const clients = await Promise.all(pair.map((m) => connect(m.home.dir)));
      clients.forEach((c, host) => {
        c.onEvent((m) => events.push({ at: performance.now(), host, e: m.event }));
      });
      for (const c of clients) await c.call('subscribe', {});
      const dirs = pair.map((m) => m.home.dir);
      const sampler = setInterval(() => (peakPair = Math.max(peakPair, liveRuns(dirs))), 50);
      // Alternate enqueues so that FIFO hands each freed slot to the other machine.
      for (let i = 0; i < n; i++) await clients[i % 2]!.call('run.enqueue', { specs: [{ cwd: '/', command: ['sh', '-c', 'sleep 0.05'] }] });
      const deadline = Date.now() + 120_000;
      while (events.filter((x) => x.e.type === 'ended').length < n && Date.now() < deadline) await sleep(20);
      clearInterval(sampler);
      for (const c of clients) c.close();
      let last: { at: number; host: number } | null = null;
      for (const { at, host, e } of events) {
        if (e.type === 'ended') last = { at, host };
        if (e.type === 'starting' && last && host !== last.host) {
          gaps.push(at - last.at);
          last = null;
        }
      }
      ctx.log(`  cross-machine release → start: median ${median(gaps).toFixed(1)} ms over ${gaps.length}`);
    } finally {
      await stopAll(pair);
    }

    return {
      figures: [
        fig(I, 'cross-machine slot release → start on another machine (median)', 'ms', [median(gaps)], {
          target: '< 20 ms',
          meets: (m) => m < 20,
          ceiling: 200,
          note: 'RunCell (PostgreSQL limiter): polls every 100 ms',
        }),
        fig(I, '  same, p99', 'ms', [pct(gaps, 99)]),
        fig(I, 'database transactions/s while 200 runs wait (3 machines, cap 8 full)', 'tx/s', [txPerSec], {
          target: '< 50',
          meets: (m) => m < 50,
          ceiling: 500,
          note: 'RunCell: 1,800 tx/s at 200 waiters',
        }),
        fig(I, 'runs alive at once across the 3 machines, cap 8 (from /proc)', 'runs', [peak], { target: '= 8', meets: (m) => m === 8 }),
        fig(I, 'runs alive at once across 2 machines, cap 1 (from /proc)', 'runs', [peakPair], { target: '≤ 1', meets: (m) => m <= 1 }),
      ],
      skipped: [],
    };
  } finally {
    await server.destroy();
  }
}

export const cluster: Item = { key: 'cluster', item: 'C', title: 'a fleet across machines (PostgreSQL)', run };
