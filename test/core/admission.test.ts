import { describe, expect, it } from 'vitest';
import {
  canEnqueue,
  capUsage,
  decide,
  expired,
  nextDeadline,
  type AdmissionInput,
  type AdmissionPolicy,
  type SlotHolder,
  type Waiter,
  type WorkloadPolicy,
} from '../../src/core/admission.js';

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

function input(p: AdmissionPolicy, holders: SlotHolder[], waiters: Waiter[], extra: Partial<AdmissionInput> = {}): AdmissionInput {
  return { policy: p, holders, waiters, now: 10_000, ...extra };
}

/** Apply a decision: promoted waiters become holders. */
function apply(holders: SlotHolder[], waiters: Waiter[], promoted: string[]): [SlotHolder[], Waiter[]] {
  const set = new Set(promoted);
  const moved = waiters.filter((w) => set.has(w.uuid)).map(({ uuid, provider, workload }) => ({ uuid, provider, workload }));
  return [[...holders, ...moved], waiters.filter((w) => !set.has(w.uuid))];
}

describe('decide', () => {
  it('cap 2 with 5 queued promotes exactly the first two, a second pass promotes nothing, ending one promotes the third', () => {
    const p = policy({ max: 2 });
    let holders: SlotHolder[] = [];
    let waiters = ['a', 'b', 'c', 'd', 'e'].map((u) => waiter(u));

    const first = decide(input(p, holders, waiters));
    expect(first).toEqual(['a', 'b']);
    [holders, waiters] = apply(holders, waiters, first);

    expect(decide(input(p, holders, waiters))).toEqual([]);

    holders = holders.filter((h) => h.uuid !== 'a');
    expect(decide(input(p, holders, waiters))).toEqual(['c']);
  });

  it('a run blocked by its provider cap is passed by a run of another provider', () => {
    const p = policy({ max: 4, providers: { claude: 1 } });
    const waiters = [waiter('c1'), waiter('c2'), waiter('x1', { provider: 'codex' })];
    expect(decide(input(p, [], waiters))).toEqual(['c1', 'x1']);
    // And with claude already full, the codex run behind the claude run still starts.
    expect(decide(input(p, [holder('h')], [waiter('c3'), waiter('x2', { provider: 'codex' })]))).toEqual(['x2']);
  });

  it('a run blocked by its workload max is passed by a run of another workload', () => {
    const p = policy({ max: 4, workloads: { batch: wl({ max: 1 }) } });
    const waiters = [waiter('b1', { workload: 'batch' }), waiter('b2', { workload: 'batch' }), waiter('d1')];
    expect(decide(input(p, [], waiters))).toEqual(['b1', 'd1']);
  });

  it('an unlisted provider is bounded by the global cap only', () => {
    const p = policy({ max: 3, providers: { codex: 1 } });
    const waiters = ['a', 'b', 'c', 'd'].map((u) => waiter(u, { provider: 'gemini' }));
    expect(decide(input(p, [], waiters))).toEqual(['a', 'b', 'c']);
  });

  it('reserved slots stay idle for other workloads, then the reserving workload gets in', () => {
    const p = policy({ max: 4, workloads: { review: wl({ reserved: 2 }) } });
    let holders: SlotHolder[] = [];
    let waiters = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((u) => waiter(u));

    const first = decide(input(p, holders, waiters));
    expect(first).toEqual(['d1', 'd2']);
    [holders, waiters] = apply(holders, waiters, first);
    expect(decide(input(p, holders, waiters))).toEqual([]);

    waiters = [...waiters, waiter('r1', { workload: 'review' })];
    expect(decide(input(p, holders, waiters))).toEqual(['r1']);
  });

  it('a reserving workload may use unreserved slots beyond its reservation', () => {
    const p = policy({ max: 4, workloads: { review: wl({ reserved: 1 }) } });
    const waiters = ['r1', 'r2', 'r3', 'r4'].map((u) => waiter(u, { workload: 'review' }));
    expect(decide(input(p, [], waiters))).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('a reservation beyond the workload max does not idle slots it could never use', () => {
    const p = policy({ max: 4, workloads: { review: wl({ reserved: 3, max: 1 }) } });
    const waiters = ['d1', 'd2', 'd3', 'd4'].map((u) => waiter(u));
    expect(decide(input(p, [], waiters))).toEqual(['d1', 'd2', 'd3']);
  });

  it('priority orders waiters: higher priority is promoted first even with a larger queue_seq', () => {
    const p = policy({ max: 2, workloads: { urgent: wl({ priority: 10 }) } });
    const waiters = [waiter('d1'), waiter('d2'), waiter('u1', { workload: 'urgent' }), waiter('u2', { workload: 'urgent' })];
    expect(decide(input(p, [], waiters))).toEqual(['u1', 'u2']);
    expect(decide(input(policy({ max: 3, workloads: p.workloads }), [], waiters))).toEqual(['u1', 'u2', 'd1']);
  });

  it('priority never preempts: a full cap with a high-priority waiter promotes nothing', () => {
    const p = policy({ max: 2, workloads: { urgent: wl({ priority: 10 }) } });
    const holders = [holder('d1'), holder('d2')];
    const result = decide(input(p, holders, [waiter('u1', { workload: 'urgent' })]));
    expect(result).toEqual([]);
  });

  it('lowering a cap below active promotes nothing and returns nothing to stop', () => {
    const holders = [holder('a'), holder('b'), holder('c', { provider: 'codex' })];
    const waiters = [waiter('w1'), waiter('w2', { provider: 'codex' })];
    // Global lowered to 2 with 3 running.
    expect(decide(input(policy({ max: 2 }), holders, waiters))).toEqual([]);
    // Provider cap lowered below active: only that provider stops flowing.
    expect(decide(input(policy({ max: 10, providers: { claude: 1 } }), holders, waiters))).toEqual(['w2']);
    // Workload max lowered below active.
    expect(decide(input(policy({ max: 10, workloads: { default: wl({ max: 1 }) } }), holders, waiters))).toEqual([]);
  });

  it('a provider on hold is skipped until now >= until while other providers keep flowing', () => {
    const p = policy({ max: 4 });
    const waiters = [waiter('c1'), waiter('x1', { provider: 'codex' })];
    const holds = { claude: 20_000 };
    expect(decide(input(p, [], waiters, { holds, now: 19_999 }))).toEqual(['x1']);
    expect(decide(input(p, [], waiters, { holds, now: 20_000 }))).toEqual(['c1', 'x1']);
  });

  it('a waiter already past its max wait is not promoted', () => {
    const p = policy({ max: 4, workloads: { quick: wl({ max_wait_ms: 100 }) } });
    const waiters = [waiter('late', { workload: 'quick', enqueued_at: 0 }), waiter('ok', { workload: 'quick', enqueued_at: 9_900 })];
    expect(decide(input(p, [], waiters, { now: 10_000 }))).toEqual(['ok']);
  });

  it('an empty queue or zero global cap promotes nothing', () => {
    expect(decide(input(policy(), [], []))).toEqual([]);
    expect(decide(input(policy({ max: 0 }), [], [waiter('a')]))).toEqual([]);
  });

  it('workload and provider names that shadow Object.prototype members are treated as unlisted', () => {
    const waiters = [waiter('a', { provider: 'constructor', workload: '__proto__' }), waiter('b', { workload: 'toString' })];
    expect(decide(input(policy({ max: 4 }), [], waiters))).toEqual(['a', 'b']);
  });
});

describe('expired and nextDeadline', () => {
  const p = policy({ workloads: { quick: wl({ max_wait_ms: 1000 }) } });

  it('expired returns waiters over their workload max_wait_ms (strictly greater), not others', () => {
    const waiters = [
      waiter('over', { workload: 'quick', enqueued_at: 8_999 }),
      waiter('exact', { workload: 'quick', enqueued_at: 9_000 }),
      waiter('fresh', { workload: 'quick', enqueued_at: 9_500 }),
      waiter('nolimit', { enqueued_at: 0 }),
    ];
    expect(expired(input(p, [], waiters, { now: 10_000 }))).toEqual(['over']);
  });

  it('nextDeadline gives the earliest expiry or hold lift in the future', () => {
    const waiters = [waiter('a', { workload: 'quick', enqueued_at: 9_500 }), waiter('b', { workload: 'quick', enqueued_at: 9_200 })];
    // b expires first at 9_200 + 1000 + 1 (strictly greater than max wait).
    expect(nextDeadline(input(p, [], waiters, { now: 10_000 }))).toBe(10_201);
    // A hold lifting sooner wins; holds already lifted are ignored.
    expect(nextDeadline(input(p, [], waiters, { now: 10_000, holds: { claude: 10_050, codex: 9_000 } }))).toBe(10_050);
  });

  it('nextDeadline ignores past deadlines and returns null when nothing is pending', () => {
    const already = [waiter('old', { workload: 'quick', enqueued_at: 0 }), waiter('nolimit')];
    expect(nextDeadline(input(p, [], already, { now: 10_000, holds: { claude: 10_000 } }))).toBeNull();
    expect(nextDeadline(input(p, [], []))).toBeNull();
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
    const usage = capUsage(input(p, holders, waiters, { now: 10_000, holds: { claude: 12_000 } }));
    const by = Object.fromEntries(usage.map((u) => [u.cap, u]));

    expect(usage.map((u) => u.cap)).toEqual([
      'global',
      'provider:claude',
      'provider:codex',
      'provider:gemini',
      'workload:default',
      'workload:review',
    ]);
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
    expect(by['workload:review']).toMatchObject({ limit: 2, active: 1, holders: ['h2'], queued: 1, oldest_wait_ms: 1_000, reserved: 1, held_until: null, priority: 5 });
  });

  it('capUsage lists at most the first five waiters in admission order', () => {
    const waiters = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((u) => waiter(u));
    const [global] = capUsage(input(policy(), [], waiters));
    expect(global.queued).toBe(7);
    expect(global.waiting).toEqual(['a', 'b', 'c', 'd', 'e']);
  });
});
