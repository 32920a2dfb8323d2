// Run as its own process (node --expose-gc): the real orcr-tui App rendered by
// Ink to a fake 160x50 terminal, 40 working runs whose ELAPSED column changes
// every simulated second, for N simulated seconds (one store change and one
// frame each). Prints {"startMb", "firstHalfMb", "secondHalfMb", "frames"}:
// the heap after a full GC at the start, and the largest (sampled after a full
// GC every 250 frames) in each half of the run. Bounded caches fill and start
// over, so both halves peak alike; a cache that keeps every text ever drawn
// makes the second half's peak the larger by what it kept meanwhile.

process.env.NODE_ENV = 'production';
delete process.env.CI;

const seconds = Number(process.argv[2] ?? 3000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const { renderOnFakeTerminal } = await import('./fake-terminal.js');
const { createTuiStore } = await import('../../src/tui/state/store.js');
const { reduceSnapshot } = await import('../../src/tui/state/reducers.js');
const { newRun } = await import('../../src/core/run-record.js');
const { NO_LIMITS } = await import('../../src/core/budget.js');
const { publicRun } = await import('../../src/protocol/views.js');

// The runs as the supervisor builds and shows them (newRun, publicRun): working, with usage and a token ceiling.
const t0 = Date.now() - 60_000;
const runs = Array.from({ length: 40 }, (_, i) =>
  publicRun(
    {
      ...newRun({
        uuid: `${String(i + 1).padStart(8, '0')}-0000-4000-8000-000000000000`,
        name: `worker-${i + 1}`,
        provider: 'claude',
        workload: 'default',
        protocol: 'claude',
        queue_seq: i + 1,
        command: ['claude'],
        cwd: '/tmp',
        now: t0,
        limits: { ...NO_LIMITS, max_tokens: 100_000 },
      }),
      status: 'working',
      pid: 4242,
      started_at: t0 + 1000,
      status_at: t0 + 1000,
      turns: 3,
      tokens: { input: 12_000, output: 3_000, cached: 0 },
      cost_usd: 0.42,
    },
    { now: t0 + 60_000 },
  ),
);
const store = createTuiStore({ home: '/tmp/orcr-bench', theme: 'dark' });
store.setState((s) => reduceSnapshot(s, { seq: 1, runs, events: [] }, Date.now()));
store.setState({ conn: { state: 'up', pid: 1, startedAt: Date.now(), error: null, since: Date.now(), starting: false } });
const tui = await renderOnFakeTerminal(store, { maxFps: 1000 });
const heapMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};
await new Promise((r) => setImmediate(r));
const startMb = heapMb();
const peaks = [0, 0];
let now = Date.now();
for (let s = 1; s <= seconds; s++) {
  now += 1000;
  store.setState({ now });
  await new Promise((r) => setImmediate(r));
  if (s % 250 === 0) {
    const half = s <= seconds / 2 ? 0 : 1;
    peaks[half] = Math.max(peaks[half]!, heapMb());
  }
}
tui.unmount();
process.stdout.write(JSON.stringify({ startMb, firstHalfMb: peaks[0], secondHalfMb: peaks[1], frames: seconds }) + '\n');
process.exit(0);
