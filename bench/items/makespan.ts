// 2. Makespan: N jobs of `sleep 0.5` through a cap of 8, against the ideal
// N / 8 × 0.5 s. Timed from the `orcr run --from -` invocation to `orcr wait
// --all` returning. The gaps between a slot's release and the next start are
// read from the event stream of a subscribed client: each `ended` (the slot is
// free) is paired FIFO with the next `working` (the next agent is spawned).

import fs from 'node:fs';
import path from 'node:path';
import { fig, pct, median, type Figure, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, homeEnv, orcrCmd, q, withOrcr } from '../lib/orcr.js';
import { timedShell } from '../lib/proc.js';

const CAP = 8;
const SLEEP_S = 0.5;

async function run(ctx: Ctx): Promise<ItemResult> {
  const jobs = ctx.quick ? 48 : 200;
  const reps = ctx.quick ? 1 : 3;
  const ideal = (jobs / CAP) * SLEEP_S * 1000;
  const spans: number[] = [];
  const gapMedians: number[] = [];
  const gapP99s: number[] = [];
  const specs = Array.from({ length: jobs }, () => JSON.stringify({ command: ['sleep', String(SLEEP_S)] })).join('\n') + '\n';
  for (let r = 0; r < reps; r++) {
    await withOrcr({ concurrency: { max: CAP } }, async (dir) => {
      const file = path.join(dir, 'specs.jsonl');
      fs.writeFileSync(file, specs);
      const client = await connect(dir);
      const ends: number[] = [];
      const gaps: number[] = [];
      let starts = 0;
      client.onEvent((m) => {
        const at = performance.now();
        if (m.event.type === 'ended') ends.push(at);
        else if (m.event.type === 'working' && m.event.data.from === 'starting') {
          starts++;
          if (starts > CAP && ends.length > 0) gaps.push(at - ends.shift()!);
        }
      });
      await client.call('subscribe', {});
      const env = homeEnv(dir);
      const t0 = performance.now();
      const a = await timedShell(`${orcrCmd} run --from - < ${q(file)} > /dev/null`, { env, cwd: dir, timeoutMs: 60_000 });
      if (a.code !== 0) throw new Error(`orcr run --from failed: ${a.stderr}`);
      const b = await timedShell(`${orcrCmd} wait --all --timeout 600s > /dev/null`, { env, cwd: dir, timeoutMs: 630_000 });
      const span = performance.now() - t0;
      client.close();
      if (b.code !== 0) throw new Error(`orcr wait --all exited ${b.code}: ${b.stderr}`);
      spans.push(span);
      gapMedians.push(median(gaps));
      gapP99s.push(pct(gaps, 99));
      ctx.log(`  rep ${r + 1}/${reps}: makespan ${span.toFixed(0)} ms (ideal ${ideal.toFixed(0)}), ${gaps.length} gaps, median ${median(gaps).toFixed(2)} ms`);
    });
  }
  const I = '2';
  const label = `${jobs} × sleep ${SLEEP_S}, cap ${CAP}`;
  const figures: Figure[] = [
    fig(I, `${label}: ideal (${jobs}/${CAP} × ${SLEEP_S} s)`, 'ms', [ideal]),
    fig(I, `${label}: orcr makespan`, 'ms', spans),
    fig(
      I,
      `makespan / ideal`,
      '×',
      spans.map((s) => s / ideal),
      { target: '≤ 1.05', meets: (m) => m <= 1.05, ceiling: 1.5 },
    ),
    fig(I, `slot release → next start (median of each run)`, 'ms', gapMedians, { ceiling: 100 }),
    fig(I, `slot release → next start (p99 of each run)`, 'ms', gapP99s),
  ];
  return { figures, skipped: [] };
}

export const makespan: Item = { key: 'makespan', item: '2', title: 'makespan', run };
