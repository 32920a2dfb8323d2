// `npm run bench [-- --quick] [-- --only KEY,KEY] [-- --md]`: orcr beside the
// tools a user would otherwise pick, in the same run on the same machine.
// Prints a table and writes bench/results.json. Each figure is the median of
// repeated runs with its min–max; targets are printed beside the figures and
// never fail the run. The quick form (CI) fails only when a figure is off by
// an order of magnitude (its floor or ceiling). See bench/README.md.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markdownTable, textTable, type Figure, type Skipped } from './lib/figures.js';
import type { Ctx, Item } from './lib/context.js';
import { root } from './lib/orcr.js';
import { runCleanups } from './lib/proc.js';
import { throughput } from './items/throughput.js';
import { makespan } from './items/makespan.js';
import { admission } from './items/admission.js';
import { journal } from './items/journal.js';
import { footprint } from './items/footprint.js';
import { recovery } from './items/recovery.js';
import { tui } from './items/tui.js';
import { latency } from './items/latency.js';
import { cluster } from './items/cluster.js';
import { retention } from './items/retention.js';
import { scale } from './items/scale.js';
import { graph } from './items/graph.js';
import { approvals } from './items/approvals.js';
import { adapters } from './items/adapters.js';
import { fleetView } from './items/fleet-view.js';
import { fleetCommands } from './items/fleet-commands.js';

const ITEMS: Item[] = [
  throughput,
  makespan,
  admission,
  journal,
  footprint,
  recovery,
  tui,
  latency,
  cluster,
  retention,
  scale,
  graph,
  approvals,
  adapters,
  fleetView,
  fleetCommands,
];

function parseFlags(argv: string[]): { quick: boolean; md: boolean; only: Set<string> | null } {
  const quick = argv.includes('--quick');
  const md = argv.includes('--md');
  let only: Set<string> | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = a.startsWith('--only=') ? a.slice(7) : a === '--only' ? argv[i + 1] : undefined;
    if (v !== undefined)
      only = new Set(
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      );
  }
  if (only) {
    const known = new Set(ITEMS.flatMap((i) => [i.key, i.item]));
    for (const k of only) if (!known.has(k)) throw new Error(`--only: unknown item "${k}" (have ${ITEMS.map((i) => i.key).join(', ')})`);
  }
  return { quick, md, only };
}

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2));
  const t0 = performance.now();
  const ctx: Ctx = {
    quick: flags.quick,
    log: (m) => process.stderr.write(`[${((performance.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${m}\n`),
  };
  const dist = path.join(root, 'dist/src/cli/main.js');
  if (!fs.existsSync(dist)) throw new Error(`${dist} is missing: build first (npx tsc -p tsconfig.json)`);
  const figures: Figure[] = [];
  const skipped: Skipped[] = [];
  const errors: string[] = [];
  const timings: Record<string, number> = {};
  for (const item of ITEMS) {
    if (flags.only && !flags.only.has(item.key) && !flags.only.has(item.item)) continue;
    ctx.log(`${item.item}. ${item.title}${flags.quick ? ' (quick)' : ''}`);
    const ti = performance.now();
    try {
      const r = await item.run(ctx);
      figures.push(...r.figures);
      skipped.push(...r.skipped);
    } catch (e) {
      const msg = (e as Error).stack ?? String(e);
      errors.push(`${item.item}. ${item.title}: ${msg}`);
      skipped.push({ item: item.item, name: item.title, reason: `error: ${(e as Error).message.split('\n')[0]}` });
      ctx.log(`  error: ${msg}`);
    } finally {
      await runCleanups();
    }
    timings[item.key] = (performance.now() - ti) / 1000;
    ctx.log(`  done in ${timings[item.key]!.toFixed(1)} s`);
  }
  const total = (performance.now() - t0) / 1000;
  console.log(textTable(figures, skipped));
  if (flags.md) console.log('\n' + markdownTable(figures, skipped));
  console.log(
    `\n${flags.quick ? 'quick form, ' : ''}${total.toFixed(0)} s on ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'cpu'}, Node ${process.version}`,
  );
  const results = {
    date: new Date().toISOString(),
    quick: flags.quick,
    node: process.version,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model.trim() ?? null,
    kernel: os.release(),
    seconds: { total, ...timings },
    figures,
    skipped,
    errors,
  };
  fs.writeFileSync(path.join(root, 'bench/results.json'), JSON.stringify(results, null, 2) + '\n');
  let code = 0;
  // Only the quick form gates CI, and only on order-of-magnitude regressions.
  if (flags.quick) {
    const bad = figures.filter((f) => (f.floor !== undefined && f.median < f.floor) || (f.ceiling !== undefined && f.median > f.ceiling));
    if (bad.length > 0) {
      console.error(
        `off by an order of magnitude: ${bad.map((f) => `${f.name} = ${f.median} ${f.unit} (floor ${f.floor ?? '-'}, ceiling ${f.ceiling ?? '-'})`).join('; ')}`,
      );
      code = 1;
    }
  }
  if (errors.length > 0) {
    console.error(`${errors.length} item(s) failed to run:\n${errors.join('\n')}`);
    code = 1;
  }
  return code;
}

let exiting = false;
const bail = (sig: string): void => {
  if (exiting) return;
  exiting = true;
  process.stderr.write(`\nbench: ${sig}: cleaning up…\n`);
  void runCleanups().finally(() => process.exit(130));
};
process.on('SIGINT', () => bail('SIGINT'));
process.on('SIGTERM', () => bail('SIGTERM'));

main().then(
  async (code) => {
    await runCleanups();
    process.exit(code);
  },
  async (e: unknown) => {
    process.stderr.write(`bench: ${(e as Error).stack ?? String(e)}\n`);
    await runCleanups();
    process.exit(1);
  },
);
