import { describe, expect, it } from 'vitest';
import { capUsage, decide, type AdmissionPolicy, type SlotHolder, type Waiter } from '../../src/core/admission.js';
import { AdmissionIndex } from '../../src/core/admission-index.js';
import { NOW, holder, policy, uuids, waiter, wl } from './admission-fixtures.js';

// What only the incremental index has: live policy and hold changes, its
// queue views, and its bookkeeping of who is queued and who holds a slot.
// The admission rules themselves run against both engines in admission.test.ts.

function index(p: AdmissionPolicy, holders: SlotHolder[], waiters: Waiter[], holds: Record<string, number> = {}): AdmissionIndex {
  const ix = new AdmissionIndex(p, holds);
  for (const h of holders) ix.acquire(h);
  for (const w of waiters) ix.enqueue(w);
  return ix;
}

describe('AdmissionIndex live policy and holds', () => {
  it('raising the global cap through setPolicy promotes the next waiter in priority order', () => {
    const p = policy({ max: 2, workloads: { urgent: wl({ priority: 10 }) } });
    const ix = index(p, [], [waiter('d1'), waiter('d2'), waiter('u1', { workload: 'urgent' }), waiter('u2', { workload: 'urgent' })]);
    expect(ix.decide(NOW)).toEqual(['u1', 'u2']);
    ix.setPolicy(policy({ max: 3, workloads: p.workloads }));
    expect(ix.decide(NOW)).toEqual(['d1']);
  });

  it('a priority change reorders the queue already waiting', () => {
    const ix = index(policy({ max: 1 }), [holder('h')], [waiter('d1'), waiter('b1', { workload: 'batch' })]);
    ix.setPolicy(policy({ max: 1, workloads: { batch: wl({ priority: 1 }) } }));
    expect(ix.queuePosition('b1')).toBe(1);
    ix.release('h');
    expect(ix.decide(NOW)).toEqual(['b1']);
  });

  it('lowering a cap on a live index never preempts, and the queue flows again once usage is under it', () => {
    const ix = index(policy({ max: 10 }), [holder('a'), holder('b'), holder('c')], [waiter('w1'), waiter('w2')]);
    ix.setPolicy(policy({ max: 2 }));
    expect(ix.decide(NOW)).toEqual([]);
    expect(uuids(ix.holders())).toEqual(['a', 'b', 'c']);
    ix.release('a');
    expect(ix.decide(NOW)).toEqual([]); // 2 active, cap 2
    ix.release('b');
    expect(ix.decide(NOW)).toEqual(['w1']);
    ix.setPolicy(policy({ max: 10, providers: { claude: 2 } }));
    expect(ix.decide(NOW)).toEqual([]); // c and w1 fill claude's 2
    ix.setPolicy(policy({ max: 10, providers: { claude: 3 } }));
    expect(ix.decide(NOW)).toEqual(['w2']);
  });

  it('setHolds puts a provider on hold and lifts it', () => {
    const ix = index(policy({ max: 4 }), [], [waiter('c1'), waiter('c2')]);
    ix.setHolds({ claude: 50_000 });
    expect(ix.decide(NOW)).toEqual([]);
    ix.setHolds({});
    expect(ix.decide(NOW)).toEqual(['c1', 'c2']);
  });

  it('a max_wait_ms set or changed by setPolicy applies to runs already queued', () => {
    const ix = index(policy(), [], [waiter('a', { enqueued_at: 1_000 }), waiter('b', { enqueued_at: 5_000 })]);
    expect(ix.expired(10_000)).toEqual([]);
    ix.setPolicy(policy({ workloads: { default: wl({ max_wait_ms: 6_000 }) } }));
    expect(ix.expired(10_000)).toEqual(['a']);
    expect(ix.nextDeadline(10_000)).toBe(11_001);
    ix.setPolicy(policy());
    expect(ix.nextDeadline(10_000)).toBeNull();
  });
});

describe('AdmissionIndex queue and holders', () => {
  it('waiting() is in queue order, queuePosition() in admission order', () => {
    const p = policy({ max: 1, workloads: { urgent: wl({ priority: 5 }) } });
    const ix = index(
      p,
      [holder('h')],
      [waiter('d1'), waiter('u1', { workload: 'urgent' }), waiter('d2', { provider: 'codex' }), waiter('u2', { workload: 'urgent' })],
    );
    expect(uuids(ix.waiting())).toEqual(['d1', 'u1', 'd2', 'u2']);
    expect(['u1', 'u2', 'd1', 'd2'].map((u) => ix.queuePosition(u))).toEqual([1, 2, 3, 4]);
    expect([...ix.positions()]).toEqual([
      ['u1', 1],
      ['u2', 2],
      ['d1', 3],
      ['d2', 4],
    ]);
    expect(ix.queuePosition('h')).toBeNull();
    expect(ix.queuePosition('nope')).toBeNull();
  });

  it('an earlier queue_seq arriving late (an undone promotion) goes back to its place', () => {
    const ix = index(policy({ max: 1 }), [], [waiter('a'), waiter('b'), waiter('c')]);
    const a = ix.waiting()[0]!;
    expect(ix.decide(NOW)).toEqual(['a']);
    // The journal write failed: put it back.
    ix.release('a');
    ix.enqueue(a);
    expect(uuids(ix.waiting())).toEqual(['a', 'b', 'c']);
    expect(ix.queuePosition('a')).toBe(1);
    expect(ix.decide(NOW)).toEqual(['a']);
  });

  it('acquire() moves a queued run to the holders; release() and remove() say whether they did anything', () => {
    const ix = index(policy({ max: 2 }), [], [waiter('a'), waiter('b'), waiter('c')]);
    ix.acquire(holder('b'));
    expect(uuids(ix.waiting())).toEqual(['a', 'c']);
    expect(ix.isHolding('b')).toBe(true);
    expect(ix.isQueued('b')).toBe(false);
    expect(ix.decide(NOW)).toEqual(['a']);
    expect(ix.release('zzz')).toBe(false);
    expect(ix.remove('zzz')).toBe(false);
    expect(ix.remove('a')).toBe(false); // a holder, not queued
    expect(ix.remove('c')).toBe(true);
    expect([ix.queued, ix.active]).toEqual([0, 2]);
  });

  it('an expired waiter removed leaves the queue count at zero', () => {
    const ix = index(policy({ workloads: { quick: wl({ max_wait_ms: 100 }) } }), [], [waiter('late', { workload: 'quick', enqueued_at: 0 })]);
    expect(ix.decide(10_000)).toEqual([]);
    expect(ix.queued).toBe(1);
    expect(ix.remove('late')).toBe(true);
    expect(ix.queued).toBe(0);
  });

  it('acquire() of a uuid already holding replaces it', () => {
    const ix = index(policy({ max: 4, providers: { claude: 1 } }), [holder('a')], [waiter('c1'), waiter('x1', { provider: 'codex' })]);
    ix.acquire(holder('a', { provider: 'codex' }));
    expect(ix.holders()).toEqual([{ uuid: 'a', provider: 'codex', workload: 'default' }]);
    expect(ix.decide(NOW)).toEqual(['c1', 'x1']);
  });

  it('enqueue() refuses a uuid that is already queued or holding', () => {
    const ix = index(policy(), [holder('h')], [waiter('a')]);
    expect(() => ix.enqueue(waiter('a'))).toThrow(/already queued/);
    expect(() => ix.enqueue(waiter('h'))).toThrow(/already holds/);
  });
});

describe('AdmissionIndex snapshot', () => {
  it('snapshot() is the pure engine input for the same state, and the index decides what decide() decides on it', () => {
    const p = policy({
      max: 4,
      providers: { claude: 2, gemini: 1 },
      workloads: { review: wl({ reserved: 1, priority: 5, max: 2 }) },
    });
    const holders = [holder('h1'), holder('h2', { provider: 'codex', workload: 'review' })];
    const waiters = [
      waiter('w1', { enqueued_at: 4_000 }),
      waiter('w2', { provider: 'codex', enqueued_at: 7_000 }),
      waiter('w3', { workload: 'review', enqueued_at: 9_000 }),
    ];
    const holds = { claude: 12_000 };
    const ix = index(p, holders, waiters, holds);
    const snap = ix.snapshot(10_000);
    expect(snap).toEqual({ policy: p, holders, waiters, holds, now: 10_000 });
    const by = Object.fromEntries(capUsage(snap).map((u) => [u.cap, u]));
    expect(by.global).toMatchObject({ limit: 4, active: 2, holders: ['h1', 'h2'], queued: 3, oldest_wait_ms: 6_000, reserved: 1, waiting: ['w3', 'w1', 'w2'] });
    expect(by['provider:claude']).toMatchObject({ limit: 2, active: 1, queued: 2, held_until: 12_000 });
    expect(ix.decide(10_000)).toEqual(decide(snap));
  });
});
