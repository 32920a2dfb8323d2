import { describe, expect, it } from 'vitest';
import { capUsage, decide, type AdmissionPolicy, type SlotHolder, type Waiter, type WorkloadPolicy } from '../../src/core/admission.js';
import { AdmissionIndex } from '../../src/core/admission-index.js';

// The named behaviours of admission.test.ts, through the incremental index.

function policy(over: Partial<AdmissionPolicy> = {}): AdmissionPolicy {
  return { max: 4, providers: {}, workloads: {}, max_queued: null, ...over };
}

function wl(over: Partial<WorkloadPolicy> = {}): WorkloadPolicy {
  return { reserved: 0, priority: 0, max: null, max_wait_ms: null, ...over };
}

let seq = 0;
function waiter(uuid: string, over: Partial<Waiter> = {}): Waiter {
  seq++;
  return { uuid, provider: 'claude', workload: 'default', queue_seq: seq, enqueued_at: 1000, ...over };
}

function holder(uuid: string, over: Partial<SlotHolder> = {}): SlotHolder {
  return { uuid, provider: 'claude', workload: 'default', ...over };
}

function index(p: AdmissionPolicy, holders: SlotHolder[], waiters: Waiter[], holds: Record<string, number> = {}): AdmissionIndex {
  const ix = new AdmissionIndex(p, holds);
  for (const h of holders) ix.acquire(h);
  for (const w of waiters) ix.enqueue(w);
  return ix;
}

const NOW = 10_000;
const uuids = (xs: readonly { uuid: string }[]) => xs.map((x) => x.uuid);

describe('AdmissionIndex.decide', () => {
  it('cap 2 with 5 queued promotes exactly the first two, a second pass promotes nothing, ending one promotes the third', () => {
    const ix = index(policy({ max: 2 }), [], ['a', 'b', 'c', 'd', 'e'].map((u) => waiter(u)));

    expect(ix.decide(NOW)).toEqual(['a', 'b']);
    // decide() moved them itself.
    expect(uuids(ix.holders())).toEqual(['a', 'b']);
    expect(uuids(ix.waiting())).toEqual(['c', 'd', 'e']);

    expect(ix.decide(NOW)).toEqual([]);

    expect(ix.release('a')).toBe(true);
    expect(ix.decide(NOW)).toEqual(['c']);
    expect(uuids(ix.holders())).toEqual(['b', 'c']);
  });

  it('a run blocked by its provider cap is passed by a run of another provider', () => {
    const p = policy({ max: 4, providers: { claude: 1 } });
    expect(index(p, [], [waiter('c1'), waiter('c2'), waiter('x1', { provider: 'codex' })]).decide(NOW)).toEqual(['c1', 'x1']);
    // And with claude already full, the codex run behind the claude run still starts.
    expect(index(p, [holder('h')], [waiter('c3'), waiter('x2', { provider: 'codex' })]).decide(NOW)).toEqual(['x2']);
  });

  it('a run blocked by its provider cap starts once its provider frees a slot', () => {
    const ix = index(policy({ max: 4, providers: { claude: 1 } }), [holder('h')], [waiter('c1'), waiter('c2')]);
    expect(ix.decide(NOW)).toEqual([]);
    ix.release('h');
    expect(ix.decide(NOW)).toEqual(['c1']);
    expect(ix.decide(NOW)).toEqual([]);
  });

  it('a run blocked by its workload max is passed by a run of another workload', () => {
    const p = policy({ max: 4, workloads: { batch: wl({ max: 1 }) } });
    const ix = index(p, [], [waiter('b1', { workload: 'batch' }), waiter('b2', { workload: 'batch' }), waiter('d1')]);
    expect(ix.decide(NOW)).toEqual(['b1', 'd1']);
    ix.release('b1');
    expect(ix.decide(NOW)).toEqual(['b2']);
  });

  it('an unlisted provider is bounded by the global cap only', () => {
    const ix = index(policy({ max: 3, providers: { codex: 1 } }), [], ['a', 'b', 'c', 'd'].map((u) => waiter(u, { provider: 'gemini' })));
    expect(ix.decide(NOW)).toEqual(['a', 'b', 'c']);
  });

  it('reserved slots stay idle for other workloads, then the reserving workload gets in', () => {
    const ix = index(policy({ max: 4, workloads: { review: wl({ reserved: 2 }) } }), [], ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((u) => waiter(u)));
    expect(ix.decide(NOW)).toEqual(['d1', 'd2']);
    expect(ix.decide(NOW)).toEqual([]);

    ix.enqueue(waiter('r1', { workload: 'review' }));
    expect(ix.decide(NOW)).toEqual(['r1']);
    // One reservation still unused: the default queue stays where it is.
    expect(ix.decide(NOW)).toEqual([]);
    // A default run ending frees a slot for the next default run.
    ix.release('d1');
    expect(ix.decide(NOW)).toEqual(['d3']);
  });

  it('a reserving workload may use unreserved slots beyond its reservation', () => {
    const ix = index(policy({ max: 4, workloads: { review: wl({ reserved: 1 }) } }), [], ['r1', 'r2', 'r3', 'r4'].map((u) => waiter(u, { workload: 'review' })));
    expect(ix.decide(NOW)).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('a reservation beyond the workload max does not idle slots it could never use', () => {
    const ix = index(policy({ max: 4, workloads: { review: wl({ reserved: 3, max: 1 }) } }), [], ['d1', 'd2', 'd3', 'd4'].map((u) => waiter(u)));
    expect(ix.decide(NOW)).toEqual(['d1', 'd2', 'd3']);
  });

  it('priority orders waiters: higher priority is promoted first even with a larger queue_seq', () => {
    const p = policy({ max: 2, workloads: { urgent: wl({ priority: 10 }) } });
    const waiters = [waiter('d1'), waiter('d2'), waiter('u1', { workload: 'urgent' }), waiter('u2', { workload: 'urgent' })];
    const ix = index(p, [], waiters);
    expect(ix.decide(NOW)).toEqual(['u1', 'u2']);
    expect(index(policy({ max: 3, workloads: p.workloads }), [], waiters).decide(NOW)).toEqual(['u1', 'u2', 'd1']);
    // The same through a live policy change.
    ix.setPolicy(policy({ max: 3, workloads: p.workloads }));
    expect(ix.decide(NOW)).toEqual(['d1']);
  });

  it('priority never preempts: a full cap with a high-priority waiter promotes nothing', () => {
    const ix = index(policy({ max: 2, workloads: { urgent: wl({ priority: 10 }) } }), [holder('d1'), holder('d2')], [waiter('u1', { workload: 'urgent' })]);
    expect(ix.decide(NOW)).toEqual([]);
    expect(uuids(ix.holders())).toEqual(['d1', 'd2']);
  });

  it('a priority change reorders the queue already waiting', () => {
    const ix = index(policy({ max: 1 }), [holder('h')], [waiter('d1'), waiter('b1', { workload: 'batch' })]);
    ix.setPolicy(policy({ max: 1, workloads: { batch: wl({ priority: 1 }) } }));
    expect(ix.queuePosition('b1')).toBe(1);
    ix.release('h');
    expect(ix.decide(NOW)).toEqual(['b1']);
  });

  it('lowering a cap below active promotes nothing and returns nothing to stop', () => {
    const holders = [holder('a'), holder('b'), holder('c', { provider: 'codex' })];
    const waiters = [waiter('w1'), waiter('w2', { provider: 'codex' })];
    // Global lowered to 2 with 3 running.
    expect(index(policy({ max: 2 }), holders, waiters).decide(NOW)).toEqual([]);
    // Provider cap lowered below active: only that provider stops flowing.
    expect(index(policy({ max: 10, providers: { claude: 1 } }), holders, waiters).decide(NOW)).toEqual(['w2']);
    // Workload max lowered below active.
    expect(index(policy({ max: 10, workloads: { default: wl({ max: 1 }) } }), holders, waiters).decide(NOW)).toEqual([]);
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

  it('a provider on hold is skipped until now >= until while other providers keep flowing', () => {
    const ix = index(policy({ max: 4 }), [], [waiter('c1'), waiter('x1', { provider: 'codex' })], { claude: 20_000 });
    expect(ix.decide(19_999)).toEqual(['x1']);
    expect(ix.nextDeadline(19_999)).toBe(20_000);
    expect(ix.decide(20_000)).toEqual(['c1']);
  });

  it('setHolds puts a provider on hold and lifts it', () => {
    const ix = index(policy({ max: 4 }), [], [waiter('c1'), waiter('c2')]);
    ix.setHolds({ claude: 50_000 });
    expect(ix.decide(NOW)).toEqual([]);
    ix.setHolds({});
    expect(ix.decide(NOW)).toEqual(['c1', 'c2']);
  });

  it('a waiter already past its max wait is not promoted, and stays queued until removed', () => {
    const p = policy({ max: 4, workloads: { quick: wl({ max_wait_ms: 100 }) } });
    const ix = index(p, [], [waiter('late', { workload: 'quick', enqueued_at: 0 }), waiter('ok', { workload: 'quick', enqueued_at: 9_900 })]);
    expect(ix.decide(10_000)).toEqual(['ok']);
    expect(uuids(ix.waiting())).toEqual(['late']);
    expect(ix.expired(10_000)).toEqual(['late']);
    expect(ix.remove('late')).toBe(true);
    expect(ix.queued).toBe(0);
  });

  it('an empty queue or zero global cap promotes nothing', () => {
    expect(index(policy(), [], []).decide(NOW)).toEqual([]);
    expect(index(policy({ max: 0 }), [], [waiter('a')]).decide(NOW)).toEqual([]);
  });

  it('workload and provider names that shadow Object.prototype members are treated as unlisted', () => {
    const waiters = [waiter('a', { provider: 'constructor', workload: '__proto__' }), waiter('b', { workload: 'toString' })];
    expect(index(policy({ max: 4 }), [], waiters).decide(NOW)).toEqual(['a', 'b']);
    const held = index(policy({ max: 4 }), [], [waiter('c', { provider: '__proto__' }), waiter('d', { provider: 'constructor' })], JSON.parse('{"__proto__": 20000}'));
    expect(held.decide(NOW)).toEqual(['d']);
  });
});

describe('AdmissionIndex queue and holders', () => {
  it('waiting() is in queue order, queuePosition() in admission order', () => {
    const p = policy({ max: 1, workloads: { urgent: wl({ priority: 5 }) } });
    const ix = index(p, [holder('h')], [waiter('d1'), waiter('u1', { workload: 'urgent' }), waiter('d2', { provider: 'codex' }), waiter('u2', { workload: 'urgent' })]);
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
    const a = ix.waiting()[0];
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

describe('AdmissionIndex expired and nextDeadline', () => {
  const p = policy({ workloads: { quick: wl({ max_wait_ms: 1000 }) } });

  it('expired returns waiters over their workload max_wait_ms (strictly greater), not others', () => {
    const ix = index(p, [], [
      waiter('over', { workload: 'quick', enqueued_at: 8_999 }),
      waiter('exact', { workload: 'quick', enqueued_at: 9_000 }),
      waiter('fresh', { workload: 'quick', enqueued_at: 9_500 }),
      waiter('nolimit', { enqueued_at: 0 }),
    ]);
    expect(ix.expired(10_000)).toEqual(['over']);
  });

  it('expired lists in queue order even when enqueued_at is not', () => {
    const ix = index(p, [], [waiter('b', { workload: 'quick', enqueued_at: 5_000 }), waiter('a', { workload: 'quick', enqueued_at: 1_000 }), waiter('c', { workload: 'quick', enqueued_at: 3_000 })]);
    expect(ix.expired(10_000)).toEqual(['b', 'a', 'c']);
  });

  it('nextDeadline gives the earliest expiry or hold lift in the future', () => {
    const waiters = [waiter('a', { workload: 'quick', enqueued_at: 9_500 }), waiter('b', { workload: 'quick', enqueued_at: 9_200 })];
    // b expires first at 9_200 + 1000 + 1 (strictly greater than max wait).
    expect(index(p, [], waiters).nextDeadline(10_000)).toBe(10_201);
    // A hold lifting sooner wins; holds already lifted are ignored.
    expect(index(p, [], waiters, { claude: 10_050, codex: 9_000 }).nextDeadline(10_000)).toBe(10_050);
  });

  it('nextDeadline ignores past deadlines and returns null when nothing is pending', () => {
    const already = [waiter('old', { workload: 'quick', enqueued_at: 0 }), waiter('nolimit')];
    expect(index(p, [], already, { claude: 10_000 }).nextDeadline(10_000)).toBeNull();
    expect(index(p, [], []).nextDeadline(NOW)).toBeNull();
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

describe('AdmissionIndex snapshot', () => {
  it('capUsage(snapshot) reports limit/active/holders/queued/oldest_wait_ms per cap', () => {
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
    // And the index decides what the pure engine decides on it.
    expect(ix.decide(10_000)).toEqual(decide(snap));
  });
});
