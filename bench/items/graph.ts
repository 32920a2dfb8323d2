// G. Runs that wait for runs (`run --after`): a waiting graph costs admission
// nothing, and a chain's links follow each other at a steady pace.
//
//  - Flat runs beside a waiting graph: F runs of `true` through a cap of 8,
//    timed from `orcr run --from -` to `orcr wait` on them, first alone, then
//    with a graph of 2N + 1 dependents waiting (a chain of N after a gate run,
//    N runs after the gate and one run after all N: a fan-in). Both with the
//    gate holding one slot. The ratio is the graph's cost to admission: the
//    dependents stand in no queue while they wait.
//  - The chain: once the gate ends, its N links run one after the other;
//    milliseconds per link, for N and for N / 10 (the ratio says whether a
//    link costs more in a longer chain).
//  - The fan-in: N inputs through the cap, then the one that waits for all.

import fs from 'node:fs';
import path from 'node:path';
import { fig, type Figure, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { homeEnv, orcrCmd, q, withOrcr } from '../lib/orcr.js';
import { timedShell } from '../lib/proc.js';

const CAP = 8;

const line = (o: object): string => JSON.stringify(o);

/** `orcr run --from FILE`, then `orcr wait` on NAMES (by a file of names: thousands do not fit a command line). */
async function runAndWait(dir: string, specs: string[], names: string[] | null): Promise<number> {
  const file = path.join(dir, `specs-${Math.random().toString(36).slice(2)}.jsonl`);
  fs.writeFileSync(file, specs.join('\n') + '\n');
  const env = homeEnv(dir);
  const t0 = performance.now();
  const a = await timedShell(`${orcrCmd} run --from - < ${q(file)} > /dev/null`, { env, cwd: dir, timeoutMs: 120_000 });
  if (a.code !== 0) throw new Error(`orcr run --from failed: ${a.stderr}`);
  if (names !== null) {
    const b = await timedShell(`${orcrCmd} wait ${names.map(q).join(' ')} --timeout 600s > /dev/null`, { env, cwd: dir, timeoutMs: 630_000 });
    if (b.code !== 0) throw new Error(`orcr wait exited ${b.code}: ${b.stderr}`);
  }
  return performance.now() - t0;
}

/** The gate: a run that holds its slot until `go` appears in the home. */
const gate = (dir: string, name: string): string =>
  line({ name, cwd: dir, command: ['sh', '-c', `while [ ! -f ${q(path.join(dir, 'go-' + name))} ]; do sleep 0.02; done`] });

async function flatSpan(dir: string, tag: string, f: number): Promise<number> {
  const names = Array.from({ length: f }, (_, i) => `${tag}-run-${i}`);
  return runAndWait(
    dir,
    names.map((name) => line({ name, cwd: dir, command: ['true'] })),
    names,
  );
}

/** A chain of n after its own gate: ms per link, from the gate's release to the last link's end. */
async function chainPace(dir: string, tag: string, n: number): Promise<number> {
  const specs = [
    gate(dir, `${tag}-gate`),
    ...Array.from({ length: n }, (_, i) =>
      line({ name: `${tag}-link-${i}`, after: [i === 0 ? `${tag}-gate` : `${tag}-link-${i - 1}`], cwd: dir, command: ['true'] }),
    ),
  ];
  await runAndWait(dir, specs, null);
  const t0 = performance.now();
  fs.writeFileSync(path.join(dir, `go-${tag}-gate`), '');
  const b = await timedShell(`${orcrCmd} wait ${q(`${tag}-link-${n - 1}`)} --timeout 600s > /dev/null`, { env: homeEnv(dir), cwd: dir, timeoutMs: 630_000 });
  if (b.code !== 0) throw new Error(`orcr wait exited ${b.code}: ${b.stderr}`);
  return (performance.now() - t0) / n;
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const n = ctx.quick ? 100 : 1000;
  const flat = ctx.quick ? 48 : 200;
  const reps = ctx.quick ? 1 : 3;
  const alone: number[] = [];
  const beside: number[] = [];
  const ratios: number[] = [];
  const pace: number[] = [];
  const paceShort: number[] = [];
  const fanIn: number[] = [];
  for (let r = 0; r < reps; r++) {
    await withOrcr({ concurrency: { max: CAP } }, async (dir) => {
      await runAndWait(dir, [gate(dir, 'gate')], null);
      const a = await flatSpan(dir, `alone${r}`, flat);
      // The graph: a chain of n and a fan-in of n, all waiting on the gate.
      const graph = [
        ...Array.from({ length: n }, (_, i) => line({ name: `chain-${i}`, after: [i === 0 ? 'gate' : `chain-${i - 1}`], cwd: dir, command: ['true'] })),
        ...Array.from({ length: n }, (_, i) => line({ name: `fan-${i}`, after: ['gate'], cwd: dir, command: ['true'] })),
        line({ name: 'all', after: Array.from({ length: n }, (_, i) => `fan-${i}`), cwd: dir, command: ['true'] }),
      ];
      await runAndWait(dir, graph, null);
      const b = await flatSpan(dir, `beside${r}`, flat);
      alone.push(a / flat);
      beside.push(b / flat);
      ratios.push(b / a);
      // Let the graph go: the chain and the fan-in run together through the cap.
      const t0 = performance.now();
      fs.writeFileSync(path.join(dir, 'go-gate'), '');
      const w = await timedShell(`${orcrCmd} wait all chain-${n - 1} --timeout 600s > /dev/null`, { env: homeEnv(dir), cwd: dir, timeoutMs: 630_000 });
      if (w.code !== 0) throw new Error(`orcr wait exited ${w.code}: ${w.stderr}`);
      fanIn.push(performance.now() - t0);
      ctx.log(
        `  rep ${r + 1}/${reps}: ${flat} flat runs ${a.toFixed(0)} ms alone, ${b.toFixed(0)} ms beside ${2 * n + 1} waiting dependents; the graph ran in ${(performance.now() - t0).toFixed(0)} ms`,
      );
    });
    await withOrcr({ concurrency: { max: CAP } }, async (dir) => {
      pace.push(await chainPace(dir, 'long', n));
      paceShort.push(await chainPace(dir, 'short', Math.max(10, n / 10)));
      ctx.log(`  rep ${r + 1}/${reps}: chain of ${n}: ${pace.at(-1)!.toFixed(1)} ms a link; of ${Math.max(10, n / 10)}: ${paceShort.at(-1)!.toFixed(1)} ms`);
    });
  }
  const I = 'G';
  const figures: Figure[] = [
    fig(I, `${flat} flat runs, cap ${CAP}: ms a run, alone`, 'ms', alone),
    fig(I, `the same beside ${2 * n + 1} waiting dependents`, 'ms', beside),
    fig(I, `beside a waiting graph / alone`, '×', ratios, { target: '≤ 1.1', meets: (m) => m <= 1.1, ceiling: 2 }),
    fig(I, `a chain of ${n}: ms a link (its input's end → its own end)`, 'ms', pace),
    fig(
      I,
      `a chain of ${n} / of ${Math.max(10, n / 10)}: ms a link`,
      '×',
      pace.map((p, i) => p / paceShort[i]!),
      { target: '≤ 1.2', meets: (m) => m <= 1.2, ceiling: 3 },
    ),
    fig(I, `the graph let go: chain of ${n} and fan-in of ${n} → 1, to the end of both`, 'ms', fanIn),
  ];
  return { figures, skipped: [] };
}

export const graph: Item = { key: 'graph', item: 'G', title: 'runs that wait for runs', run };
