// The event log's old part, as retention finds and removes it: found from
// the oldest event (the log is read whole only when that one is old), and
// removed in batches up to it with no gap left.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';

const dirs: string[] = [];
function journal(): Journal {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-jr-'));
  dirs.push(d);
  return new Journal(path.join(d, 'orcr.db'));
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const events = (j: Journal): { seq: number; ts: number }[] => j.eventsSince(0).map((e) => ({ seq: e.seq, ts: e.ts }));

describe("retention's side of the journal: the event log's old part", () => {
  it('is nothing when the oldest event is not older than the cut, and the log is left whole', () => {
    const j = journal();
    for (const ts of [5_000, 6_000, 7_000]) j.appendEvent(null, { type: 'gc', data: { runs: 0, events: 0, bytes: 0, older_than_ms: 0 } }, ts);
    expect(j.retention.lastEventBefore(5_000)).toBeNull();
    expect(j.retention.lastEventBefore(1_000)).toBeNull();
    expect(events(j)).toHaveLength(3);
    j.close();
  });

  it('ends at the last event older than the cut, and goes in batches up to it, oldest first', () => {
    const j = journal();
    for (const ts of [1_000, 2_000, 3_000, 4_000, 9_000, 10_000])
      j.appendEvent(null, { type: 'gc', data: { runs: 0, events: 0, bytes: 0, older_than_ms: 0 } }, ts);
    const seqs = events(j).map((e) => e.seq);
    const last = j.retention.lastEventBefore(5_000);
    expect(last).toBe(seqs[3]);
    expect(j.retention.pruneEvents(last!, 3).events).toBe(3);
    expect(events(j).map((e) => e.ts)).toEqual([4_000, 9_000, 10_000]);
    expect(j.retention.pruneEvents(last!, 3).events).toBe(1);
    expect(j.retention.pruneEvents(last!, 3).events).toBe(0);
    expect(events(j).map((e) => e.seq)).toEqual(seqs.slice(4));
    j.close();
  });

  it('takes every event below the last old one, newer ones among them too (no gap)', () => {
    const j = journal();
    for (const ts of [1_000, 8_000, 2_000, 9_000]) j.appendEvent(null, { type: 'gc', data: { runs: 0, events: 0, bytes: 0, older_than_ms: 0 } }, ts);
    const last = j.retention.lastEventBefore(5_000)!;
    expect(j.retention.pruneEvents(last, 100).events).toBe(3);
    expect(events(j).map((e) => e.ts)).toEqual([9_000]);
    j.close();
  });
});
