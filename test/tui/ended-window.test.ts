// The window of ended runs, through the reducers the session uses: bounded
// however many runs end, oldest ended let go first, the run someone looks at
// kept, and what was left out said and paged back in.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import type { PublicRun } from '../../src/protocol/views.js';
import { ENDED_MAX, ENDED_SLACK, ENDED_WINDOW, OLDER_PAGE, trimEnded, NO_OLDER } from '../../src/tui/state/ended-window.js';
import { reduceOlderPage, reduceShowAll, reduceSnapshot, reduceStream } from '../../src/tui/state/reducers.js';
import { reduceOpenDetails } from '../../src/tui/state/navigation.js';
import { initialState, type Patch, type TuiState } from '../../src/tui/state/store.js';
import { olderLine } from '../../src/tui/view/older.js';
import { msg, run, T0 } from './fixtures.js';

const iso = (t: number): string => new Date(t).toISOString();
const apply = (s: TuiState, p: Patch): TuiState => ({ ...s, ...p });
const endedCount = (s: TuiState): number => Object.values(s.runs.byId).filter((r) => r.status === 'ended').length;

/** A run that ended at T0 + k seconds, queued k-th. */
function endedRun(k: number, over: Partial<PublicRun> = {}): PublicRun {
  return run({ status: 'ended', exit_reason: 'completed', queue_seq: k, ended_at: iso(T0 + k * 1000), ...over });
}

describe('the window of ended runs', () => {
  it('stays bounded while 10,000 runs end, ten to a frame, and keeps every active run', () => {
    const active = Array.from({ length: 20 }, (_, i) => run({ status: 'working', queue_seq: 100_000 + i }));
    let s = apply(initialState(), reduceSnapshot(initialState(), { seq: 0, runs: active }, T0));
    let most = 0;
    for (let k = 1; k <= 10_000; k += 10) {
      const frame = Array.from({ length: 10 }, (_, i) => msg(k + i, 'ended', endedRun(k + i), { reason: 'completed' }));
      s = apply(s, reduceStream(s, frame).patch);
      most = Math.max(most, endedCount(s));
    }
    expect(most).toBeLessThanOrEqual(ENDED_WINDOW + ENDED_SLACK);
    expect(endedCount(s)).toBeGreaterThanOrEqual(ENDED_WINDOW);
    for (const a of active) expect(s.runs.byId[a.uuid]?.status).toBe('working');
    // What went is counted, and the cursor reaches it: everything not held was queued before it.
    expect(s.older.hidden).toBe(10_000 - endedCount(s));
    const held = Object.values(s.runs.byId).filter((r) => r.status === 'ended');
    expect(Math.min(...held.map((r) => r.queue_seq))).toBe(s.older.before);
    expect(olderLine(s)).toBe(`… ${s.older.hidden.toLocaleString('en-US')} older ended runs not shown — L loads ${OLDER_PAGE} more`);
  });

  it('lets the runs that ended first go first (ended_at, then queue_seq), whatever order they were queued in', () => {
    // Queued in one order, ended in the reverse: the first queued ended last and stays.
    const runs = Array.from({ length: ENDED_WINDOW + 10 }, (_, i) => endedRun(i + 1, { queue_seq: ENDED_WINDOW + 10 - i }));
    const byId = Object.fromEntries(runs.map((r) => [r.uuid, r]));
    const t = trimEnded(byId, runs.length, NO_OLDER, new Set(), true)!;
    const gone = runs.filter((r) => !t.byId[r.uuid]);
    expect(gone).toEqual(runs.slice(0, 10));
    expect(t.older).toEqual({ hidden: 10, before: Math.max(...gone.map((r) => r.queue_seq)) + 1, extra: 0, loading: false });
    // Two that ended in the same millisecond: the one queued later is the newer.
    const same = [endedRun(1, { queue_seq: 7, ended_at: iso(T0) }), endedRun(2, { queue_seq: 8, ended_at: iso(T0) })];
    const one = trimEnded(Object.fromEntries(same.map((r) => [r.uuid, r])), 2, { ...NO_OLDER, extra: 1 - ENDED_WINDOW }, new Set(), true)!;
    expect(Object.keys(one.byId)).toEqual([same[1]!.uuid]);
  });

  it('keeps the selected run and the one the details pane shows, however old', () => {
    const old = endedRun(1, { name: 'oldest' });
    const runs = [old, ...Array.from({ length: ENDED_WINDOW }, (_, i) => endedRun(i + 2))];
    let s = initialState();
    s = apply(s, reduceSnapshot(s, { seq: 0, runs: runs.slice(0, 2) }, T0));
    s = apply(s, reduceOpenDetails({ ...s, selected: old.uuid }, old.uuid));
    expect(s.mode).toBe('details');
    const frame = runs.slice(2).map((r, i) => msg(i + 1, 'ended', r, { reason: 'completed' }));
    // Past the bound by more than a batch: the window trims, and the old run stays with its details.
    const more = Array.from({ length: ENDED_SLACK + 1 }, (_, i) => endedRun(ENDED_WINDOW + 10 + i));
    s = apply(s, reduceStream(s, [...frame, ...more.map((r, i) => msg(frame.length + i + 1, 'ended', r, { reason: 'completed' }))]).patch);
    expect(s.runs.byId[old.uuid]?.name).toBe('oldest');
    expect(s.selected).toBe(old.uuid);
    expect(s.mode).toBe('details');
    expect(endedCount(s)).toBe(ENDED_WINDOW + 1);
    expect(s.older.hidden).toBe(runs.length + more.length - ENDED_WINDOW - 1);
  });

  it("reflects a truncated snapshot's total, trims its ended runs at once, and pages older ones in up to the second bound", () => {
    const runs = Array.from({ length: 5000 }, (_, i) => endedRun(3001 + i));
    const working = run({ status: 'working', queue_seq: 9000 });
    let s = initialState();
    s = apply(s, reduceSnapshot(s, { seq: 1, runs: [...runs, working], total: 8001, truncated: true }, T0));
    expect(endedCount(s)).toBe(ENDED_WINDOW);
    expect(s.older.hidden).toBe(8001 - 5001 + 5000 - ENDED_WINDOW);
    expect(s.older.before).toBe(3001 + 5000 - ENDED_WINDOW);
    expect(olderLine(s)).toContain('7,000 older ended runs not shown');
    // Active only: no line (no ended run is listed).
    expect(olderLine({ ...s, showAll: false })).toBeNull();

    // A page: the runs queued just before the cursor, oldest first as run.list sends them.
    const page = runs.slice(5000 - ENDED_WINDOW - OLDER_PAGE, 5000 - ENDED_WINDOW);
    const { patch, added } = reduceOlderPage(s, { runs: page, next: page[0]!.queue_seq });
    s = apply(s, patch);
    expect(added).toBe(OLDER_PAGE);
    expect(endedCount(s)).toBe(ENDED_WINDOW + OLDER_PAGE);
    expect(s.older).toEqual({ hidden: 7000 - OLDER_PAGE, before: page[0]!.queue_seq, extra: OLDER_PAGE, loading: false });
    // A run ending now lets one go in a batch, not the paged-in ones all at once.
    s = apply(s, reduceStream(s, [msg(2, 'ended', endedRun(20_000))]).patch);
    expect(endedCount(s)).toBe(ENDED_WINDOW + OLDER_PAGE + 1);

    // Pages never hold more than the second bound.
    for (let k = 0; k < 20; k++) {
      const next = s.older.before!;
      const older = Array.from({ length: OLDER_PAGE }, (_, i) => endedRun(next - OLDER_PAGE + i, { ended_at: iso(T0 - 1e9 + next - OLDER_PAGE + i) }));
      s = apply(s, reduceOlderPage(s, { runs: older, next: next - OLDER_PAGE }).patch);
      s = apply(s, reduceStream(s, [msg(3 + k, 'ended', endedRun(30_000 + k))]).patch);
    }
    expect(s.older.extra).toBe(ENDED_MAX - ENDED_WINDOW);
    expect(endedCount(s)).toBeLessThanOrEqual(ENDED_MAX + ENDED_SLACK);
    expect(olderLine(s)).toContain('the most kept');

    // Leaving the view of all runs gives the room back.
    s = apply(s, reduceShowAll(s, false));
    expect(endedCount(s)).toBe(ENDED_WINDOW);
    expect(s.older.extra).toBe(0);
    expect(s.runs.byId[working.uuid]?.status).toBe('working');
  });

  it('a snapshot that was not truncated and fits the window says nothing is left out', () => {
    const s0 = initialState();
    const s = apply(s0, reduceSnapshot(s0, { seq: 1, runs: [endedRun(1), run({ status: 'queued' })], total: 2, truncated: false }, T0));
    expect(s.older).toEqual(NO_OLDER);
    expect(olderLine(s)).toBeNull();
  });
});
