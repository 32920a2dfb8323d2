// Runs that need a person lead the list, newest first, each with its reason;
// an ended one leaves once looked at; J walks them.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import { attentionOf } from '../../src/tui/state/attention.js';
import { reduceSeen, reduceSnapshot } from '../../src/tui/state/reducers.js';
import { computeView } from '../../src/tui/state/runs-view.js';
import { initialState } from '../../src/tui/state/store.js';
import { needText } from '../../src/tui/view/columns.js';
import { run, T0 } from './fixtures.js';

const iso = (t: number): string => new Date(t).toISOString();
const NOW = T0 + 600_000;

describe('what needs you', () => {
  it('says why for each kind, and nothing for a run going well, a completed one, or one you killed', () => {
    const at = iso(T0);
    const reason = (over: Parameters<typeof run>[0]): string | null => attentionOf(run({ status_at: at, ...over }), NOW, {})?.reason ?? null;
    expect(reason({ status: 'blocked', blocked_kind: 'login' })).toBe('blocked: login');
    expect(reason({ status: 'blocked', blocked_kind: 'question' })).toBe('blocked: question');
    expect(reason({ status: 'blocked', blocked_kind: 'limit' })).toBe('usage limit');
    expect(reason({ status: 'ended', exit_reason: 'errored', exit_code: 2 })).toBe('errored (exit 2)');
    expect(reason({ status: 'ended', exit_reason: 'budget' })).toBe('budget: over budget');
    expect(reason({ status: 'ended', exit_reason: 'loop' })).toBe('loop');
    expect(reason({ status: 'working', loop: { detected: true, warned: false, repetitions: 5 } })).toBe('loop detected');
    expect(reason({ status: 'working', budget: { tokens: { used: 85, limit: 100, fraction: 0.85, warn: true } } as never })).toBe('budget tokens 85%');
    expect(reason({ status: 'idle', interactive: true })).toBe('awaiting input');
    for (const ok of [
      { status: 'working' },
      { status: 'idle', interactive: false },
      { status: 'ended', exit_reason: 'completed' },
      { status: 'ended', exit_reason: 'killed' },
      { status: 'queued', held_until: iso(NOW + 60_000) },
    ] as const) {
      expect(reason(ok)).toBeNull();
    }
  });

  it('a run blocked on a usage limit counts the hold down where it is shown', () => {
    const a = attentionOf(run({ status: 'blocked', blocked_kind: 'limit', held_until: iso(NOW + 3_600_000 + 120_000) }), NOW, {})!;
    expect(a.reason).toBe('limit, held');
    expect(needText(a, NOW)).toBe('limit, held 1h02m');
    expect(needText(a, NOW + 3_600_000)).toMatch(/^limit, held 2m/);
  });

  it('a run blocked on a usage limit its agent waits out by itself says the agent waits, and counts its wait down, not the hold', () => {
    const a = attentionOf(
      run({
        status: 'blocked',
        blocked_kind: 'limit',
        held_until: iso(NOW + 3_600_000),
        agent_retry: { attempt: 1, max: 300, error: 'rate_limit', since: iso(NOW - 60_000), until: iso(NOW + 1_800_000) },
      }),
      NOW,
      {},
    )!;
    expect(a.reason).toBe('limit, the agent waits');
    expect(needText(a, NOW)).toBe('limit, the agent waits 30m');
    expect(needText(a, NOW, 17)).toBe('agent waits 30m');
  });

  it('they lead the list newest first, whatever the sort; an ended one is listed even with active runs only; one looked at leaves', () => {
    const old = run({ name: 'old-error', status: 'ended', exit_reason: 'errored', exit_code: 1, status_at: iso(T0 + 1000) });
    const ask = run({ name: 'asks', status: 'blocked', blocked_kind: 'question', status_at: iso(T0 + 5000) });
    const fine = run({ name: 'fine', status: 'working', status_at: iso(T0 + 9000) });
    const done = run({ name: 'done', status: 'ended', exit_reason: 'completed', status_at: iso(T0 + 9500) });
    const byId = Object.fromEntries([old, ask, fine, done].map((r) => [r.uuid, r]));
    const names = (ids: readonly string[]): string[] => ids.map((id) => byId[id]!.name);
    let v = computeView(byId, { filter: '', showAll: true, now: NOW });
    expect(names(v.ids)).toEqual(['asks', 'old-error', 'fine', 'done']);
    expect(Object.keys(v.attention).length).toBe(2);
    v = computeView(byId, { filter: '', showAll: false, now: NOW });
    expect(names(v.ids)).toEqual(['asks', 'old-error', 'fine']);
    v = computeView(byId, { filter: '', showAll: true, now: NOW, sort: { key: 'name', reverse: false } });
    expect(names(v.ids)).toEqual(['asks', 'old-error', 'done', 'fine']);
    // Looked at: the ended one takes its place among the ended again.
    const s0 = initialState({ now: NOW });
    const s = { ...s0, ...reduceSnapshot(s0, { seq: 1, runs: [old, ask, fine, done] }, NOW) };
    const patch = reduceSeen(s, old.uuid);
    expect(patch.seen).toEqual({ [old.uuid]: true });
    expect(names(patch.view!.ids)).toEqual(['asks', 'fine', 'old-error', 'done']);
    // A live run is not "seen" away: it needs you until its state changes.
    expect(reduceSeen(s, ask.uuid)).toEqual({});
  });
});

describe('a stalled turn', () => {
  it('needs you while flagged, counting the silence up; the flag gone, it does not', () => {
    const since = T0 + 60_000;
    const stalled = run({ status: 'working', status_at: iso(T0), stalled_since: iso(since) });
    const a = attentionOf(stalled, NOW, {})!;
    expect(a).toMatchObject({ reason: 'stalled', at: since, since });
    expect(needText(a, NOW)).toBe('stalled 9m');
    expect(needText(a, NOW + 60_000)).toBe('stalled 10m');
    // It leads the list like any other need.
    const fine = run({ name: 'fine', status: 'working', status_at: iso(T0 + 9000) });
    const v = computeView({ [stalled.uuid]: stalled, [fine.uuid]: fine }, { filter: '', showAll: false, now: NOW });
    expect(v.ids[0]).toBe(stalled.uuid);
    expect(v.attention[stalled.uuid]?.reason).toBe('stalled');
    expect(attentionOf(run({ status: 'working', stalled_since: null }), NOW, {})).toBeNull();
  });
});
