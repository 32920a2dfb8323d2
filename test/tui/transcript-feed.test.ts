// The pager's feed on a long output (real files, the real feed and store): the
// first screen comes from the first lines, the rest is parsed a chunk per turn
// of the event loop behind it, and the document it ends with is the one a
// one-shot read builds. A run that ends, or writes more, while its output is
// still being parsed loses nothing and ends once.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTranscript } from '../../src/agents/transcript.js';
import { homePaths } from '../../src/config/home.js';
import { CHUNK_LINES, FIRST_LINES, TranscriptFeed } from '../../src/tui/connection/transcript-feed.js';
import { reduceOpenPager } from '../../src/tui/state/pager.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import type { TranscriptDoc } from '../../src/tui/state/transcript-doc.js';
import { pagerRight } from '../../src/tui/view/transcript-rows.js';
import { pagerWindow } from '../../src/tui/model/doc-window.js';
import { entryRows } from '../../src/text/transcript-lines.js';

const UUID = '00000000-0000-4000-8000-00000000f00d';
let dir: string | null = null;
let feed: TranscriptFeed | null = null;

afterEach(() => {
  feed?.close();
  feed = null;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** Claude stream-json: text, a tool call and its result per step, a turn result every ten steps. */
function claudeLines(n: number, from = 0): string[] {
  const out: string[] = [];
  for (let i = from; out.length < n; i++) {
    const id = `toolu_${i}`;
    out.push(
      JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: `Step ${i}: reading src/m${i % 7}.ts` }] },
        session_id: 's',
      }),
    );
    out.push(
      JSON.stringify({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `npm test -- m${i % 7}` } }] },
        session_id: 's',
      }),
    );
    out.push(
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `ok ${i}\nTests 3 passed` }] },
        session_id: 's',
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
          session_id: 's',
          total_cost_usd: i * 0.001,
          usage: { input_tokens: 100, output_tokens: 50 },
        }),
      );
  }
  return out.slice(0, n);
}

function setUp(lines: string[], status: 'ended' | 'working'): { store: ReturnType<typeof createTuiStore>; out: string } {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-feed-'));
  const runDir = path.join(dir, 'runs', UUID);
  fs.mkdirSync(runDir, { recursive: true });
  const out = path.join(runDir, 'out');
  fs.writeFileSync(out, lines.join('\n') + '\n');
  fs.writeFileSync(path.join(runDir, 'inputs'), JSON.stringify({ text: 'Make the tests pass', out_bytes: 0 }) + '\n');
  const store = createTuiStore({ home: dir });
  store.setState({ runs: { byId: { [UUID]: { uuid: UUID, name: 'long', protocol: 'claude', status } as never }, seq: 1 } });
  store.setState((s) => reduceOpenPager(s, UUID, 'long'));
  return { store, out };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
async function built(f: TranscriptFeed): Promise<number> {
  let turns = 0;
  while (f.loading) {
    turns++;
    await turn();
  }
  return turns;
}

const oneShot = (lines: string[], ended: boolean): string[] =>
  buildTranscript(lines, 'claude', { inputs: [{ text: 'Make the tests pass', out_bytes: 0 }], ended }).flatMap((e) => entryRows(e, 120).map((r) => r.text));

describe('the transcript feed on a long output', () => {
  it('shows the first lines at once, parses the rest a chunk per turn behind them, and ends with what a one-shot read builds', async () => {
    const lines = claudeLines(FIRST_LINES + 2 * CHUNK_LINES + 123);
    const { store } = setUp(lines, 'ended');
    feed = new TranscriptFeed(store, homePaths(dir!));
    feed.open(UUID);
    const doc = store.getState().pagerDoc as TranscriptDoc;
    expect(doc.loading).toEqual({ read: FIRST_LINES, total: lines.length });
    expect(doc.raw).toHaveLength(FIRST_LINES);
    const first = pagerWindow(doc, store.getState().pager!, 120, 30);
    expect(first.rows.length).toBeGreaterThan(30);
    expect(pagerRight(first.top, 30, first.rows.length, true, false, doc.loading)).toContain(`reading 2,000 of ${lines.length.toLocaleString('en-US')} lines…`);
    // Each chunk is its own turn of the event loop (keys are read between them), and redraws the pager.
    const v0 = store.getState().pager!.version;
    expect(await built(feed)).toBe(3);
    expect(store.getState().pager!.version).toBe(v0 + 3);
    expect(doc.loading).toBeNull();
    expect(doc.isEnded).toBe(true);
    expect(doc.raw).toEqual(lines);
    expect(doc.rows('transcript', 120, []).map((r) => r.text)).toEqual(oneShot(lines, true));
    expect(pagerRight(0, 30, 100, false, false, doc.loading)).toBe('1-30 of 100 · G end');
  });

  it('a live run that writes more and ends while its output is parsed: every line, then its end, once', async () => {
    const lines = claudeLines(FIRST_LINES + CHUNK_LINES + 10);
    const { store, out } = setUp(lines, 'working');
    feed = new TranscriptFeed(store, homePaths(dir!), 10);
    feed.open(UUID);
    const more = claudeLines(40, 100_000);
    fs.appendFileSync(out, more.join('\n') + '\n');
    feed.ended(UUID);
    const doc = store.getState().pagerDoc as TranscriptDoc;
    expect(doc.isEnded).toBe(false);
    await built(feed);
    expect(doc.isEnded).toBe(true);
    expect(doc.raw).toEqual([...lines, ...more]);
    expect(doc.rows('transcript', 120, []).map((r) => r.text)).toEqual(oneShot([...lines, ...more], true));
  });

  it('closed (or opened on another run) while parsing: the old document stops growing', async () => {
    const lines = claudeLines(FIRST_LINES + 3 * CHUNK_LINES);
    const { store } = setUp(lines, 'ended');
    feed = new TranscriptFeed(store, homePaths(dir!));
    feed.open(UUID);
    const doc = store.getState().pagerDoc as TranscriptDoc;
    await turn();
    feed.close();
    const had = doc.raw.length;
    for (let i = 0; i < 5; i++) await turn();
    expect(feed.loading).toBe(false);
    expect(doc.raw.length).toBe(had);
    expect(had).toBeLessThan(lines.length);
  });
});
