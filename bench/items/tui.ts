// 7. TUI: with 1,000 runs and 200 events/s — event-to-frame latency, CPU,
// bytes written per second.
//
// The TUI (dist/src/tui/main.js) runs under a real pseudo-terminal made by
// util-linux `script` (160 × 50, TERM=xterm-256color); everything it writes
// comes back on script's stdout, where the bench counts bytes and looks for
// markers. The home holds 1,000 runs: one `sleep 3600` holding the only slot
// (concurrency.max = 1) and 999 queued behind it. The load: every 10 ms the
// bench enqueues a marker run named zqNNNNNN (a `queued` event) and cancels
// the previous marker (an `ended` event): 200 events/s. Event-to-frame
// latency = arrival of the output after which a marker's name first shows on
// the screen − the time its enqueue was sent (so it includes the
// supervisor's commit and broadcast). The screen is a terminal emulator's
// (@xterm/headless) fed the same output: Ink 8 rewrites only the changed end
// of a changed line, so a name is often written in part, after the part
// already on screen (zq0001 kept, 24 written), and never appears whole in
// the bytes. CPU = utime+stime of the TUI's node process from /proc, in
// windows that start 3 s into the stream (its first 2 s, while V8 compiles
// what the stream makes hot, are a figure of their own).

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { fig, median, pct, type Figure, type ItemResult } from '../lib/figures.js';
import type { Ctx, Item } from '../lib/context.js';
import { connect, homeEnv, node, q, tuiMain, tuiNodeArgs, withOrcr } from '../lib/orcr.js';
import { CpuMeter, descendants, killGroup, rssKb, runsScript, sleep, trackGroup, untrackGroup, which } from '../lib/proc.js';

// CommonJS: required, so that its exports are what its types say under any loader.
const { Terminal } = createRequire(import.meta.url)('@xterm/headless') as typeof import('@xterm/headless');

const COLS = 160;
const ROWS = 50;
const EVENTS_PER_S = 200;

/**
 * Run one of bench/lib's scripts in a process of its own (`nodeArgs` before
 * it, `args` after) and read the one JSON line it prints: its result.
 */
async function runLib<T>(name: string, args: string[], opts: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {}): Promise<T> {
  const script = fileURLToPath(new URL(`../lib/${name}.js`, import.meta.url));
  const out = await new Promise<string>((resolve, reject) => {
    const c = spawn(node, [...(opts.nodeArgs ?? []), script, ...args], { ...(opts.env ? { env: opts.env } : {}), stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let err = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    c.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    c.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`${name} exited ${code}: ${err.slice(-300)}`))));
  });
  const line = out.split('\n').find((l) => l.startsWith('{'));
  if (!line) throw new Error(`${name} printed no result: ${out.slice(0, 200)}`);
  return JSON.parse(line) as T;
}

/**
 * The TUI's heap over many frames whose text keeps changing (bench/lib/tui-heap.ts,
 * its own process): a cache that keeps every text ever drawn shows as growth.
 */
async function heapFigures(I: string, seconds: number): Promise<Figure[]> {
  const r = await runLib<{ startMb: number; firstHalfMb: number; secondHalfMb: number }>('tui-heap', [String(seconds)], {
    nodeArgs: [...tuiNodeArgs(), '--expose-gc'],
  });
  const what = `${seconds.toLocaleString('en-US')} frames (simulated seconds) of 40 rows whose times tick, in-process`;
  return [
    fig(I, `TUI heap: second half's peak − first half's, ${what}`, 'MB', [r.secondHalfMb - r.firstHalfMb], {
      ceiling: 100,
      note: 'about 0 when every cache is bounded',
    }),
    fig(I, `  TUI heap at the start`, 'MB', [r.startMb]),
    fig(I, `  TUI heap, largest in the first half`, 'MB', [r.firstHalfMb]),
    fig(I, `  TUI heap, largest in the second half`, 'MB', [r.secondHalfMb]),
  ];
}

/**
 * Item 7's load in-process (bench/lib/tui-frame.ts, its own process): the
 * real App on a fake terminal, the same stream straight into the store,
 * frames 66 ms apart as the TUI spaces them. CPU time per frame, which the
 * machine's noise moves less than a share of a core over two seconds does.
 */
async function frameFigures(I: string): Promise<Figure[]> {
  const r = await runLib<{ msPerFrame: number; bytesPerFrame: number }>('tui-frame', ['200', '66'], { nodeArgs: tuiNodeArgs() });
  return [
    fig(I, `  in-process, the same load: CPU per frame (frames 66 ms apart, as the TUI spaces them)`, 'ms', [r.msPerFrame]),
    fig(I, `  in-process: bytes written per frame`, 'B', [r.bytesPerFrame]),
  ];
}

/**
 * The transcript pager on a run of 50,000 output lines (bench/lib/transcript-open.ts,
 * its own process): from opening to the first screen laid out, to the whole
 * document parsed behind it, a scroll, and the bytes read from files while
 * scrolling.
 */
async function transcriptFigures(I: string, repeats: number): Promise<Figure[]> {
  const open: number[] = [];
  const whole: number[] = [];
  const turns: number[] = [];
  const scroll: number[] = [];
  const read: number[] = [];
  for (let k = 0; k < repeats; k++) {
    const r = await runLib<{ openMs: number; wholeMs: number; turns: number; scrollMs: number; scrollReadBytes: number }>('transcript-open', ['50000']);
    open.push(r.openMs);
    whole.push(r.wholeMs);
    turns.push(r.turns);
    scroll.push(r.scrollMs);
    read.push(r.scrollReadBytes);
  }
  return [
    fig(I, 'transcript of a 50,000-line run: open to the first screen', 'ms', open, { target: '< 200 ms', meets: (m) => m < 200, ceiling: 5000 }),
    fig(I, '  the whole document parsed behind it (keys are read between its chunks)', 'ms', whole),
    fig(I, '  turns of the event loop it took', 'turns', turns),
    fig(I, '  a scroll (a new screen of rows)', 'ms', scroll),
    fig(I, '  bytes read from files while scrolling', 'B', read, { target: '0', meets: (m) => m === 0 }),
  ];
}

const SCALE_RUNS = 10_000;

/**
 * The TUI on a home of 10,000 runs (one working, 999 queued behind it, the
 * rest ended), under a real pseudo-terminal: from the process's start to the
 * first frame that lists runs, a keypress (j) to the frame that answers it,
 * and the TUI's RSS once it has settled.
 */
async function scaleFigures(I: string, presses: number): Promise<Figure[]> {
  return withOrcr({ concurrency: { max: 1 } }, async (dir) => {
    const client = await connect(dir);
    try {
      await client.call('run.enqueue', { specs: [{ cwd: dir, command: ['sleep', '3600'], name: 'holder' }] });
      for (let k = 0; k < SCALE_RUNS - 1; k += 1000) {
        const { runs } = await client.call('run.enqueue', {
          specs: Array.from({ length: Math.min(1000, SCALE_RUNS - 1 - k) }, (_, i) => ({ cwd: dir, command: ['true'], name: `r-${k + i}` })),
        });
        // All but the last thousand end (canceled while queued): a home of months.
        if (k + 1000 < SCALE_RUNS - 1) await client.call('run.kill', { refs: runs.map((r) => r.uuid) });
      }
    } finally {
      client.close();
    }
    const cmd = `stty rows ${ROWS} cols ${COLS}; exec ${[node, ...tuiNodeArgs()].map(q).join(' ')} ${q(tuiMain)} --quiet`;
    const env: NodeJS.ProcessEnv = { ...homeEnv(dir), TERM: 'xterm-256color' };
    delete env.CI;
    const t0 = performance.now();
    const p = spawn('script', ['-q', '-f', '-c', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    trackGroup(p.pid!);
    let firstFrame: number | null = null;
    let frames = 0;
    let lastFrameAt = 0;
    let text = '';
    p.stdout.on('data', (d: Buffer) => {
      const at = performance.now();
      const chunk = d.toString('latin1');
      const marks = chunk.split('\x1b[?2026h').length - 1;
      if (marks > 0) {
        frames += marks;
        lastFrameAt = at;
      }
      if (firstFrame === null) {
        text = (text + chunk).slice(-20_000);
        if (/Runs \d+\/\d+/.test(text)) firstFrame = at - t0;
      }
    });
    try {
      for (let t = 0; firstFrame === null; t++) {
        if (t > 1500) throw new Error('the TUI listed no runs in 30 s');
        await sleep(20);
      }
      await sleep(1500);
      const lat: number[] = [];
      for (let k = 0; k < presses; k++) {
        const before = frames;
        const sent = performance.now();
        p.stdin.write(k % 2 ? 'k' : 'j');
        // Bounded by the clock, not by a count of sleeps (2 ms sleeps are far longer on a loaded machine, and 250 of them far shorter than 5 s on an idle one).
        while (frames === before) {
          if (performance.now() - sent > 5000) throw new Error('a keypress drew no frame in 5 s');
          await sleep(2);
        }
        lat.push(lastFrameAt - sent);
        await sleep(100);
      }
      const tuiPid = descendants(p.pid!).find((x) => runsScript(x, 'tui/main.js'));
      const rss = tuiPid ? rssKb(tuiPid) / 1024 : NaN;
      const what = `${SCALE_RUNS.toLocaleString('en-US')} runs in the home`;
      return [
        fig(I, `${what}: start to the first frame listing runs`, 'ms', [firstFrame], { target: '< 1,000 ms', meets: (m) => m < 1000, ceiling: 30_000 }),
        fig(I, `  keypress (j/k) to its frame (median)`, 'ms', [median(lat)], { target: '< 50 ms', meets: (m) => m < 50, ceiling: 2000 }),
        fig(I, `  keypress to its frame, p99`, 'ms', [pct(lat, 99)]),
        fig(I, `  TUI RSS`, 'MB', [rss], { target: '< 150 MB', meets: (m) => m < 150, ceiling: 2000 }),
      ];
    } finally {
      p.stdin.write('q');
      await Promise.race([new Promise((r) => p.once('exit', r)), sleep(3000)]);
      killGroup(p.pid!);
      untrackGroup(p.pid!);
    }
  });
}

const HOME_RUNS = 5000;

/**
 * The TUI's memory with a home of months: 5,000 runs in the home (one
 * working, the rest ended), the real Controller and App in a process of
 * their own (bench/lib/tui-rss.ts, `--expose-gc`), measured once the
 * snapshot is in and a few frames drawn.
 */
async function rssFigures(I: string, repeats: number): Promise<Figure[]> {
  return withOrcr({ concurrency: { max: 1 } }, async (dir) => {
    const client = await connect(dir);
    try {
      await client.call('run.enqueue', { specs: [{ cwd: dir, command: ['sleep', '3600'], name: 'holder' }] });
      // Queued behind the holder and canceled: ended runs without a process each.
      const { runs } = await client.call('run.enqueue', {
        specs: Array.from({ length: HOME_RUNS - 1 }, (_, i) => ({ cwd: dir, command: ['true'], name: `past-${i}` })),
      });
      await client.call('run.kill', { refs: runs.map((r) => r.uuid) });
    } finally {
      client.close();
    }
    const rss: number[] = [];
    const heap: number[] = [];
    const held: number[] = [];
    for (let k = 0; k < repeats; k++) {
      const r = await runLib<{ rssMb: number; heapMb: number; held: number }>('tui-rss', [], {
        nodeArgs: [...tuiNodeArgs(), '--expose-gc'],
        env: { ...homeEnv(dir), TERM: 'xterm-256color' },
      });
      rss.push(r.rssMb);
      heap.push(r.heapMb);
      held.push(r.held);
    }
    const what = `${HOME_RUNS.toLocaleString('en-US')} runs in the home (1 working, the rest ended)`;
    return [
      fig(I, `TUI RSS with ${what}`, 'MB', rss, { ceiling: 1000 }),
      fig(I, `  TUI heap after a full GC`, 'MB', heap),
      fig(I, `  runs the TUI holds`, 'runs', held),
    ];
  });
}

async function run(ctx: Ctx): Promise<ItemResult> {
  const I = '7';
  if (!fs.existsSync(tuiMain)) return { figures: [], skipped: [{ item: I, name: 'TUI', reason: 'TUI not built (dist/src/tui/main.js missing)' }] };
  if (!which('script')) return { figures: [], skipped: [{ item: I, name: 'TUI', reason: 'util-linux `script` not found (apt-get install bsdutils)' }] };
  // ORCR_BENCH_TUI_LOAD_ONLY=1: only the idle and 200 events/s windows (for profiling).
  const loadOnly = process.env.ORCR_BENCH_TUI_LOAD_ONLY === '1';
  const memory = loadOnly
    ? []
    : [...(await rssFigures(I, ctx.quick ? 1 : 3)), ...(await scaleFigures(I, ctx.quick ? 10 : 40)), ...(await transcriptFigures(I, ctx.quick ? 1 : 3))];
  const windows = ctx.quick ? 2 : 5;
  const secs = ctx.quick ? 1.5 : 2;
  return withOrcr({ concurrency: { max: 1 } }, async (dir) => {
    const client = await connect(dir);
    // A second, plain subscriber: how much of the latency is the supervisor's (commit + broadcast).
    const watcher = await connect(dir);
    const heard = new Map<number, number>();
    watcher.onEvent((m) => {
      if (m.event.type !== 'queued') return;
      const name = typeof m.event.data.name === 'string' ? m.event.data.name : '';
      if (name.startsWith('zq')) heard.set(Number(name.slice(2)), performance.now());
    });
    await watcher.call('subscribe', {});
    await client.call('run.enqueue', { specs: [{ cwd: dir, command: ['sleep', '3600'], name: 'holder' }] });
    await client.call('run.enqueue', { specs: Array.from({ length: 999 }, (_, i) => ({ cwd: dir, command: ['true'], name: `queued-${i}` })) });

    // ORCR_BENCH_TUI_PROF=DIR: the TUI writes a CPU profile there when it quits.
    const prof = process.env.ORCR_BENCH_TUI_PROF ? `--cpu-prof --cpu-prof-dir=${q(process.env.ORCR_BENCH_TUI_PROF)} ` : '';
    const cmd = `stty rows ${ROWS} cols ${COLS}; exec ${[node, ...tuiNodeArgs()].map(q).join(' ')} ${prof}${q(tuiMain)} --quiet`;
    const env: NodeJS.ProcessEnv = { ...homeEnv(dir), TERM: 'xterm-256color' };
    delete env.CI;
    const p = spawn('script', ['-q', '-f', '-c', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    trackGroup(p.pid!);
    let bytes = 0;
    // Ink opens every frame it writes with the synchronized-update mark (BSU).
    let frames = 0;
    let carry = '';
    const sent = new Map<number, number>();
    const seen = new Map<number, number>();
    const screen = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
    // Output arriving at `at`, parsed: the markers now on the screen were drawn by then.
    const look = (at: number) => (): void => {
      const b = screen.buffer.active;
      for (let y = 0; y < ROWS; y++) {
        const row = b.getLine(b.viewportY + y)?.translateToString(true) ?? '';
        for (const m of row.matchAll(/zq(\d{6})/g)) {
          const n = Number(m[1]);
          if (!seen.has(n) && sent.has(n)) seen.set(n, at);
        }
      }
    };
    let stderr = '';
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.stdout.on('data', (d: Buffer) => {
      const at = performance.now();
      bytes += d.length;
      const text = carry + d.toString('latin1');
      frames += text.split('\x1b[?2026h').length - 1 - (carry.includes('\x1b[?2026h') ? 1 : 0);
      carry = text.slice(-8);
      if (sent.size > 0) screen.write(d, look(at));
      else screen.write(d);
    });
    try {
      // First frame, then let the start-up settle.
      for (let t = 0; bytes < 1000; t++) {
        if (t > 500) throw new Error(`the TUI drew nothing in 10 s: ${stderr.slice(-300)}`);
        await sleep(20);
      }
      await sleep(ctx.quick ? 1000 : 2000);
      const tuiPid = descendants(p.pid!).find((x) => runsScript(x, 'tui/main.js'));
      if (!tuiPid) throw new Error('cannot find the TUI node process');
      const cpu = new CpuMeter(() => [tuiPid]);

      // Idle: 1,000 runs, no events.
      cpu.start();
      let b0 = bytes;
      await sleep(secs * 1000);
      const idleCpu = cpu.read();
      const idleBytes = (bytes - b0) / secs;

      // Load: 200 events/s.
      let n = 0;
      let stop = false;
      const tickMs = 2000 / EVENTS_PER_S; // two events per tick
      const driver = (async () => {
        const t0 = performance.now();
        while (!stop) {
          n++;
          const name = `zq${String(n).padStart(6, '0')}`;
          sent.set(n, performance.now());
          void client.call('run.enqueue', { specs: [{ cwd: dir, command: ['true'], name }] }).catch(() => undefined);
          if (n > 1) void client.call('run.kill', { refs: [`zq${String(n - 1).padStart(6, '0')}`] }).catch(() => undefined);
          const next = t0 + n * tickMs;
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
        }
      })();
      // The stream's first seconds cost more (V8 compiles the paths it makes hot; a
      // second burst after a pause shows no such rise): measured on their own, and
      // the windows below measure the stream as it goes on.
      cpu.start();
      await sleep(secs * 1000);
      const warmCpu = cpu.read();
      await sleep(1000);
      const cpuW: number[] = [];
      const bytesW: number[] = [];
      const framesW: number[] = [];
      const latW: number[] = [];
      const all: number[] = [];
      const sup: number[] = [];
      let sentInWindows = 0;
      for (let w = 0; w < windows; w++) {
        const first = n + 1;
        cpu.start();
        b0 = bytes;
        const f0 = frames;
        await sleep(secs * 1000);
        cpuW.push(cpu.read());
        bytesW.push((bytes - b0) / secs);
        framesW.push((frames - f0) / secs);
        const last = n;
        await sleep(300); // let the window's last markers reach the screen
        const lat: number[] = [];
        for (let k = first; k <= last; k++) {
          const s = seen.get(k);
          if (s !== undefined) lat.push(s - sent.get(k)!);
          const h = heard.get(k);
          if (h !== undefined) sup.push(h - sent.get(k)!);
        }
        sentInWindows += last - first + 1;
        all.push(...lat);
        latW.push(median(lat));
      }
      stop = true;
      await driver;
      const rate = (n / ((performance.now() - sent.get(1)!) / 1000)) * 2;
      const seenPct = (all.length / sentInWindows) * 100;
      ctx.log(`  ${n} markers sent (${rate.toFixed(0)} events/s), ${seenPct.toFixed(0)}% seen on screen`);
      const figures: Figure[] = [
        ...memory,
        fig(I, `1,000 runs, idle: TUI CPU`, '% core', [idleCpu]),
        fig(I, `1,000 runs, idle: bytes written`, 'B/s', [idleBytes]),
        fig(I, `1,000 runs, ${EVENTS_PER_S} events/s: event-to-frame (median per window)`, 'ms', latW, {
          target: '< 50 ms',
          meets: (m) => m < 50,
          ceiling: 500,
        }),
        fig(I, `  event-to-frame p99 (all windows)`, 'ms', [pct(all, 99)]),
        fig(I, `  of which supervisor: send → event at a plain subscriber (median)`, 'ms', [median(sup)]),
        fig(I, `  markers that reached the screen`, '%', [seenPct], {
          note: 'a marker whose queued and ended events both scrolled past between two frames is never drawn',
        }),
        fig(I, `  TUI CPU`, '% core', cpuW, { target: '< 15%', meets: (m) => m < 15, ceiling: 150 }),
        fig(I, `  TUI CPU in the stream's first ${secs} s (V8 compiling what it makes hot)`, '% core', [warmCpu]),
        fig(I, `  bytes written`, 'B/s', bytesW),
        fig(I, `  frames drawn`, '/s', framesW),
        // Full form only: the caches fill within ~100 frames, and the figure needs many more to mean something.
        ...(ctx.quick ? [] : await frameFigures(I)),
        ...(ctx.quick || loadOnly ? [] : await heapFigures(I, 2000)),
      ];
      return { figures, skipped: [] };
    } finally {
      p.stdin.write('q');
      await Promise.race([new Promise((r) => p.once('exit', r)), sleep(3000)]);
      killGroup(p.pid!);
      untrackGroup(p.pid!);
      client.close();
      watcher.close();
      screen.dispose();
    }
  });
}

export const tui: Item = { key: 'tui', item: '7', title: 'TUI', run };
