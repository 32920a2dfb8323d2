import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decide,
  expired,
  nextDeadline,
  type AdmissionInput,
  type AdmissionPolicy,
  type SlotHolder,
  type Waiter,
  type WorkloadPolicy,
} from '../../src/core/admission.js';

// A model supervisor drives the engine through random histories; after every
// decide() we check the promotions against an independent statement of the
// rules (written out here, not borrowed from the module).

const PROVIDERS = ['claude', 'codex', 'gemini'] as const;
const WORKLOADS = ['default', 'review', 'batch'] as const;

type Op =
  | { t: 'enqueue'; p: number; w: number }
  | { t: 'decide' }
  | { t: 'end'; i: number }
  | { t: 'kill'; i: number }
  | { t: 'config'; policy: AdmissionPolicy }
  | { t: 'hold'; p: number; ms: number }
  | { t: 'tick'; ms: number };

const workloadArb: fc.Arbitrary<WorkloadPolicy> = fc.record({
  reserved: fc.integer({ min: 0, max: 3 }),
  priority: fc.integer({ min: 0, max: 2 }),
  max: fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }),
  max_wait_ms: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
});

const policyArb: fc.Arbitrary<AdmissionPolicy> = fc
  .record({
    max: fc.integer({ min: 0, max: 6 }),
    providerCaps: fc.tuple(...PROVIDERS.map(() => fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }))),
    workloads: fc.tuple(...WORKLOADS.map(() => fc.option(workloadArb, { nil: null }))),
  })
  .map(({ max, providerCaps, workloads }) => {
    const providers: Record<string, number> = {};
    providerCaps.forEach((cap, i) => {
      if (cap !== null) providers[PROVIDERS[i]!] = cap; // null: left unlisted
    });
    // Config validation keeps Σreserved ≤ max; trim later reservations to fit.
    let room = max;
    const wls: Record<string, WorkloadPolicy> = {};
    workloads.forEach((wp, i) => {
      if (wp === null) return;
      const reserved = Math.min(wp.reserved, room);
      room -= reserved;
      wls[WORKLOADS[i]!] = { ...wp, reserved };
    });
    return { max, providers, workloads: wls, max_queued: null };
  });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ t: fc.constant('enqueue' as const), p: fc.nat(2), w: fc.nat(2) }) },
  { weight: 4, arbitrary: fc.constant({ t: 'decide' as const }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('end' as const), i: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('kill' as const), i: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('config' as const), policy: policyArb }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('hold' as const), p: fc.nat(2), ms: fc.integer({ min: 1, max: 50 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 40 }) }) },
);

// ---- the rules, restated independently ------------------------------------

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const wpOf = (p: AdmissionPolicy, w: string): WorkloadPolicy =>
  own(p.workloads, w) ? p.workloads[w]! : { reserved: 0, priority: 0, max: null, max_wait_ms: null };
const providerLimit = (p: AdmissionPolicy, name: string) => (own(p.providers, name) ? p.providers[name]! : p.max);
const workloadLimit = (p: AdmissionPolicy, name: string) => wpOf(p, name).max ?? p.max;
// A reservation above the workload's own max is unusable and so not enforced.
const reservedOf = (p: AdmissionPolicy, name: string) => {
  const wp = wpOf(p, name);
  return Math.min(wp.reserved, wp.max ?? Infinity);
};

interface Model {
  policy: AdmissionPolicy;
  holders: SlotHolder[];
  waiters: Waiter[];
  holds: Record<string, number>;
  now: number;
  seq: number;
}

const inputOf = (m: Model): AdmissionInput => ({ policy: m.policy, holders: m.holders, waiters: m.waiters, holds: m.holds, now: m.now });

function active(holders: readonly SlotHolder[], cap: string): number {
  if (cap === 'global') return holders.length;
  const [kind, name] = cap.split(':');
  return holders.filter((h) => (kind === 'provider' ? h.provider : h.workload) === name).length;
}

function limitOf(p: AdmissionPolicy, cap: string): number {
  if (cap === 'global') return p.max;
  const [kind, name] = cap.split(':') as [string, string];
  return kind === 'provider' ? providerLimit(p, name) : workloadLimit(p, name);
}

const CAPS = ['global', ...PROVIDERS.map((p) => `provider:${p}`), ...WORKLOADS.map((w) => `workload:${w}`)];

/** Global slots that workload `w` may not use: other workloads' unused reservations. */
function reservedAgainst(p: AdmissionPolicy, holders: readonly SlotHolder[], w: string): number {
  let sum = 0;
  for (const v of WORKLOADS) if (v !== w) sum += Math.max(0, reservedOf(p, v) - active(holders, `workload:${v}`));
  return sum;
}

const isHeld = (m: Model, provider: string, at: number) => own(m.holds, provider) && at < m.holds[provider]!;
const isOverdue = (m: Model, w: Waiter, at: number) => {
  const mw = wpOf(m.policy, w.workload).max_wait_ms;
  return mw !== null && at - w.enqueued_at > mw;
};

/** Could this waiter start right now, given the current holders? */
function couldStart(m: Model, w: Waiter): boolean {
  const p = m.policy;
  return (
    m.holders.length < p.max - reservedAgainst(p, m.holders, w.workload) &&
    active(m.holders, `provider:${w.provider}`) < providerLimit(p, w.provider) &&
    active(m.holders, `workload:${w.workload}`) < workloadLimit(p, w.workload) &&
    !isHeld(m, w.provider, m.now) &&
    !isOverdue(m, w, m.now)
  );
}

/** What is time-dependent at instant `at`: who is overdue and which providers are held. */
function timeSignature(m: Model, at: number): string {
  const overdue = m.waiters.filter((w) => isOverdue(m, w, at)).map((w) => w.uuid);
  const held = PROVIDERS.filter((p) => isHeld(m, p, at));
  return JSON.stringify([overdue, held]);
}

// ---- one decide step, with every check ------------------------------------

function decideStep(m: Model): void {
  // The supervisor ends overdue waiters first.
  const gone = expired(inputOf(m));
  expect(gone).toEqual(m.waiters.filter((w) => isOverdue(m, w, m.now)).map((w) => w.uuid));
  m.waiters = m.waiters.filter((w) => !gone.includes(w.uuid));

  // nextDeadline: nothing time-based changes before it, something changes at it.
  const next = nextDeadline(inputOf(m));
  if (next === null) {
    expect(timeSignature(m, m.now + 1e9)).toBe(timeSignature(m, m.now));
  } else {
    expect(next).toBeGreaterThan(m.now);
    expect(timeSignature(m, next - 1)).toBe(timeSignature(m, m.now));
    expect(timeSignature(m, next)).not.toBe(timeSignature(m, m.now));
  }

  const before = new Map(CAPS.map((c) => [c, active(m.holders, c)]));
  const promoted = decide(inputOf(m));
  expect(new Set(promoted).size).toBe(promoted.length);

  const byUuid = new Map(m.waiters.map((w) => [w.uuid, w]));
  const prio = (w: Waiter) => wpOf(m.policy, w.workload).priority;
  let prev: Waiter | null = null;
  for (const uuid of promoted) {
    const w = byUuid.get(uuid);
    expect(w, `promoted ${uuid} is a waiter`).toBeDefined();
    // Each promotion, in order, must have been allowed by every rule at that moment.
    expect(couldStart(m, w!), `promoted ${uuid} could start`).toBe(true);
    // Reserved slots: after this start, holders still fit outside others' unused reservations.
    const after = [...m.holders, { uuid, provider: w!.provider, workload: w!.workload }];
    expect(after.length).toBeLessThanOrEqual(m.policy.max - reservedAgainst(m.policy, after, w!.workload));
    // Priority first, then FIFO within a priority.
    if (prev !== null) {
      expect(prio(w!)).toBeLessThanOrEqual(prio(prev));
      if (prio(w!) === prio(prev)) expect(w!.queue_seq).toBeGreaterThan(prev.queue_seq);
    }
    prev = w!;
    m.holders = after;
    m.waiters = m.waiters.filter((x) => x.uuid !== uuid);
  }

  // Never over a cap that was within its limit; never adds to a cap already over it.
  for (const cap of CAPS) {
    const was = before.get(cap)!;
    const now = active(m.holders, cap);
    const limit = limitOf(m.policy, cap);
    if (was <= limit) expect(now, cap).toBeLessThanOrEqual(limit);
    if (was >= limit) expect(now, cap).toBe(was);
  }

  // FIFO within a class: no earlier waiter of the same priority/provider/workload left behind.
  const started = promoted.map((u) => byUuid.get(u)!);
  for (const w of m.waiters) {
    const overtaken = started.find((s) => s.provider === w.provider && s.workload === w.workload && prio(s) === prio(w) && s.queue_seq > w.queue_seq);
    expect(overtaken, `${w.uuid} overtaken`).toBeUndefined();
  }
  // No head-of-line blocking: nothing left in the queue could still start.
  for (const w of m.waiters) expect(couldStart(m, w), `${w.uuid} left behind`).toBe(false);
  expect(decide(inputOf(m))).toEqual([]);
}

function run(ops: Op[], initial: AdmissionPolicy): void {
  const m: Model = { policy: initial, holders: [], waiters: [], holds: {}, now: 0, seq: 0 };
  for (const op of ops) {
    switch (op.t) {
      case 'enqueue':
        m.seq++;
        m.waiters.push({ uuid: `r${m.seq}`, provider: PROVIDERS[op.p]!, workload: WORKLOADS[op.w]!, queue_seq: m.seq, enqueued_at: m.now });
        break;
      case 'decide':
        decideStep(m);
        break;
      case 'end':
        if (m.holders.length > 0) m.holders.splice(op.i % m.holders.length, 1);
        break;
      case 'kill':
        if (m.waiters.length > 0) m.waiters.splice(op.i % m.waiters.length, 1);
        break;
      case 'config':
        m.policy = op.policy;
        break;
      case 'hold':
        m.holds = { ...m.holds, [PROVIDERS[op.p]!]: m.now + op.ms };
        break;
      case 'tick':
        m.now += op.ms;
        break;
    }
  }
  decideStep(m);
}

describe('admission properties', () => {
  it('over random histories decide never exceeds a cap, respects reservations, priority and FIFO, and leaves no startable waiter behind', () => {
    fc.assert(
      fc.property(policyArb, fc.array(opArb, { maxLength: 80 }), (policy, ops) => run(ops, policy)),
      { numRuns: 3000 },
    );
  });
});
