import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
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
import { AdmissionIndex } from '../../src/core/admission-index.js';

// The index against the pure engine: one random history drives both a plain
// model (arrays, as the supervisor kept them) fed to decide()/expired()/
// nextDeadline()/capUsage(), and an AdmissionIndex fed the same events. Every
// decision must be identical, promotion for promotion, and so must the views.

// Names that shadow Object.prototype members are in on purpose.
const PROVIDERS = ['claude', 'codex', 'constructor', '__proto__'] as const;
const WORKLOADS = ['default', 'review', 'batch', '__proto__'] as const;

type Op =
  | { t: 'enqueue'; p: number; w: number; age: number }
  | { t: 'decide' }
  | { t: 'end'; i: number }
  | { t: 'kill'; i: number }
  | { t: 'undo'; i: number }
  | { t: 'adopt'; p: number; w: number }
  | { t: 'steal'; i: number }
  | { t: 'config'; policy: AdmissionPolicy }
  | { t: 'hold'; p: number; ms: number }
  | { t: 'unhold' }
  | { t: 'tick'; ms: number }
  | { t: 'expire' }
  | { t: 'views' };

const workloadArb: fc.Arbitrary<WorkloadPolicy> = fc.record({
  reserved: fc.integer({ min: 0, max: 3 }),
  priority: fc.integer({ min: -1, max: 2 }),
  max: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }),
  max_wait_ms: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
});

// Reservations are not trimmed to fit the global cap: decide() is defined for
// any policy, and the index must agree on all of them.
const policyArb: fc.Arbitrary<AdmissionPolicy> = fc
  .record({
    max: fc.integer({ min: 0, max: 7 }),
    providerCaps: fc.tuple(...PROVIDERS.map(() => fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }))),
    workloads: fc.tuple(...WORKLOADS.map(() => fc.option(workloadArb, { nil: null }))),
  })
  .map(({ max, providerCaps, workloads }) => ({
    max,
    // fromEntries defines own properties, so "__proto__" is a real key.
    providers: Object.fromEntries(providerCaps.flatMap((cap, i) => (cap === null ? [] : [[PROVIDERS[i], cap]]))),
    workloads: Object.fromEntries(workloads.flatMap((wp, i) => (wp === null ? [] : [[WORKLOADS[i], wp]]))),
    max_queued: null,
  }));

function opArb(enqueueWeight: number): fc.Arbitrary<Op> {
  return fc.oneof(
    {
      weight: enqueueWeight,
      arbitrary: fc.record({
        t: fc.constant('enqueue' as const),
        p: fc.nat(PROVIDERS.length - 1),
        w: fc.nat(WORKLOADS.length - 1),
        // Mostly "now"; sometimes older (re-adopted at start-up), so enqueued_at is not monotone.
        age: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 100 }) }),
      }),
    },
    { weight: 5, arbitrary: fc.constant({ t: 'decide' as const }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant('end' as const), i: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('kill' as const), i: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('undo' as const), i: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('adopt' as const), p: fc.nat(PROVIDERS.length - 1), w: fc.nat(WORKLOADS.length - 1) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('steal' as const), i: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('config' as const), policy: policyArb }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('hold' as const), p: fc.nat(PROVIDERS.length - 1), ms: fc.integer({ min: -5, max: 50 }) }) },
    { weight: 1, arbitrary: fc.constant({ t: 'unhold' as const }) },
    // Time mostly moves forward; a step back checks that nothing depends on it being monotone.
    { weight: 2, arbitrary: fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: -3, max: 40 }) }) },
    { weight: 1, arbitrary: fc.constant({ t: 'expire' as const }) },
    { weight: 1, arbitrary: fc.constant({ t: 'views' as const }) },
  );
}

interface Model {
  policy: AdmissionPolicy;
  holders: SlotHolder[];
  /** Ascending queue_seq, as the supervisor keeps it. */
  waiters: Waiter[];
  holds: Record<string, number>;
  now: number;
  seq: number;
  /** Every waiter ever queued, to undo a promotion with its original queue_seq. */
  known: Map<string, Waiter>;
  adopted: number;
}

const inputOf = (m: Model): AdmissionInput => ({ policy: m.policy, holders: m.holders, waiters: m.waiters, holds: m.holds, now: m.now });
const uuids = (xs: readonly { uuid: string }[]) => xs.map((x) => x.uuid);

/** Admission order, restated: priority desc, then queue order. */
function admissionOrder(m: Model): string[] {
  const prio = (w: Waiter) => (Object.hasOwn(m.policy.workloads, w.workload) ? m.policy.workloads[w.workload]!.priority : 0);
  return m.waiters
    .map((w, i) => ({ w, i }))
    .sort((a, b) => prio(b.w) - prio(a.w) || a.i - b.i)
    .map(({ w }) => w.uuid);
}

function checkViews(m: Model, ix: AdmissionIndex): void {
  expect(ix.waiting()).toEqual(m.waiters);
  expect(uuids(ix.holders())).toEqual(uuids(m.holders));
  expect([ix.queued, ix.active]).toEqual([m.waiters.length, m.holders.length]);
  const order = admissionOrder(m);
  expect(order.map((u) => ix.queuePosition(u))).toEqual(order.map((_, i) => i + 1));
  expect([...ix.positions().keys()]).toEqual(order);
  const snap = ix.snapshot(m.now);
  expect(capUsage(snap)).toEqual(capUsage(inputOf(m)));
  expect(decide(snap)).toEqual(decide(inputOf(m)));
}

function step(m: Model, ix: AdmissionIndex, op: Op): void {
  switch (op.t) {
    case 'enqueue': {
      m.seq++;
      const w: Waiter = { uuid: `r${m.seq}`, provider: PROVIDERS[op.p]!, workload: WORKLOADS[op.w]!, queue_seq: m.seq, enqueued_at: m.now - op.age };
      m.known.set(w.uuid, w);
      m.waiters.push(w);
      ix.enqueue(w);
      break;
    }
    case 'decide': {
      const want = decide(inputOf(m));
      const got = ix.decide(m.now);
      expect(got).toEqual(want);
      const set = new Set(got);
      const byUuid = new Map(m.waiters.map((w) => [w.uuid, w]));
      for (const uuid of got) {
        const w = byUuid.get(uuid)!;
        m.holders.push({ uuid, provider: w.provider, workload: w.workload });
      }
      m.waiters = m.waiters.filter((w) => !set.has(w.uuid));
      // Whatever was decided, a second pass finds nothing more.
      expect(ix.decide(m.now)).toEqual(decide(inputOf(m)));
      break;
    }
    case 'end': {
      if (m.holders.length === 0) break;
      const h = m.holders.splice(op.i % m.holders.length, 1)[0]!;
      expect(ix.release(h.uuid)).toBe(true);
      break;
    }
    case 'kill': {
      if (m.waiters.length === 0) break;
      const w = m.waiters.splice(op.i % m.waiters.length, 1)[0]!;
      expect(ix.remove(w.uuid)).toBe(true);
      break;
    }
    case 'undo': {
      // A promotion whose journal write failed: the run goes back with its old queue_seq.
      const promoted = m.holders.filter((h) => m.known.has(h.uuid));
      if (promoted.length === 0) break;
      const h = promoted[op.i % promoted.length]!;
      const w = m.known.get(h.uuid)!;
      m.holders = m.holders.filter((x) => x.uuid !== h.uuid);
      const at = m.waiters.findIndex((x) => x.queue_seq > w.queue_seq);
      m.waiters.splice(at < 0 ? m.waiters.length : at, 0, w);
      expect(ix.release(h.uuid)).toBe(true);
      ix.enqueue(w);
      break;
    }
    case 'adopt': {
      // A run found holding a slot (re-adopted at start-up), whatever the caps say.
      const h = { uuid: `a${++m.adopted}`, provider: PROVIDERS[op.p]!, workload: WORKLOADS[op.w]! };
      m.holders.push(h);
      ix.acquire(h);
      break;
    }
    case 'steal': {
      // A queued run promoted by some other path.
      if (m.waiters.length === 0) break;
      const w = m.waiters.splice(op.i % m.waiters.length, 1)[0]!;
      const h = { uuid: w.uuid, provider: w.provider, workload: w.workload };
      m.holders.push(h);
      ix.acquire(h);
      break;
    }
    case 'config':
      m.policy = op.policy;
      ix.setPolicy(op.policy);
      break;
    case 'hold':
      m.holds = { ...m.holds, [PROVIDERS[op.p]!]: m.now + op.ms };
      ix.setHolds(m.holds);
      break;
    case 'unhold':
      m.holds = {};
      ix.setHolds(m.holds);
      break;
    case 'tick':
      m.now += op.ms;
      break;
    case 'expire': {
      const late = expired(inputOf(m));
      expect(ix.expired(m.now)).toEqual(late);
      expect(ix.nextDeadline(m.now)).toBe(nextDeadline(inputOf(m)));
      const set = new Set(late);
      m.waiters = m.waiters.filter((w) => !set.has(w.uuid));
      for (const uuid of late) expect(ix.remove(uuid)).toBe(true);
      break;
    }
    case 'views':
      checkViews(m, ix);
      break;
  }
}

function run(initial: AdmissionPolicy, ops: Op[]): void {
  const m: Model = { policy: initial, holders: [], waiters: [], holds: {}, now: 1000, seq: 0, known: new Map(), adopted: 0 };
  const ix = new AdmissionIndex(initial);
  for (const op of ops) {
    step(m, ix, op);
    // Cheap agreement after every event; the time-based answers too.
    expect(ix.queued).toBe(m.waiters.length);
    expect(ix.expired(m.now)).toEqual(expired(inputOf(m)));
    expect(ix.nextDeadline(m.now)).toBe(nextDeadline(inputOf(m)));
  }
  step(m, ix, { t: 'decide' });
  checkViews(m, ix);
}

describe('AdmissionIndex against decide()', () => {
  it('random histories: identical promotions at every step, and identical expired/nextDeadline/views', () => {
    fc.assert(fc.property(policyArb, fc.array(opArb(5), { maxLength: 100 }), run), { numRuns: 4000 });
  });

  it('long queues: identical promotions at every step with hundreds queued', () => {
    fc.assert(fc.property(policyArb, fc.array(opArb(30), { minLength: 100, maxLength: 600 }), run), { numRuns: 300 });
  });
});
