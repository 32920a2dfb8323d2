// `npm run bench [-- --quick]`: figures for orcr's own costs, printed as a
// table and written to bench/results.json. Each figure is a median of repeated
// runs with its min–max; nothing here passes or fails on time except the quick
// form's order-of-magnitude guard.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { decide, type AdmissionInput, type WorkloadPolicy } from '../src/core/admission.js';
import { Journal } from '../src/journal/journal.js';
import type { Run, RunEvent } from '../src/core/types.js';
import { Client } from '../src/client/client.js';
import { homePaths } from '../src/config/home.js';

const quick = process.argv.includes('--quick');
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const cli = path.join(root, 'dist/src/cli/main.js');

interface Figure {
  name: string;
  unit: string;
  median: number;
  min: number;
  max: number;
  target?: string;
  /** For the quick guard: a figure worse than this by 10× fails CI. */
  floor?: number;
  ceiling?: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const fig = (name: string, unit: string, xs: number[], extra: Partial<Figure> = {}): Figure => ({
  name,
  unit,
  median: median(xs),
  min: Math.min(...xs),
  max: Math.max(...xs),
  ...extra,
});

function tmpHome(config: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-bench-'));
  fs.chmodSync(dir, 0o700);
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  return dir;
}

// 1. Admission: decisions per second, 10,000 queued, 50 caps.
function benchAdmission(): Figure {
  const providers: Record<string, number> = {};
  const workloads: Record<string, WorkloadPolicy> = {};
  for (let i = 0; i < 25; i++) providers[`p${i}`] = 2;
  for (let i = 0; i < 24; i++) workloads[`w${i}`] = { reserved: i === 0 ? 1 : 0, priority: i % 3, max: 2, max_wait_ms: null };
  const holders = Array.from({ length: 40 }, (_, i) => ({ uuid: `h${i}`, provider: `p${i % 25}`, workload: `w${(i * 7) % 24}` }));
  const waiters = Array.from({ length: 10_000 }, (_, i) => ({
    uuid: `q${i}`,
    provider: `p${i % 25}`,
    workload: `w${(i * 3) % 24}`,
    queue_seq: i,
    enqueued_at: 0,
  }));
  const input: AdmissionInput = { policy: { max: 45, providers, workloads, max_queued: null }, holders, waiters, now: 1 };
  const rounds: number[] = [];
  for (let r = 0; r < (quick ? 3 : 7); r++) {
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < (quick ? 200 : 1000)) {
      decide(input);
      n++;
    }
    rounds.push(n / ((performance.now() - t0) / 1000));
  }
  return fig('admission decisions/s (10k queued, 50 caps)', '/s', rounds, { floor: 500 });
}

// 2. Journal: durable transitions per second (each its own IMMEDIATE transaction).
function benchJournal(): Figure[] {
  const out: Figure[] = [];
  for (const sync of ['normal', 'full'] as const) {
    const rounds: number[] = [];
    for (let r = 0; r < (quick ? 2 : 5); r++) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-bj-'));
      const j = new Journal(path.join(dir, 'orcr.db'), { synchronous: sync });
      const base = sampleRun(j);
      j.insertRun(base, { type: 'queued' });
      const n = quick ? 2000 : 20_000;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) j.updateRun({ ...base, turns: i }, { type: 'usage', data: { turns: i } });
      rounds.push(n / ((performance.now() - t0) / 1000));
      j.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
    out.push(fig(`journal transitions/s (synchronous=${sync})`, '/s', rounds, sync === 'normal' ? { target: '≥ 20,000', floor: 2000 } : {}));
  }
  return out;
}

function sampleRun(j: Journal): Run {
  return {
    uuid: 'bench', name: 'bench', provider: 'p', workload: 'default', protocol: null, status: 'queued',
    exit_reason: null, exit_detail: null, exit_code: null, blocked_kind: null, queue_seq: j.nextQueueSeq(),
    pid: null, pid_start: null, command: ['true'], cwd: '/', env: {}, prompt: null, interactive: false,
    limits: { max_turns: null, max_tokens: null, max_cost_usd: null, timeout_ms: null, idle_after_ms: null, loop: 'warn' },
    turns: 0, input_seq: 0, tokens: { input: 0, output: 0, cached: 0 }, cost_usd: 0, session_id: null,
    last_tool: null, last_text: null, created_at: 0, started_at: null, ended_at: null, status_at: 0,
    kill_requested_at: null, out_offset: 0, cost_reported: null, warned_meters: [], loop_flags: { detected: false, warned: false, repetitions: 0 },
  };
}

async function withServer<T>(config: unknown, fn: (client: Client, dir: string) => Promise<T>): Promise<T> {
  const dir = tmpHome(config);
  const server: ChildProcess = spawn(process.execPath, [cli, 'serve'], { env: { ...process.env, ORCR_HOME: dir }, stdio: 'ignore' });
  const client = await Client.connect(homePaths(dir), { autoStart: false, timeoutMs: 10_000 }).catch(async () => {
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        return await Client.connect(homePaths(dir), { autoStart: false });
      } catch {
        /* not yet */
      }
    }
    throw new Error('bench server did not start');
  });
  try {
    return await fn(client, dir);
  } finally {
    client.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// 3. Latencies through a real supervisor: enqueue → spawn, release → next spawn.
async function benchLatency(): Promise<Figure[]> {
  const n = quick ? 100 : 500;
  // enqueue → spawn: one run at a time with free slots.
  const enqueueToSpawn = await withServer({ concurrency: { max: 25 } }, async (client) => {
    const lat: number[] = [];
    const spawned = new Map<string, number>();
    client.onEvent((m) => {
      if (m.event.type === 'working' && m.event.run) spawned.set(m.event.run, performance.now());
    });
    await client.call('subscribe', {});
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      const res = await client.call<{ runs: { uuid: string }[] }>('run.enqueue', { specs: [{ cwd: '/', command: ['true'] }] });
      const uuid = res.runs[0]!.uuid;
      while (!spawned.has(uuid)) await new Promise((r) => setImmediate(r));
      lat.push(spawned.get(uuid)! - t0);
    }
    return lat;
  });
  // release → next spawn: a cap of 1, so each end admits the next.
  const releaseToSpawn = await withServer({ concurrency: { max: 1 } }, async (client) => {
    const events: { e: RunEvent; at: number }[] = [];
    client.onEvent((m) => events.push({ e: m.event, at: performance.now() }));
    await client.call('subscribe', {});
    const specs = Array.from({ length: n }, () => ({ cwd: '/', command: ['true'] }));
    await client.call('run.enqueue', { specs });
    await client.call('run.wait', { all: true });
    while (events.filter((x) => x.e.type === 'ended').length < n) await new Promise((r) => setTimeout(r, 5));
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
  return [
    fig('enqueue → spawn (median)', 'ms', [median(enqueueToSpawn)], { ceiling: 50 }),
    fig('enqueue → spawn (p99)', 'ms', [pct(enqueueToSpawn, 99)]),
    fig('release → next spawn (median)', 'ms', [median(releaseToSpawn)], { target: '< 5 ms', ceiling: 50 }),
    fig('release → next spawn (p99)', 'ms', [pct(releaseToSpawn, 99)]),
  ];
}

function fmt(n: number): string {
  if (n >= 1000) return Math.round(n).toLocaleString('en-US');
  if (n >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

async function main(): Promise<void> {
  const figures: Figure[] = [];
  figures.push(benchAdmission());
  figures.push(...benchJournal());
  figures.push(...(await benchLatency()));
  const rows = figures.map((f) => [f.name, `${fmt(f.median)} ${f.unit}`, f.min === f.max ? '' : `${fmt(f.min)}–${fmt(f.max)}`, f.target ?? '']);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i]!.length), ['figure', 'median', 'min–max', 'target'][i]!.length));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(['figure', 'median', 'min–max', 'target']));
  for (const r of rows) console.log(line(r));
  const results = { date: new Date().toISOString(), quick, node: process.version, cpus: os.cpus().length, figures };
  fs.writeFileSync(path.join(root, 'bench/results.json'), JSON.stringify(results, null, 2) + '\n');
  // The quick form guards only against order-of-magnitude regressions.
  const bad = figures.filter((f) => (f.floor !== undefined && f.median < f.floor) || (f.ceiling !== undefined && f.median > f.ceiling));
  if (bad.length > 0) {
    console.error(`off by an order of magnitude: ${bad.map((f) => f.name).join(', ')}`);
    process.exit(1);
  }
}

await main();
