import { describe, expect, it } from 'vitest';
import { canEnqueue } from '../../src/core/admission.js';
import { ENGINES, NOW, admission, holder, policy, waiter, wl } from './admission-fixtures.js';

// The admission rules, stated once and checked against both engines: the pure
// decide() and the incremental AdmissionIndex (its own bookkeeping is pinned
// in admission-index.test.ts).

describe.each(ENGINES)('admission through %s', (_name, make) => {
  describe('decide', () => {
    it('cap 2 with 5 queued promotes exactly the first two, a second pass promotes nothing, ending one promotes the third', () => {
      const a = admission(
        make,
        policy({ max: 2 }),
        [],
        ['a', 'b', 'c', 'd', 'e'].map((u) => waiter(u)),
      );

      expect(a.decide()).toEqual(['a', 'b']);
      expect(a.holders()).toEqual(['a', 'b']);
      expect(a.waiting()).toEqual(['c', 'd', 'e']);

      expect(a.decide()).toEqual([]);

      expect(a.release('a')).toBe(true);
      expect(a.decide()).toEqual(['c']);
      expect(a.holders()).toEqual(['b', 'c']);
    });

    it('a run blocked by its provider cap is passed by a run of another provider', () => {
      const p = policy({ max: 4, providers: { claude: 1 } });
      expect(admission(make, p, [], [waiter('c1'), waiter('c2'), waiter('x1', { provider: 'codex' })]).decide()).toEqual(['c1', 'x1']);
      // And with claude already full, the codex run behind the claude run still starts.
      expect(admission(make, p, [holder('h')], [waiter('c3'), waiter('x2', { provider: 'codex' })]).decide()).toEqual(['x2']);
    });

    it('a run blocked by its provider cap starts once its provider frees a slot', () => {
      const a = admission(make, policy({ max: 4, providers: { claude: 1 } }), [holder('h')], [waiter('c1'), waiter('c2')]);
      expect(a.decide()).toEqual([]);
      a.release('h');
      expect(a.decide()).toEqual(['c1']);
      expect(a.decide()).toEqual([]);
    });

    it('a run blocked by its workload max is passed by a run of another workload, and starts once its workload frees a slot', () => {
      const p = policy({ max: 4, workloads: { batch: wl({ max: 1 }) } });
      const a = admission(make, p, [], [waiter('b1', { workload: 'batch' }), waiter('b2', { workload: 'batch' }), waiter('d1')]);
      expect(a.decide()).toEqual(['b1', 'd1']);
      a.release('b1');
      expect(a.decide()).toEqual(['b2']);
    });

    it('an unlisted provider is bounded by the global cap only', () => {
      const a = admission(
        make,
        policy({ max: 3, providers: { codex: 1 } }),
        [],
        ['a', 'b', 'c', 'd'].map((u) => waiter(u, { provider: 'gemini' })),
      );
      expect(a.decide()).toEqual(['a', 'b', 'c']);
    });

    it('reserved slots stay idle for other workloads, then the reserving workload gets in', () => {
      const a = admission(
        make,
        policy({ max: 4, workloads: { review: wl({ reserved: 2 }) } }),
        [],
        ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((u) => waiter(u)),
      );
      expect(a.decide()).toEqual(['d1', 'd2']);
      expect(a.decide()).toEqual([]);

      a.enqueue(waiter('r1', { workload: 'review' }));
      expect(a.decide()).toEqual(['r1']);
      // One reservation still unused: the default queue stays where it is.
      expect(a.decide()).toEqual([]);
      // A default run ending frees a slot for the next default run.
      a.release('d1');
      expect(a.decide()).toEqual(['d3']);
    });

    it('a reserving workload may use unreserved slots beyond its reservation', () => {
      const a = admission(
        make,
        policy({ max: 4, workloads: { review: wl({ reserved: 1 }) } }),
        [],
        ['r1', 'r2', 'r3', 'r4'].map((u) => waiter(u, { workload: 'review' })),
      );
      expect(a.decide()).toEqual(['r1', 'r2', 'r3', 'r4']);
    });

    it('a reservation beyond the workload max does not idle slots it could never use', () => {
      const a = admission(
        make,
        policy({ max: 4, workloads: { review: wl({ reserved: 3, max: 1 }) } }),
        [],
        ['d1', 'd2', 'd3', 'd4'].map((u) => waiter(u)),
      );
      expect(a.decide()).toEqual(['d1', 'd2', 'd3']);
    });

    it('priority orders waiters: higher priority is promoted first even with a larger queue_seq', () => {
      const p = policy({ max: 2, workloads: { urgent: wl({ priority: 10 }) } });
      const waiters = [waiter('d1'), waiter('d2'), waiter('u1', { workload: 'urgent' }), waiter('u2', { workload: 'urgent' })];
      expect(admission(make, p, [], waiters).decide()).toEqual(['u1', 'u2']);
      expect(admission(make, policy({ max: 3, workloads: p.workloads }), [], waiters).decide()).toEqual(['u1', 'u2', 'd1']);
    });

    it('priority never preempts: a full cap with a high-priority waiter promotes nothing', () => {
      const a = admission(
        make,
        policy({ max: 2, workloads: { urgent: wl({ priority: 10 }) } }),
        [holder('d1'), holder('d2')],
        [waiter('u1', { workload: 'urgent' })],
      );
      expect(a.decide()).toEqual([]);
      expect(a.holders()).toEqual(['d1', 'd2']);
    });

    it('lowering a cap below active promotes nothing and returns nothing to stop', () => {
      const holders = [holder('a'), holder('b'), holder('c', { provider: 'codex' })];
      const waiters = [waiter('w1'), waiter('w2', { provider: 'codex' })];
      // Global lowered to 2 with 3 running.
      expect(admission(make, policy({ max: 2 }), holders, waiters).decide()).toEqual([]);
      // Provider cap lowered below active: only that provider stops flowing.
      expect(admission(make, policy({ max: 10, providers: { claude: 1 } }), holders, waiters).decide()).toEqual(['w2']);
      // Workload max lowered below active.
      expect(admission(make, policy({ max: 10, workloads: { default: wl({ max: 1 }) } }), holders, waiters).decide()).toEqual([]);
    });

    it('a provider on hold is skipped until now >= until while other providers keep flowing', () => {
      const waiters = [waiter('c1'), waiter('x1', { provider: 'codex' })];
      const holds = { claude: 20_000 };
      const a = admission(make, policy({ max: 4 }), [], waiters, holds);
      expect(a.decide(19_999)).toEqual(['x1']);
      expect(a.nextDeadline(19_999)).toBe(20_000);
      expect(a.decide(20_000)).toEqual(['c1']);
      // At the instant the hold lifts, both start from a fresh queue.
      expect(admission(make, policy({ max: 4 }), [], waiters, holds).decide(20_000)).toEqual(['c1', 'x1']);
    });

    it('a waiter already past its max wait is not promoted, and stays queued until removed', () => {
      const p = policy({ max: 4, workloads: { quick: wl({ max_wait_ms: 100 }) } });
      const a = admission(make, p, [], [waiter('late', { workload: 'quick', enqueued_at: 0 }), waiter('ok', { workload: 'quick', enqueued_at: 9_900 })]);
      expect(a.decide(10_000)).toEqual(['ok']);
      expect(a.waiting()).toEqual(['late']);
      expect(a.expired(10_000)).toEqual(['late']);
      expect(a.remove('late')).toBe(true);
      expect(a.waiting()).toEqual([]);
    });

    it('an empty queue or zero global cap promotes nothing', () => {
      expect(admission(make, policy()).decide()).toEqual([]);
      expect(admission(make, policy({ max: 0 }), [], [waiter('a')]).decide()).toEqual([]);
    });

    it('workload and provider names that shadow Object.prototype members are treated as unlisted', () => {
      const waiters = [waiter('a', { provider: 'constructor', workload: '__proto__' }), waiter('b', { workload: 'toString' })];
      expect(admission(make, policy({ max: 4 }), [], waiters).decide()).toEqual(['a', 'b']);
      // JSON.parse makes "__proto__" an own key: a hold on a provider of that name.
      const holds = JSON.parse('{"__proto__": 20000}') as Record<string, number>;
      const held = admission(make, policy({ max: 4 }), [], [waiter('c', { provider: '__proto__' }), waiter('d', { provider: 'constructor' })], holds);
      expect(held.decide()).toEqual(['d']);
    });
  });

  describe('expired and nextDeadline', () => {
    const p = policy({ workloads: { quick: wl({ max_wait_ms: 1000 }) } });

    it('expired returns waiters over their workload max_wait_ms (strictly greater), not others', () => {
      const a = admission(
        make,
        p,
        [],
        [
          waiter('over', { workload: 'quick', enqueued_at: 8_999 }),
          waiter('exact', { workload: 'quick', enqueued_at: 9_000 }),
          waiter('fresh', { workload: 'quick', enqueued_at: 9_500 }),
          waiter('nolimit', { enqueued_at: 0 }),
        ],
      );
      expect(a.expired(10_000)).toEqual(['over']);
    });

    it('expired lists in queue order even when enqueued_at is not', () => {
      const a = admission(
        make,
        p,
        [],
        [
          waiter('b', { workload: 'quick', enqueued_at: 5_000 }),
          waiter('a', { workload: 'quick', enqueued_at: 1_000 }),
          waiter('c', { workload: 'quick', enqueued_at: 3_000 }),
        ],
      );
      expect(a.expired(10_000)).toEqual(['b', 'a', 'c']);
    });

    it('nextDeadline gives the earliest expiry or hold lift in the future', () => {
      const waiters = [waiter('a', { workload: 'quick', enqueued_at: 9_500 }), waiter('b', { workload: 'quick', enqueued_at: 9_200 })];
      // b expires first at 9_200 + 1000 + 1 (strictly greater than max wait).
      expect(admission(make, p, [], waiters).nextDeadline(10_000)).toBe(10_201);
      // A hold lifting sooner wins; holds already lifted are ignored.
      expect(admission(make, p, [], waiters, { claude: 10_050, codex: 9_000 }).nextDeadline(10_000)).toBe(10_050);
    });

    it('nextDeadline ignores past deadlines and returns null when nothing is pending', () => {
      const already = [waiter('old', { workload: 'quick', enqueued_at: 0 }), waiter('nolimit')];
      expect(admission(make, p, [], already, { claude: 10_000 }).nextDeadline(10_000)).toBeNull();
      expect(admission(make, p).nextDeadline(NOW)).toBeNull();
    });
  });

  describe('capUsage', () => {
    it('capUsage reports limit/active/holders/queued/oldest_wait_ms per cap', () => {
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
      const usage = admission(make, p, holders, waiters, { claude: 12_000 }).capUsage(10_000);
      const by = Object.fromEntries(usage.map((u) => [u.cap, u]));

      expect(usage.map((u) => u.cap)).toEqual(['global', 'provider:claude', 'provider:codex', 'provider:gemini', 'workload:default', 'workload:review']);
      expect(by.global).toEqual({
        cap: 'global',
        limit: 4,
        active: 2,
        holders: ['h1', 'h2'],
        queued: 3,
        oldest_wait_ms: 6_000,
        reserved: 1,
        // Admission order: the priority-5 review run first, then FIFO.
        waiting: ['w3', 'w1', 'w2'],
        held_until: null,
        priority: null,
      });
      expect(by['provider:claude']).toMatchObject({ limit: 2, active: 1, holders: ['h1'], queued: 2, oldest_wait_ms: 6_000, held_until: 12_000 });
      // No configured cap: bounded by (and reported as) the global max.
      expect(by['provider:codex']).toMatchObject({ limit: 4, active: 1, holders: ['h2'], queued: 1, oldest_wait_ms: 3_000, held_until: null });
      expect(by['provider:gemini']).toMatchObject({ limit: 1, active: 0, holders: [], queued: 0, oldest_wait_ms: 0, waiting: [] });
      expect(by['workload:default']).toMatchObject({ limit: 4, active: 1, queued: 2, oldest_wait_ms: 6_000, reserved: 0, waiting: ['w1', 'w2'] });
      expect(by['workload:review']).toMatchObject({
        limit: 2,
        active: 1,
        holders: ['h2'],
        queued: 1,
        oldest_wait_ms: 1_000,
        reserved: 1,
        held_until: null,
        priority: 5,
      });
    });

    it('capUsage lists at most the first five waiters in admission order', () => {
      const global = admission(
        make,
        policy(),
        [],
        ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((u) => waiter(u)),
      ).capUsage()[0]!;
      expect(global.queued).toBe(7);
      expect(global.waiting).toEqual(['a', 'b', 'c', 'd', 'e']);
    });
  });
});

describe('canEnqueue', () => {
  it('canEnqueue refuses at max_queued and never refuses when unbounded', () => {
    expect(canEnqueue(policy({ max_queued: 3 }), 2)).toBe(true);
    expect(canEnqueue(policy({ max_queued: 3 }), 3)).toBe(false);
    expect(canEnqueue(policy({ max_queued: 0 }), 0)).toBe(false);
    expect(canEnqueue(policy({ max_queued: null }), 1_000_000)).toBe(true);
  });
});
