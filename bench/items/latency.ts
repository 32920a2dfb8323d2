// Latencies through a real supervisor (kept from the first bench): enqueue →
// spawn with free slots, and release → next spawn under a cap of 1, seen by a
// subscribed client.

import type { RunEvent } from '../../src/core/events.js';
import { fig, median, pct, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, withOrcr } from '../lib/orcr.js';
import { sleep } from '../lib/proc.js';

async function run(ctx: Ctx): Promise<ItemResult> {
  const n = ctx.quick ? 100 : 500;
  const enqueueToSpawn = await withOrcr({ concurrency: { max: 25 } }, async (dir) => {
    const client = await connect(dir);
    const lat: number[] = [];
    const spawned = new Map<string, number>();
    client.onEvent((m) => {
      if (m.event.type === 'working' && m.event.run) spawned.set(m.event.run, performance.now());
    });
    await client.call('subscribe', {});
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const res = await client.call('run.enqueue', { specs: [{ cwd: '/', command: ['true'] }] });
      const uuid = res.runs[0]!.uuid;
      while (!spawned.has(uuid)) await new Promise((r) => setImmediate(r));
      lat.push(spawned.get(uuid)! - t0);
    }
    client.close();
    return lat;
  });
  const releaseToSpawn = await withOrcr({ concurrency: { max: 1 } }, async (dir) => {
    const client = await connect(dir);
    const events: { e: RunEvent; at: number }[] = [];
    client.onEvent((m) => events.push({ e: m.event, at: performance.now() }));
    await client.call('subscribe', {});
    const specs = Array.from({ length: n }, () => ({ cwd: '/', command: ['true'] }));
    await client.call('run.enqueue', { specs });
    await client.call('run.wait', { all: true });
    while (events.filter((x) => x.e.type === 'ended').length < n) await sleep(5);
    client.close();
    const gaps: number[] = [];
    let lastEnd: number | null = null;
    for (const { e, at } of events) {
      if (e.type === 'ended') lastEnd = at;
      if (e.type === 'working' && lastEnd !== null) {
        gaps.push(at - lastEnd);
        lastEnd = null;
      }
    }
    return gaps;
  });
  const I = 'L';
  return {
    figures: [
      fig(I, `enqueue → spawn (median of ${n})`, 'ms', [median(enqueueToSpawn)], { ceiling: 50 }),
      fig(I, `enqueue → spawn (p99)`, 'ms', [pct(enqueueToSpawn, 99)]),
      fig(I, `release → next spawn, cap 1 (median of ${n})`, 'ms', [median(releaseToSpawn)], { target: '< 5 ms', meets: (m) => m < 5, ceiling: 50 }),
      fig(I, `release → next spawn (p99)`, 'ms', [pct(releaseToSpawn, 99)]),
    ],
    skipped: [],
  };
}

export const latency: Item = { key: 'latency', item: 'L', title: 'spawn latencies', run };
