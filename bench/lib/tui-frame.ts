// Run as its own process: the real orcr-tui App rendered by Ink to a fake
// 160x50 terminal, on the home of bench item 7 (one working run, 999 queued),
// fed the same load as item 7's 200 events/s (a marker run queued, the one
// before it ended) straight into the store as the connection's batcher does,
// three or four messages a frame. Prints {"frames", "msPerFrame", "bytesPerFrame"}:
// the process's CPU time per frame (store change, React, Ink, the write; with
// argv[3] ms between frames, as the TUI spaces them, caches go cold between) — a
// figure that the machine's noise moves far less than a CPU share does, for
// comparing two versions of the TUI the same hour.

process.env.NODE_ENV = 'production';
delete process.env.CI;

const frames = Number(process.argv[2] ?? 600);
// Milliseconds between frames (argv[3]): 0 draws them back to back; the TUI spaces them 66 ms apart.
const gapMs = Number(process.argv[3] ?? 0);
const warm = Math.min(200, Math.floor(frames / 3));

const { renderOnFakeTerminal } = await import('./fake-terminal.js');
const { createTuiStore } = await import('../../src/tui/state/store.js');
const { reduceSnapshot, reduceStream } = await import('../../src/tui/state/reducers.js');
const { newRun } = await import('../../src/core/run-record.js');
const { NO_LIMITS } = await import('../../src/core/budget.js');
const { publicRun } = await import('../../src/protocol/views.js');
type PublicRun = ReturnType<typeof publicRun>;
type RunEvent = import('../../src/core/events.js').RunEvent;

let now = Date.now();
const uuid = (i: number): string => `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`;
const make = (i: number, name: string, status: 'working' | 'queued' | 'ended', command: string[]): PublicRun =>
  publicRun(
    {
      ...newRun({
        uuid: uuid(i),
        name,
        provider: command[0]!,
        workload: 'default',
        protocol: 'plain',
        queue_seq: i,
        command,
        cwd: '/tmp',
        now,
        limits: NO_LIMITS,
      }),
      status,
      ...(status === 'working' ? { pid: 4242, started_at: now, status_at: now } : {}),
      ...(status === 'ended' ? { ended_at: now, status_at: now, exit_reason: 'canceled' } : {}),
    },
    { now },
  );
const runs = [make(1, 'holder', 'working', ['sleep', '3600']), ...Array.from({ length: 999 }, (_, i) => make(i + 2, `queued-${i}`, 'queued', ['true']))];
const store = createTuiStore({ home: '/tmp/orcr-bench', theme: 'dark' });
let seq = 1;
store.setState((s) => reduceSnapshot(s, { seq, runs, events: [] }, now));
store.setState({ conn: { state: 'up', pid: 1, startedAt: now, error: null, since: now, starting: false }, now });
// As the TUI draws: only the lines that changed.
const tui = await renderOnFakeTerminal(store, { maxFps: 1000, incremental: true });
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
await tick();

// Item 7's load: every 10 ms a marker is queued and the one before it ended; a frame is 50 ms of it.
let n = 0;
const event = (type: 'queued' | 'ended', run: PublicRun): { type: 'event'; event: RunEvent; run: PublicRun } => ({
  type: 'event',
  event:
    type === 'queued'
      ? { seq: ++seq, ts: now, run: run.uuid, type, data: { name: run.name, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq } }
      : { seq: ++seq, ts: now, run: run.uuid, type, data: { from: 'working', reason: 'canceled', detail: null, exit_code: null } },
  run,
});
let cpu0 = process.cpuUsage();
let b0 = tui.written();
for (let f = 0; f < warm + frames; f++) {
  if (f === warm) {
    cpu0 = process.cpuUsage();
    b0 = tui.written();
  }
  const msgs: Parameters<typeof reduceStream>[1][number][] = [];
  for (let k = 0; k < 5; k++) {
    n++;
    now += 10;
    const name = `zq${String(n).padStart(6, '0')}`;
    msgs.push(event('queued', make(100_000 + n, name, 'queued', ['true'])));
    if (n > 1) msgs.push(event('ended', make(100_000 + n - 1, `zq${String(n - 1).padStart(6, '0')}`, 'ended', ['true'])));
  }
  // The clock moves once a second, as the TUI's tick does.
  const second = Math.floor(now / 1000) !== Math.floor((now - 50) / 1000);
  store.setState((s) => ({ ...reduceStream(s, msgs).patch, ...(second ? { now } : {}) }));
  await tick();
  if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
}
const used = process.cpuUsage(cpu0);
tui.unmount();
process.stdout.write(JSON.stringify({ frames, msPerFrame: (used.user + used.system) / 1000 / frames, bytesPerFrame: (tui.written() - b0) / frames }) + '\n');
process.exit(0);
