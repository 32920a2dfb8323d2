// Which events are notable and how bursts batch, with time as a parameter.

import { describe, expect, it } from 'vitest';
import { Batcher, MAX_BATCH_ITEMS, notableKind, summarize, type SummaryItem } from '../../src/core/notify-policy.js';

const plain = { interactive: false };
const chat = { interactive: true };

describe('notable events', () => {
  it('an end other than completed is ended_not_completed; an end by budget is budget; a completed end is not notable', () => {
    expect(notableKind({ type: 'ended', data: { reason: 'errored' }, run: plain })).toBe('ended_not_completed');
    expect(notableKind({ type: 'ended', data: { reason: 'timeout' }, run: plain })).toBe('ended_not_completed');
    expect(notableKind({ type: 'ended', data: { reason: 'budget' }, run: plain })).toBe('budget');
    expect(notableKind({ type: 'ended', data: { reason: 'completed' }, run: plain })).toBeNull();
  });

  it('a block is blocked, except a usage limit, which is told once, by its hold', () => {
    for (const kind of ['login', 'question', 'unknown']) expect(notableKind({ type: 'blocked', data: { kind }, run: plain })).toBe('blocked');
    expect(notableKind({ type: 'blocked', data: { kind: 'limit' }, run: plain })).toBeNull();
    // A request is told by its own event, naming what it asks; the block that comes with it adds nothing.
    expect(notableKind({ type: 'blocked', data: { kind: 'approval' }, run: plain })).toBeNull();
    expect(notableKind({ type: 'approval_asked', data: { id: 1, summary: 'Bash: npm test' }, run: plain })).toBe('approval');
    expect(notableKind({ type: 'approval_decided', data: { id: 1 }, run: plain })).toBeNull();
    expect(summarize({ items: [{ kind: 'approval', name: 'build', type: 'approval_asked', data: { summary: 'Bash: npm test' } }], omitted: 0 })).toBe(
      'build asks: Bash: npm test',
    );
    expect(notableKind({ type: 'hold', data: { provider: 'claude' }, run: plain })).toBe('hold');
  });

  it('idle is awaiting_input only for an interactive run', () => {
    expect(notableKind({ type: 'idle', data: {}, run: chat })).toBe('awaiting_input');
    expect(notableKind({ type: 'idle', data: {}, run: plain })).toBeNull();
    expect(notableKind({ type: 'idle', data: {}, run: null })).toBeNull();
  });

  it('budget warnings (run or fleet), a spent fleet budget and a loop are told; progress is not', () => {
    expect(notableKind({ type: 'budget_warning', data: { meter: 'tokens' }, run: plain })).toBe('budget');
    expect(notableKind({ type: 'budget_warning', data: { scope: 'fleet' }, run: null })).toBe('budget');
    expect(notableKind({ type: 'budget_exceeded', data: { scope: 'fleet' }, run: null })).toBe('budget');
    expect(notableKind({ type: 'loop_detected', data: { action: 'warn' }, run: plain })).toBe('loop');
    for (const type of ['queued', 'starting', 'working', 'usage', 'config_reloaded', 'hold_lifted'])
      expect(notableKind({ type, data: {}, run: plain })).toBeNull();
  });
});

describe('batching', () => {
  it('a burst within the window is one batch, due the window after its first item', () => {
    const b = new Batcher<number>(5_000);
    expect(b.take(0)).toBeNull();
    expect(b.add(1, 1_000)).toBe(6_000);
    for (let i = 2; i <= 50; i++) expect(b.add(i, 1_000 + i * 50)).toBe(6_000);
    expect(b.take(5_999)).toBeNull();
    const batch = b.take(6_000)!;
    expect(batch.items).toHaveLength(50);
    expect(batch.omitted).toBe(0);
    expect(b.take(20_000)).toBeNull();
  });

  it('the window is fixed from its first item: a steady trickle is still told every window', () => {
    const b = new Batcher<number>(1_000);
    b.add(1, 0);
    b.add(2, 900);
    expect(b.take(1_000)!.items).toEqual([1, 2]);
    expect(b.add(3, 1_100)).toBe(2_100);
  });

  it('a zero window makes each burst due at once; force takes an open batch early', () => {
    const b = new Batcher<number>(0);
    expect(b.add(1, 10)).toBe(10);
    expect(b.take(10)!.items).toEqual([1]);
    const c = new Batcher<number>(60_000);
    c.add(1, 0);
    expect(c.take(1, true)!.items).toEqual([1]);
  });

  it('a new window length applies to the open batch', () => {
    const b = new Batcher<number>(60_000);
    b.add(1, 0);
    b.setBatchMs(100);
    expect(b.dueAt()).toBe(100);
  });

  it(`lists at most ${MAX_BATCH_ITEMS} items and counts the rest`, () => {
    const b = new Batcher<number>(10);
    for (let i = 0; i < MAX_BATCH_ITEMS + 7; i++) b.add(i, 0);
    const batch = b.take(10)!;
    expect(batch.items).toHaveLength(MAX_BATCH_ITEMS);
    expect(batch.omitted).toBe(7);
  });
});

describe('summary', () => {
  const ended = (name: string): SummaryItem => ({ kind: 'ended_not_completed', name, type: 'ended', data: { reason: 'errored', detail: null } });
  it('names one run, counts many and names the first three', () => {
    expect(summarize({ items: [ended('a')], omitted: 0 })).toBe('a ended: errored');
    expect(summarize({ items: ['a', 'b', 'c', 'd'].map(ended), omitted: 0 })).toBe('4 runs ended not completed: a errored, b errored, c errored, …');
  });

  it('puts kinds side by side, and says what was left out', () => {
    const s = summarize({
      items: [
        ended('a'),
        { kind: 'awaiting_input', name: 'chat', type: 'idle', data: {} },
        { kind: 'budget', name: null, type: 'budget_warning', data: { scope: 'fleet', meter: 'tokens', fraction: 0.8 } },
      ],
      omitted: 2,
    });
    expect(s).toBe('a ended: errored · chat awaits input · budget: fleet tokens at 80% · and 2 more');
  });
});
