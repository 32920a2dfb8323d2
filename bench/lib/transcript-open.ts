// Run as its own process: the TUI's transcript pager on a run of 50,000
// output lines (Claude Code's stream-json: text, tool calls, their results,
// turn results), the real pieces — TranscriptFeed reads the files and builds
// the document, pagerWindow lays out a screen. Prints {"openMs", "wholeMs",
// "turns", "scrollMs", "scrollReadBytes", "rows"}: the time from opening to the
// first screen laid out, to the whole document parsed behind it (in "turns"
// turns of the event loop, each a time keys are read), the mean time of a
// scroll (a new screen of rows), and the bytes read from files while
// scrolling (/proc/self/io rchar: none, if scrolling never goes back to the file).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const LINES = Number(process.argv[2] ?? 50_000);
const WIDTH = 160;
const HEIGHT = 48;

const { createTuiStore } = await import('../../src/tui/state/store.js');
const { reduceOpenPager } = await import('../../src/tui/state/pager.js');
const { TranscriptFeed } = await import('../../src/tui/connection/transcript-feed.js');
const { pagerWindow } = await import('../../src/tui/model/doc-window.js');
const { homePaths } = await import('../../src/config/home.js');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-bench-transcript-'));
const uuid = '00000000-0000-4000-8000-000000000001';
try {
  const runDir = path.join(dir, 'runs', uuid);
  fs.mkdirSync(runDir, { recursive: true });
  const sid = 'bench-session';
  const out: string[] = [];
  for (let i = 0; out.length < LINES; i++) {
    const id = `toolu_${i}`;
    out.push(
      JSON.stringify({
        type: 'assistant',
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: `Step ${i}: looking at the failing test in src/module-${i % 97}.ts and what it expects from the parser.` }],
        },
        session_id: sid,
      }),
    );
    out.push(
      JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `npm test -- module-${i % 97}` } }] },
        session_id: sid,
      }),
    );
    out.push(
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `> vitest run\n✓ module-${i % 97} (3 tests)\nTests 3 passed` }] },
        session_id: sid,
      }),
    );
    if (i % 10 === 9)
      out.push(
        JSON.stringify({
          type: 'result',
          subtype: 'success',
          is_error: false,
          num_turns: 1,
          result: 'done',
          session_id: sid,
          total_cost_usd: i * 0.001,
          usage: { input_tokens: 100, output_tokens: 50 },
        }),
      );
  }
  fs.writeFileSync(path.join(runDir, 'out'), out.slice(0, LINES).join('\n') + '\n');
  const store = createTuiStore({ home: dir });
  const run = { uuid, name: 'long', protocol: 'claude', status: 'ended' } as never;
  store.setState({ runs: { byId: { [uuid]: run }, seq: 1 } });
  store.setState((s) => reduceOpenPager(s, uuid, 'long'));
  const feed = new TranscriptFeed(store, homePaths(dir));

  const t0 = performance.now();
  feed.open(uuid);
  const s0 = store.getState();
  const screen = pagerWindow(s0.pagerDoc!, s0.pager!, WIDTH, HEIGHT);
  screen.rows.slice(screen.top, screen.top + HEIGHT);
  const openMs = performance.now() - t0;
  // The rest is parsed behind the first screen, a chunk per turn of the event loop.
  let turns = 0;
  while (feed.loading) {
    turns++;
    await new Promise((r) => setImmediate(r));
  }
  const s = store.getState();
  const first = pagerWindow(s.pagerDoc!, s.pager!, WIDTH, HEIGHT);
  const wholeMs = performance.now() - t0;

  const rchar = (): number => Number(/rchar:\s*(\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))![1]);
  const N = 200;
  const before = rchar();
  const t1 = performance.now();
  for (let k = 0; k < N; k++) {
    const p = { ...s.pager!, follow: false, top: (k * 997) % Math.max(1, first.rows.length) };
    const w = pagerWindow(s.pagerDoc!, p, WIDTH, HEIGHT);
    w.rows.slice(w.top, w.top + HEIGHT);
  }
  const scrollMs = (performance.now() - t1) / N;
  // The /proc read itself counts: take one more read's worth off.
  const probe = rchar();
  const scrollReadBytes = Math.max(0, probe - before - (rchar() - probe));
  feed.close();
  process.stdout.write(JSON.stringify({ openMs, wholeMs, turns, scrollMs, scrollReadBytes, rows: first.rows.length }) + '\n');
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
