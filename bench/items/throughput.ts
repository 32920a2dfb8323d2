// 1. Job throughput through a cap: N jobs of `true` through a cap of 8.
// orcr (`orcr run --from -` then `orcr wait --all`, timed from the first CLI
// invocation to the second's exit, fresh home, supervisor already running)
// beside `xargs -P 8` (the floor: fork+exec and nothing else) and GNU
// `parallel -j 8`, interleaved in the same run so the ratios compare like with like.

import fs from 'node:fs';
import path from 'node:path';
import { fig, median, type Figure, type ItemResult, type Skipped } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { benchTmp, homeEnv, orcrCmd, q, withOrcr } from '../lib/orcr.js';
import { fsType, hwmKb, timedShell } from '../lib/proc.js';
import { ensureParallel } from '../lib/tools.js';

const CAP = 8;

/**
 * What the file system charges for the files orcr makes per run (the run
 * directory, out, err, status): mkdir + 3 creates, ms per run, on `base`.
 */
function metadataCost(base: string, n = 200): number {
  const dir = fs.mkdtempSync(path.join(base, 'orcr-bench-fs-'));
  try {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const d = path.join(dir, String(i));
      fs.mkdirSync(d, { mode: 0o700 });
      for (const f of ['out', 'err', 'status']) fs.closeSync(fs.openSync(path.join(d, f), 'a', 0o600));
    }
    return (performance.now() - t0) / n;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const jobs = ctx.quick ? 200 : 1000;
  const reps = ctx.quick ? 2 : 5;
  const label = `${jobs.toLocaleString('en-US')} × true, cap ${CAP}`;
  const skipped: Skipped[] = [];
  const par = ensureParallel(!ctx.quick, ctx.log);
  if (!par.ok) skipped.push({ item: '1', name: `${label}: GNU parallel -j ${CAP}`, reason: par.reason });
  const xargsMs: number[] = [];
  const parallelMs: number[] = [];
  // orcr with its home where the bench makes homes (the OS temp dir unless
  // ORCR_BENCH_TMP), and (full form) again on tmpfs when that is another file system:
  // orcr creates a few files per run, and on some disks that is most of its cost.
  const places: { base: string; label: string }[] = [{ base: benchTmp(), label: `home on ${fsType(benchTmp())}` }];
  if (!ctx.quick && fsType(benchTmp()) !== 'tmpfs' && fs.existsSync('/dev/shm') && fsType('/dev/shm') === 'tmpfs')
    places.push({ base: '/dev/shm', label: 'home on tmpfs' });
  const orcrMs = places.map(() => [] as number[]);
  const enqueueMs = places.map(() => [] as number[]);
  const peakMb = places.map(() => [] as number[]);
  const fsMs = places.map(() => [] as number[]);
  const specs = Array.from({ length: jobs }, () => JSON.stringify({ command: ['true'] })).join('\n') + '\n';

  for (let r = 0; r < reps; r++) {
    const x = await timedShell(`seq ${jobs} | xargs -P ${CAP} -n 1 true`, { timeoutMs: 120_000 });
    if (x.code !== 0) throw new Error(`xargs failed: ${x.stderr}`);
    xargsMs.push(x.ms);
    if (par.ok) {
      const p = await timedShell(`seq ${jobs} | ${q(par.path)} --will-cite -j ${CAP} true`, { timeoutMs: 300_000 });
      if (p.code !== 0) throw new Error(`parallel failed: ${p.stderr}`);
      parallelMs.push(p.ms);
    }
    for (let k = 0; k < places.length; k++) {
      fsMs[k]!.push(metadataCost(places[k]!.base));
      await withOrcr(
        { concurrency: { max: CAP } },
        async (dir, sup) => {
          const file = path.join(dir, 'specs.jsonl');
          fs.writeFileSync(file, specs);
          const env = homeEnv(dir);
          const t0 = performance.now();
          const a = await timedShell(`${orcrCmd} run --from - < ${q(file)} > /dev/null`, { env, cwd: dir, timeoutMs: 120_000 });
          if (a.code !== 0) throw new Error(`orcr run --from failed (${a.code}): ${a.stderr}`);
          const b = await timedShell(`${orcrCmd} wait --all --timeout 300s > /dev/null`, { env, cwd: dir, timeoutMs: 330_000 });
          const total = performance.now() - t0;
          if (b.code !== 0) throw new Error(`orcr wait --all exited ${b.code} (a job did not complete): ${b.stderr}`);
          enqueueMs[k]!.push(a.ms);
          orcrMs[k]!.push(total);
          peakMb[k]!.push(hwmKb(sup.pid) / 1024);
        },
        { base: places[k]!.base },
      );
    }
    ctx.log(
      `  rep ${r + 1}/${reps}: xargs ${xargsMs.at(-1)!.toFixed(0)} ms, parallel ${parallelMs.at(-1)?.toFixed(0) ?? '-'} ms, ${places.map((p, k) => `orcr (${p.label}) ${orcrMs[k]!.at(-1)!.toFixed(0)} ms`).join(', ')}`,
    );
  }

  const figures: Figure[] = [];
  const I = '1';
  figures.push(fig(I, `${label}: xargs -P ${CAP} (the floor)`, 'ms', xargsMs));
  if (par.ok) figures.push(fig(I, `${label}: GNU parallel -j ${CAP}`, 'ms', parallelMs, { note: par.version }));
  places.forEach((place, k) => {
    const o = orcrMs[k]!;
    const tag = k === 0 ? '' : ` (${place.label})`;
    figures.push(
      fig(I, `${label}: orcr run --from - + wait --all, ${place.label}`, 'ms', o, { ceiling: k === 0 ? 10 * (jobs * 3 + median(xargsMs)) : undefined }),
    );
    figures.push(fig(I, `  of which orcr run --from - (enqueue ${jobs})`, 'ms', enqueueMs[k]!));
    figures.push(fig(I, `  supervisor peak RSS (VmHWM)`, 'MB', peakMb[k]!));
    figures.push(fig(I, `  ${place.label}: mkdir + 3 file creates (a run's files)`, 'ms', fsMs[k]!));
    figures.push(
      fig(
        I,
        `orcr overhead per job beyond xargs${tag}`,
        'ms',
        o.map((v, i) => (v - xargsMs[i]!) / jobs),
        {
          target: '≤ 3 ms',
          meets: (m) => m <= 3,
          ceiling: k === 0 ? 30 : undefined,
        },
      ),
    );
    figures.push(
      fig(
        I,
        `ratio orcr / xargs${tag}`,
        '×',
        o.map((v, i) => v / xargsMs[i]!),
      ),
    );
    if (par.ok)
      figures.push(
        fig(
          I,
          `ratio orcr / GNU parallel${tag}`,
          '×',
          o.map((v, i) => v / parallelMs[i]!),
        ),
      );
  });
  return { figures, skipped };
}

export const throughput: Item = { key: 'throughput', item: '1', title: 'job throughput through a cap', run };
