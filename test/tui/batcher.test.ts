// The frame batcher: stream messages and deferred changes (stats, the clock)
// go out together as one store change; a held batcher (snapshot on its way)
// keeps stream messages back but not the clock.

import { describe, expect, it } from 'vitest';
import { applyDeferred, FrameBatcher, type Deferred } from '../../src/tui/connection/batcher.js';
import { initialState } from '../../src/tui/state/store.js';
import type { Incoming } from '../../src/tui/state/runs.js';
import { msg, run } from './fixtures.js';

interface Flush {
  msgs: Incoming[];
  deferred: Deferred[];
}

function rig(gap = 50): { b: FrameBatcher; flushes: Flush[]; next: () => Promise<Flush> } {
  const flushes: Flush[] = [];
  let wake: (() => void) | null = null;
  const b = new FrameBatcher((msgs, deferred) => {
    flushes.push({ msgs, deferred });
    wake?.();
  }, gap);
  const next = async (): Promise<Flush> => {
    const have = flushes.length;
    while (flushes.length === have) await new Promise<void>((r) => (wake = r));
    return flushes[flushes.length - 1]!;
  };
  return { b, flushes, next };
}

/** A flushed message's journal position (these tests push event messages only). */
const seqOf = (m: Incoming): number => (m.type === 'event' ? m.event.seq : m.seq);

describe('FrameBatcher', () => {
  it('sends messages and deferred changes of the same moment in one flush', async () => {
    const { b, flushes, next } = rig();
    const r = run();
    b.push(msg(1, 'queued', r));
    b.defer({ now: 5 });
    b.push(msg(2, 'starting', r));
    const f = await next();
    expect(f.msgs.map(seqOf)).toEqual([1, 2]);
    expect(f.deferred).toEqual([{ now: 5 }]);
    expect(flushes).toHaveLength(1);
    b.stop();
  });

  it('spaces flushes at least minGap apart under a steady stream', async () => {
    const { b, next } = rig(40);
    const r = run();
    b.push(msg(1, 'queued', r));
    await next();
    const t1 = Date.now();
    b.push(msg(2, 'working', r));
    b.push(msg(3, 'idle', r));
    const f = await next();
    expect(Date.now() - t1).toBeGreaterThanOrEqual(35); // timers may fire a little early, never a whole gap
    expect(f.msgs).toHaveLength(2);
    b.stop();
  });

  it('while held, deferred changes go out and stream messages wait for release', async () => {
    const { b, next } = rig();
    const r = run();
    b.hold();
    b.push(msg(1, 'queued', r));
    b.defer({ now: 1 });
    const f1 = await next();
    expect(f1.msgs).toEqual([]);
    expect(f1.deferred).toEqual([{ now: 1 }]);
    expect(b.pending).toBe(1);
    b.release();
    const f2 = await next();
    expect(f2.msgs.map(seqOf)).toEqual([1]);
    b.stop();
  });

  it('clear drops stream messages (a snapshot supersedes them) and keeps deferred changes', async () => {
    const { b, next } = rig();
    b.hold();
    b.push(msg(1, 'queued', run()));
    b.clear();
    b.defer({ now: 2 });
    const f = await next();
    expect(f.msgs).toEqual([]);
    expect(f.deferred).toEqual([{ now: 2 }]);
    b.release();
    expect(b.pending).toBe(0);
    b.stop();
  });
});

describe('applyDeferred', () => {
  it('applies changes in order, each function seeing the ones before it', () => {
    const s = initialState({ now: 0 });
    const { patch, state } = applyDeferred(s, [{ now: 10 }, (st) => ({ filter: `at ${st.now}` }), { now: 20 }]);
    expect(patch).toEqual({ now: 20, filter: 'at 10' });
    expect(state.now).toBe(20);
    expect(s.now).toBe(0); // the state passed in is not touched
  });
});
