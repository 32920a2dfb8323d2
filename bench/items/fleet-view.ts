// V. One fleet, one view (issue 43): what publishing its runs into the
// cluster's fleet view costs a busy machine's database, and how soon a change
// on one machine is seen on another. One machine with 200 working runs, each
// a perl one-liner of orcr's jsonl protocol printing a usage report a second
// (200 journal events a second in all, each marking its run for the next
// flush): the database's committed transactions per second over a window
// (`pg_stat_database`: every write of the machine's, the view's flushes, the
// fleet usage's batches, the heartbeat), and of them the publisher's flushes
// (each one transaction; `cluster.runs` says how many it committed). Then a
// second machine, and short runs on the
// busy one while the 200 go on: each run's `ended` event, heard by a
// subscribed client, to the second machine's `cluster.runs` (polled every
// 10 ms over its socket) listing it ended.

import { fig, median, pct, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, makeHome, startSupervisor, type Home, type Supervisor } from '../lib/orcr.js';
import { PgServer, pgSource, pgUnavailable } from '../lib/pg-server.js';
import { sleep } from '../lib/proc.js';

const I = 'V';
const RUNS = 200;

interface Machine {
  home: Home;
  sup: Supervisor;
}

async function machine(url: string, host: string): Promise<Machine> {
  const home = makeHome({ concurrency: { max: RUNS + 50 }, cluster: { url, name: 'fleet-view', host, lease_ttl: '30s' } }, 'orcr-bench-view-');
  return { home, sup: await startSupervisor(home.dir) };
}

async function stop(ms: Machine[]): Promise<void> {
  for (const m of ms) {
    await m.sup.stop();
    m.home.remove();
  }
}

/** A jsonl agent that reports usage once a second (a journal event each), from a random point in its first second on. */
const CHATTY = `$|=1; select(undef,undef,undef,rand()); print qq({"type":"turn_start"}\\n); while (1) { print qq({"type":"usage","input_tokens":10,"output_tokens":5}\\n); select(undef,undef,undef,1) }`;

interface Load {
  flushesPerSec: number;
  txPerSec: number;
  eventsPerSec: number;
}

/** The busy machine's publisher's flushes so far (cluster.runs says; the read is one transaction). */
async function flushes(c: Awaited<ReturnType<typeof connect>>): Promise<number> {
  const v = (await c.call('cluster.runs', { host: 'busy' })) as { publishing: { flushes: number } | null };
  return v.publishing?.flushes ?? NaN;
}

/** 200 chatty runs working on the busy machine; its flushes, the journal's events and the database's transactions per second over the window. */
async function load(ctx: Ctx, server: PgServer, busy: Machine): Promise<Load> {
  const c = await connect(busy.home.dir);
  try {
    const specs = Array.from({ length: RUNS }, (_, i) => ({ cwd: '/', name: `chatty-${i}`, protocol: 'jsonl' as const, command: ['perl', '-e', CHATTY] }));
    await c.call('run.enqueue', { specs });
    const deadline = Date.now() + 60_000;
    for (;;) {
      const page = (await c.call('run.list', { status: 'working', limit: 1000 })) as { runs: unknown[] };
      if (page.runs.length >= RUNS || Date.now() > deadline) break;
      await sleep(200);
    }
    // Settled: the starts and their flushes are behind us; what follows is the steady cost.
    await sleep(3000);
    const window = ctx.quick ? 4000 : 10_000;
    const t0 = performance.now();
    const c0 = await server.transactions();
    const f0 = await flushes(c);
    const e0 = await lastSeq(c, 0);
    await sleep(window);
    const e1 = await lastSeq(c, e0);
    const f1 = await flushes(c);
    const c1 = await server.transactions();
    const secs = (performance.now() - t0) / 1000;
    // The two stat reads and the two flush counts' reads are transactions too.
    const txPerSec = (c1 - c0 - 3) / secs;
    const eventsPerSec = (e1 - e0) / secs;
    const flushesPerSec = (f1 - f0) / secs;
    ctx.log(
      `  ${RUNS} runs working: ${eventsPerSec.toFixed(0)} journal events/s, ${flushesPerSec.toFixed(1)} publishing transactions/s, ${txPerSec.toFixed(1)} database transactions/s in all`,
    );
    return { flushesPerSec, txPerSec, eventsPerSec };
  } finally {
    c.close();
  }
}

/** The journal's last event seq, paged from `since`. */
async function lastSeq(c: Awaited<ReturnType<typeof connect>>, from: number): Promise<number> {
  let since = from;
  for (;;) {
    const page = (await c.call('events', { since, limit: 10_000 })) as { events: { seq: number }[] };
    if (page.events.length === 0) return since;
    since = page.events[page.events.length - 1]!.seq;
  }
}

/** Short runs on the busy machine: ended there → listed ended by the other machine's cluster.runs. */
async function visible(ctx: Ctx, busy: Machine, other: Machine, n: number): Promise<number[]> {
  const here = await connect(busy.home.dir);
  const there = await connect(other.home.dir);
  const ended = new Map<string, number>();
  here.onEvent((m) => {
    if (m.event.type === 'ended' && m.event.run) ended.set(m.event.run, performance.now());
  });
  await here.call('subscribe', {});
  const lat: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const res = (await here.call('run.enqueue', { specs: [{ cwd: '/', name: `short-${i}`, command: ['sh', '-c', 'sleep 0.05'] }] })) as {
        runs: { uuid: string }[];
      };
      const uuid = res.runs[0]!.uuid;
      const deadline = Date.now() + 30_000;
      for (;;) {
        const v = (await there.call('cluster.runs', { all: true, host: 'busy' })) as { runs: { uuid: string; status: string }[] };
        const seenAt = performance.now();
        if (v.runs.some((r) => r.uuid === uuid && r.status === 'ended') && ended.has(uuid)) {
          lat.push(seenAt - ended.get(uuid)!);
          break;
        }
        if (Date.now() > deadline) {
          lat.push(NaN);
          break;
        }
        await sleep(10);
      }
    }
  } finally {
    here.close();
    there.close();
  }
  ctx.log(`  ended on one machine → listed on another: p50 ${median(lat).toFixed(0)} ms, p99 ${pct(lat, 99).toFixed(0)} ms over ${lat.length}`);
  return lat;
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const why = pgUnavailable();
  if (why) return { figures: [], skipped: [{ item: I, name: 'fleet view', reason: why }] };
  const server = await PgServer.start();
  ctx.log(`  on ${pgSource()?.label ?? 'PostgreSQL'}`);
  const ms: Machine[] = [];
  try {
    const busy = await machine(server.url, 'busy');
    ms.push(busy);
    const l = await load(ctx, server, busy);
    const other = await machine(server.url, 'other');
    ms.push(other);
    // Seen from another machine while the 200 runs go on.
    const lat = await visible(ctx, busy, other, ctx.quick ? 20 : 100);
    return {
      figures: [
        fig(I, `the database's transactions/s, a machine with ${RUNS} working runs (${Math.round(l.eventsPerSec)} journal events/s)`, 'tx/s', [l.txPerSec], {
          target: '< 20',
          meets: (m) => m < 20,
          ceiling: 2000,
          note: "every transaction the server committed: the view's flushes, the fleet usage's batches (pg-usage), heartbeats, the limiter's reads",
        }),
        fig(I, "  of which the fleet view's flushes", 'tx/s', [l.flushesPerSec], { ceiling: 200 }),
        fig(I, 'a run ended on the busy machine → listed ended on another (median)', 'ms', [median(lat)], {
          target: '< 250 ms',
          meets: (m) => m < 250,
          ceiling: 2500,
        }),
        fig(I, '  same, p99', 'ms', [pct(lat, 99)], { target: '< 1 s', meets: (m) => m < 1000, ceiling: 10_000 }),
      ],
      skipped: [],
    };
  } finally {
    await stop(ms);
    await server.destroy();
  }
}

export const fleetView: Item = { key: 'fleet', item: 'V', title: 'one fleet, one view (publishing and reading across machines)', run };
