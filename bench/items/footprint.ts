// 5. Supervisor footprint: RSS and CPU of the supervisor with 100 live agents
// each printing 20 lines/s, beside pm2 supervising the same 100 processes.
//
// The agent is a perl one-liner (perl-base is on every Debian/Ubuntu, and it
// prints without forking a `sleep` per line). orcr starts them with
// `orcr run --from -`; pm2 with `pm2 start <process file>` (interpreter none,
// fork mode, no autorestart) under a throw-away PM2_HOME. Once all 100 run and
// have settled, CPU (utime+stime from /proc/PID/stat) and RSS are sampled over
// repeated windows. Per-agent overhead = every process in an agent's process
// group (orcr) or under the pm2 daemon that is not the agent itself.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fig, median, type Figure, type ItemResult, type Skipped } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, homeEnv, makeHome, node, orcrCmd, q, withOrcr } from '../lib/orcr.js';
import { CpuMeter, descendants, killGroup, onCleanup, pssKb, rssKb, runsScript, sleep, stat, timedShell, trackGroup, untrackGroup } from '../lib/proc.js';
import { ensurePm2 } from '../lib/tools.js';
import { readRunStatus } from '../../src/runtime/launcher.js';

const AGENTS = 100;
const LINES_PER_S = 20;
const PERL = `$|=1; my $i=0; while (1) { printf("%s agent line %d: working on src/module_%d.ts, 42 tokens so far\\n", scalar(localtime), $i++, $i % 17); select(undef, undef, undef, ${1 / LINES_PER_S}); }`;

interface Window {
  cpu: number;
  rssMb: number;
  pssMb: number;
  /** Per-agent overhead processes (not the daemon, not the agent). */
  overheadCount: number;
  overheadRssMb: number;
  overheadPssMb: number;
  overheadMaxRssKb: number;
  overheadCpu: number;
  overheadComms: string[];
}

/**
 * @param daemon the supervising processes: pm2's daemon, or orcr's supervisor
 *               with its spawn helper while one runs (it retires when idle)
 */
async function sampleWindows(daemon: () => number[], overhead: () => number[], windows: number, secs: number): Promise<Window[]> {
  const out: Window[] = [];
  for (let w = 0; w < windows; w++) {
    const pids = overhead();
    const daemons = daemon();
    const cpu = new CpuMeter(() => daemons);
    const ocpu = new CpuMeter(() => pids);
    cpu.start();
    ocpu.start();
    await sleep(secs * 1000);
    const rss = pids.map(rssKb);
    out.push({
      cpu: cpu.read(),
      rssMb: daemons.map(rssKb).reduce((a, b) => a + b, 0) / 1024,
      pssMb: daemons.map(pssKb).reduce((a, b) => a + b, 0) / 1024,
      overheadCount: pids.length,
      overheadRssMb: rss.reduce((a, b) => a + b, 0) / 1024,
      overheadPssMb: pids.map(pssKb).reduce((a, b) => a + b, 0) / 1024,
      overheadMaxRssKb: Math.max(0, ...rss),
      overheadCpu: ocpu.read(),
      overheadComms: [...new Set(pids.map((p) => stat(p)?.comm ?? '?'))],
    });
  }
  return out;
}

/** RSS of an idle POSIX shell, the yardstick for "no per-agent process heavier than a shell". */
async function idleShellKb(): Promise<number> {
  const sh = spawn('/bin/sh', ['-c', 'read x'], { stdio: ['pipe', 'ignore', 'ignore'] });
  await sleep(200);
  const kb = rssKb(sh.pid!);
  sh.stdin.end('\n');
  sh.kill('SIGKILL');
  return kb;
}

async function orcrSide(windows: number, secs: number, settleMs: number): Promise<{ windows: Window[]; helperS: number }> {
  return withOrcr({ concurrency: { max: AGENTS + 10 } }, async (dir, sup) => {
    const specs = Array.from({ length: AGENTS }, (_, i) => JSON.stringify({ name: `agent-${i}`, command: ['perl', '-e', PERL] })).join('\n') + '\n';
    fs.writeFileSync(path.join(dir, 'specs.jsonl'), specs);
    const r = await timedShell(`${orcrCmd} run --from - < ${q(path.join(dir, 'specs.jsonl'))} > /dev/null`, { env: homeEnv(dir), cwd: dir, timeoutMs: 60_000 });
    if (r.code !== 0) throw new Error(`orcr run --from failed: ${r.stderr}`);
    const client = await connect(dir);
    for (let t = 0; ; t++) {
      const res = await client.call('run.list', {});
      if (res.runs.filter((x) => x.status === 'working').length === AGENTS) break;
      if (t > 600) throw new Error('the 100 agents did not all start');
      await sleep(50);
    }
    client.close();
    // The spawn helper that started the burst retires once it has been idle a
    // while: wait for that (steady state is what this item measures), and say how long it stayed.
    const helpers = (): number[] => descendants(sup.pid).filter((p) => runsScript(p, 'spawn-helper.js'));
    const t0 = performance.now();
    for (let t = 0; helpers().length > 0 && t < 200; t++) await sleep(50);
    const helperS = (performance.now() - t0) / 1000;
    await sleep(settleMs);
    const pgids = fs.readdirSync(path.join(dir, 'runs')).map((u) => readRunStatus(path.join(dir, 'runs', u)).pid ?? 0);
    const overhead = (): number[] => {
      const set = new Set(pgids);
      const out: number[] = [];
      for (const p of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(p)) continue;
        const s = stat(Number(p));
        if (s && set.has(s.pgid) && s.comm !== 'perl' && s.state !== 'Z') out.push(s.pid);
      }
      return out;
    };
    // The supervisor, and its spawn helper (a node child) should one be up again.
    const daemons = (): number[] => [sup.pid, ...helpers()];
    return { windows: await sampleWindows(daemons, overhead, windows, secs), helperS };
  });
}

async function pm2Side(pm2: string, windows: number, secs: number, settleMs: number, log: (m: string) => void): Promise<Window[]> {
  const home = makeHome({}, 'orcr-bench-pm2-');
  const env = { ...process.env, PM2_HOME: path.join(home.dir, 'pm2'), PM2_DISABLE_VERSION_CHECK: 'true' };
  const pm2cmd = `${q(node)} ${q(pm2)}`;
  let daemon = 0;
  const killAll = async (): Promise<void> => {
    await timedShell(`${pm2cmd} kill`, { env, timeoutMs: 30_000 });
    if (daemon) {
      for (const p of descendants(daemon)) killGroup(p) || process.kill(p, 'SIGKILL');
      try {
        process.kill(daemon, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  };
  const forget = onCleanup(killAll);
  try {
    const apps = Array.from({ length: AGENTS }, (_, i) => ({
      name: `agent-${i}`,
      script: '/usr/bin/perl',
      args: ['-e', PERL],
      interpreter: 'none',
      exec_mode: 'fork',
      autorestart: false,
    }));
    const file = path.join(home.dir, 'agents.json');
    fs.writeFileSync(file, JSON.stringify({ apps }));
    const r = await timedShell(`${pm2cmd} start ${q(file)}`, { env, cwd: home.dir, timeoutMs: 120_000 });
    if (r.code !== 0) throw new Error(`pm2 start failed (${r.code}): ${r.stderr.slice(-500)}`);
    daemon = Number(fs.readFileSync(path.join(env.PM2_HOME, 'pm2.pid'), 'utf8').trim());
    trackGroup(stat(daemon)?.pgid ?? daemon);
    for (let t = 0; ; t++) {
      const perls = descendants(daemon).filter((p) => stat(p)?.comm === 'perl').length;
      if (perls === AGENTS) break;
      if (t > 600) throw new Error(`pm2 started ${perls} of ${AGENTS} agents`);
      await sleep(50);
    }
    log(`  pm2 daemon pid ${daemon} runs ${AGENTS} agents`);
    await sleep(settleMs);
    const overhead = (): number[] => descendants(daemon).filter((p) => stat(p)?.comm !== 'perl');
    const pm2d = daemon;
    return await sampleWindows(() => [pm2d], overhead, windows, secs);
  } finally {
    forget();
    await killAll();
    untrackGroup(stat(daemon)?.pgid ?? daemon);
    home.remove();
  }
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const windows = ctx.quick ? 2 : 5;
  const secs = ctx.quick ? 1 : 2;
  const settle = ctx.quick ? 500 : 2000;
  const skipped: Skipped[] = [];
  const I = '5';
  const label = `${AGENTS} agents × ${LINES_PER_S} lines/s`;
  const shKb = await idleShellKb();
  const { windows: o, helperS } = await orcrSide(windows, secs, settle);
  const figures: Figure[] = [];
  const pm2 = ensurePm2(!ctx.quick, ctx.log);
  let p: Window[] | null = null;
  if (pm2.ok) p = await pm2Side(pm2.path, windows, secs, settle, ctx.log);
  else skipped.push({ item: I, name: `${label}: pm2 daemon`, reason: pm2.reason });
  const pRss = p ? median(p.map((w) => w.rssMb)) : null;
  figures.push(
    fig(
      I,
      `${label}: orcr supervisor RSS`,
      'MB',
      o.map((w) => w.rssMb),
      {
        target: pRss !== null ? `< pm2 (${pRss.toFixed(0)} MB)` : '< pm2',
        meets: pRss !== null ? (m) => m < pRss : undefined,
        ceiling: 1000,
      },
    ),
  );
  figures.push(
    fig(
      I,
      `  orcr supervisor PSS`,
      'MB',
      o.map((w) => w.pssMb),
    ),
  );
  figures.push(fig(I, `  orcr spawn helper still up after the launch (it retires when idle; not up in the windows)`, 's', [helperS]));
  figures.push(
    fig(
      I,
      `  orcr supervisor CPU`,
      '% core',
      o.map((w) => w.cpu),
      { ceiling: 200 },
    ),
  );
  if (p) {
    figures.push(
      fig(
        I,
        `${label}: pm2 daemon RSS`,
        'MB',
        p.map((w) => w.rssMb),
        { note: pm2.ok ? pm2.version : undefined },
      ),
    );
    figures.push(
      fig(
        I,
        `  pm2 daemon PSS`,
        'MB',
        p.map((w) => w.pssMb),
      ),
    );
    figures.push(
      fig(
        I,
        `  pm2 daemon CPU`,
        '% core',
        p.map((w) => w.cpu),
      ),
    );
    figures.push(
      fig(
        I,
        `ratio RSS orcr / pm2`,
        '×',
        o.map((w, i) => w.rssMb / p[i]!.rssMb),
      ),
    );
    figures.push(
      fig(
        I,
        `ratio CPU orcr / pm2`,
        '×',
        o.map((w, i) => w.cpu / p[i]!.cpu),
      ),
    );
  }
  const oCount = median(o.map((w) => w.overheadCount));
  const oMax = Math.max(...o.map((w) => w.overheadMaxRssKb));
  figures.push(
    fig(
      I,
      `orcr per-agent processes (${o[0]!.overheadComms.join(', ')}) per agent`,
      '',
      o.map((w) => w.overheadCount / AGENTS),
    ),
  );
  figures.push(
    fig(
      I,
      `  orcr per-agent overhead RSS (sum / ${AGENTS})`,
      'MB',
      o.map((w) => w.overheadRssMb / AGENTS),
    ),
  );
  figures.push(
    fig(
      I,
      `  orcr per-agent overhead PSS (sum / ${AGENTS})`,
      'MB',
      o.map((w) => w.overheadPssMb / AGENTS),
    ),
  );
  figures.push(
    fig(I, `  heaviest per-agent process RSS (idle sh = ${(shKb / 1024).toFixed(2)} MB)`, 'MB', [oMax / 1024], {
      target: '≤ a shell',
      meets: () => o.every((w) => w.overheadComms.every((c) => c === 'sh' || c === 'dash')) && oMax <= shKb * 1.25,
    }),
  );
  figures.push(
    fig(
      I,
      `  orcr per-agent overhead CPU (all ${oCount} processes)`,
      '% core',
      o.map((w) => w.overheadCpu),
    ),
  );
  figures.push(
    fig(
      I,
      `orcr supervisor + wrappers RSS`,
      'MB',
      o.map((w) => w.rssMb + w.overheadRssMb),
    ),
  );
  figures.push(
    fig(
      I,
      `orcr supervisor + wrappers PSS`,
      'MB',
      o.map((w) => w.pssMb + w.overheadPssMb),
    ),
  );
  if (p) {
    figures.push(
      fig(
        I,
        `pm2 per-agent processes besides the agent (${p[0]!.overheadComms.join(', ') || 'none'})`,
        '',
        p.map((w) => w.overheadCount / AGENTS),
      ),
    );
    figures.push(
      fig(
        I,
        `pm2 daemon + per-agent processes PSS`,
        'MB',
        p.map((w) => w.pssMb + w.overheadPssMb),
      ),
    );
  }
  return { figures, skipped };
}

export const footprint: Item = { key: 'footprint', item: '5', title: 'supervisor footprint', run };
