// C. A fleet across machines: three supervisors (three homes) share one
// cluster in a throw-away PostgreSQL server. Figures: a run queued on an idle
// cluster reaching `starting`, a slot freed on one machine reaching the next
// waiter on another (release → start, through NOTIFY) — directly, and through
// a PgBouncer in transaction mode with and without cluster.listen_url — the
// database's transactions per second while 200 runs wait under a full cap of
// 8 (directly and through the pooler), and the cap held across machines
// (from /proc). Beside them, RunCell's published figures for its PostgreSQL
// limiter (100 ms poll; 1,800 tx/s at 200 waiters).

import fs from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../../src/core/events.js';
import { fig, median, pct, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, makeHome, startSupervisor, type Home, type Supervisor } from '../lib/orcr.js';
import { PgServer, pgSource, pgUnavailable } from '../lib/pg-server.js';
import { PgBouncer, pgBouncerUnavailable } from '../lib/pgbouncer.js';
import { sleep } from '../lib/proc.js';

const I = 'C';

interface Machine {
  home: Home;
  sup: Supervisor;
}

async function machines(url: string, name: string, max: number, extra: Record<string, unknown> = {}, hosts = ['m1', 'm2', 'm3']): Promise<Machine[]> {
  const out: Machine[] = [];
  for (const host of hosts) {
    const home = makeHome({ concurrency: { max }, cluster: { url, name, host, lease_ttl: '30s', ...extra } }, 'orcr-bench-cluster-');
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

/** 200 waiters under a full cap of 8 on three machines: the database's transactions per second meanwhile, and the most runs alive at once. */
async function waitersLoad(ctx: Ctx, server: PgServer, url: string, name: string): Promise<{ txPerSec: number; peak: number }> {
  const idle = await machines(url, name, 8);
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
    const c0 = await server.transactions();
    const sampler = setInterval(() => (peak = Math.max(peak, liveRuns(dirs))), 50);
    await sleep(window);
    clearInterval(sampler);
    const c1 = await server.transactions();
    // The two stat reads are transactions too.
    txPerSec = (c1 - c0 - 1) / ((performance.now() - t0) / 1000);
    ctx.log(`  ${name}: 200 waiting, 8 working: ${txPerSec.toFixed(1)} tx/s, at most ${peak} runs alive`);
    fs.writeFileSync(go, '');
  } finally {
    await stopAll(idle);
  }
  return { txPerSec, peak };
}

/** A cap of 1 and short runs enqueued alternately on two machines, so FIFO hands each freed slot to the other: ended on one → starting on the other. */
async function crossMachine(ctx: Ctx, url: string, name: string, n: number, extra: Record<string, unknown> = {}): Promise<{ gaps: number[]; peak: number }> {
  const pair = await machines(url, name, 1, extra, ['m1', 'm2']);
  const gaps: number[] = [];
  let peak = 0;
  try {
    const events: { at: number; host: number; e: RunEvent }[] = [];
    const clients = await Promise.all(pair.map((m) => connect(m.home.dir)));
    clients.forEach((c, host) => {
      c.onEvent((m) => events.push({ at: performance.now(), host, e: m.event }));
    });
    for (const c of clients) await c.call('subscribe', {});
    const dirs = pair.map((m) => m.home.dir);
    const sampler = setInterval(() => (peak = Math.max(peak, liveRuns(dirs))), 50);
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
    ctx.log(`  ${name}: cross-machine release → start: median ${median(gaps).toFixed(1)} ms over ${gaps.length}`);
  } finally {
    await stopAll(pair);
  }
  return { gaps, peak };
}

/** An idle cluster of two machines: runs queued one at a time, each from its enqueue's reply to its `starting` event. */
async function idleStart(ctx: Ctx, url: string, n: number): Promise<number[]> {
  const pair = await machines(url, 'idle-start', 8, {}, ['m1', 'm2']);
  const lat: number[] = [];
  try {
    const c = await connect(pair[0]!.home.dir);
    const started = new Map<string, number>();
    c.onEvent((m) => {
      if (m.event.type === 'starting' && m.event.run) started.set(m.event.run, performance.now());
    });
    await c.call('subscribe', {});
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const res = (await c.call('run.enqueue', { specs: [{ cwd: '/', command: ['true'] }] })) as { runs: { uuid: string }[] };
      const uuid = res.runs[0]!.uuid;
      const deadline = Date.now() + 30_000;
      while (!started.has(uuid) && Date.now() < deadline) await sleep(1);
      lat.push((started.get(uuid) ?? NaN) - t0);
      // Let it end: the next one finds the cluster idle again.
      await sleep(50);
    }
    c.close();
    ctx.log(`  idle cluster queued → starting: p50 ${median(lat).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms over ${lat.length}`);
  } finally {
    await stopAll(pair);
  }
  return lat;
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const why = pgUnavailable();
  if (why) return { figures: [], skipped: [{ item: I, name: 'cluster', reason: why }] };
  const server = await PgServer.start();
  ctx.log(`  on ${pgSource()?.label ?? 'PostgreSQL'}`);
  const whyPooler = pgBouncerUnavailable();
  const bouncer = whyPooler ? null : await PgBouncer.start(server);
  try {
    const n = ctx.quick ? 20 : 100;
    const start = await idleStart(ctx, server.url, ctx.quick ? 20 : 100);
    const direct = await waitersLoad(ctx, server, server.url, 'idle');
    const pair = await crossMachine(ctx, server.url, 'pair', n);
    const pooled = bouncer ? await crossMachine(ctx, bouncer.url, 'pooled', n) : null;
    const pooledListen = bouncer ? await crossMachine(ctx, bouncer.url, 'pooled-listen', n, { listen_url: server.url }) : null;
    const pooledLoad = bouncer ? await waitersLoad(ctx, server, bouncer.url, 'pooled-idle') : null;
    const figures = [
      fig(I, 'idle cluster: queued → starting (median)', 'ms', [median(start)], { target: '< 20 ms', meets: (m) => m < 20, ceiling: 500 }),
      fig(I, '  same, p99', 'ms', [pct(start, 99)], { target: '< 100 ms', meets: (m) => m < 100 }),
      fig(I, 'cross-machine slot release → start on another machine (median)', 'ms', [median(pair.gaps)], {
        target: '< 20 ms',
        meets: (m) => m < 20,
        ceiling: 200,
        note: 'RunCell (PostgreSQL limiter): polls every 100 ms',
      }),
      fig(I, '  same, p99', 'ms', [pct(pair.gaps, 99)]),
      fig(I, 'database transactions/s while 200 runs wait (3 machines, cap 8 full)', 'tx/s', [direct.txPerSec], {
        target: '< 50',
        meets: (m) => m < 50,
        ceiling: 500,
        note: 'RunCell: 1,800 tx/s at 200 waiters',
      }),
      fig(I, 'runs alive at once across the 3 machines, cap 8 (from /proc)', 'runs', [direct.peak], { target: '= 8', meets: (m) => m === 8 }),
      fig(I, 'runs alive at once across 2 machines, cap 1 (from /proc)', 'runs', [Math.max(pair.peak, pooled?.peak ?? 0, pooledListen?.peak ?? 0)], {
        target: '≤ 1',
        meets: (m) => m <= 1,
      }),
    ];
    if (pooled && pooledListen && pooledLoad) {
      figures.push(
        fig(I, 'through PgBouncer (transaction mode): release → start on another machine (median)', 'ms', [median(pooled.gaps)], {
          target: '< 300 ms',
          meets: (m) => m < 300,
          ceiling: 5000,
          note: 'notifications do not pass the pooler: the 250 ms change poll',
        }),
        fig(I, '  same, with cluster.listen_url (median)', 'ms', [median(pooledListen.gaps)], { target: '< 20 ms', meets: (m) => m < 20, ceiling: 200 }),
        fig(I, '  database transactions/s while 200 runs wait, through PgBouncer', 'tx/s', [pooledLoad.txPerSec], {
          target: '< 50',
          meets: (m) => m < 50,
          ceiling: 500,
        }),
      );
    }
    return { figures, skipped: whyPooler ? [{ item: I, name: 'cluster through PgBouncer', reason: whyPooler }] : [] };
  } finally {
    await bouncer?.stop();
    await server.destroy();
  }
}

export const cluster: Item = { key: 'cluster', item: 'C', title: 'a fleet across machines (PostgreSQL)', run };
