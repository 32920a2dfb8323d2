// What every limiter must do, as a suite any implementation runs: the
// in-process one here, a shared one (PostgreSQL) with the same calls. Every
// call is awaited, so a limiter whose operations travel is tested as is.

import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { AdmissionPolicy, Waiter } from '../../src/core/admission.js';
import type { Limiter } from '../../src/limiter/limiter.js';
import { NOW, policy, waiter, wl } from '../core/admission-fixtures.js';

interface LimiterUnderTest {
  limiter: Limiter;
  /** A second instance over the same store (a restart, or another machine), if the implementation has one. */
  reopen?: () => Promise<Limiter>;
  close(): Promise<void>;
}

export type MakeLimiter = (policy: AdmissionPolicy, holds?: Record<string, number>) => Promise<LimiterUnderTest>;

export function limiterConformance(name: string, make: MakeLimiter, opts: { propertyRuns?: number } = {}): void {
  describe(`limiter conformance: ${name}`, () => {
    let open: LimiterUnderTest[] = [];
    afterEach(async () => {
      for (const o of open) await o.close();
      open = [];
    });
    const start = async (p: AdmissionPolicy, holds?: Record<string, number>): Promise<Limiter> => {
      const o = await make(p, holds);
      open.push(o);
      return o.limiter;
    };
    const enqueueAll = async (l: Limiter, ws: Waiter[]): Promise<void> => {
      for (const w of ws) await l.enqueue(w);
    };
    const granted = async (l: Limiter, now = NOW): Promise<string[]> => (await l.grant(now)).map((g) => g.uuid);

    it('caps are never exceeded: global, provider and workload', async () => {
      const l = await start(policy({ max: 3, providers: { claude: 2 }, workloads: { batch: wl({ max: 1 }) } }));
      await enqueueAll(l, [
        waiter('a'),
        waiter('b'),
        waiter('c'),
        waiter('d', { provider: 'codex', workload: 'batch' }),
        waiter('e', { provider: 'codex', workload: 'batch' }),
        waiter('f', { provider: 'codex' }),
      ]);
      expect(await granted(l)).toEqual(['a', 'b', 'd']);
      expect(await granted(l)).toEqual([]);
      expect(l.active).toBe(3);
    });

    it('allocation is atomic: each lease counts in all of its caps, and in no cap without a lease', async () => {
      const l = await start(policy({ max: 5, providers: { claude: 2 }, workloads: { batch: wl({ max: 2 }) } }));
      await enqueueAll(l, ['a', 'b', 'c'].map((u) => waiter(u, { workload: 'batch' })).concat([waiter('x', { provider: 'codex' })]));
      const leases = await l.grant(NOW);
      const usage = new Map(l.usage(NOW).map((c) => [c.cap, c]));
      expect(usage.get('global')!.active).toBe(leases.length);
      for (const cap of ['provider:claude', 'provider:codex', 'workload:batch', 'workload:default']) {
        const [kind, name] = cap.split(':') as ['provider' | 'workload', string];
        expect(usage.get(cap)?.active ?? 0).toBe(leases.filter((g) => g[kind] === name).length);
        expect(usage.get(cap)?.holders ?? []).toEqual(leases.filter((g) => g[kind] === name).map((g) => g.uuid));
      }
    });

    it('FIFO within a priority, and higher priority first', async () => {
      const l = await start(policy({ max: 1, workloads: { urgent: wl({ priority: 10 }) } }));
      await enqueueAll(l, [waiter('n1'), waiter('n2'), waiter('u1', { workload: 'urgent' }), waiter('n3'), waiter('u2', { workload: 'urgent' })]);
      const order: string[] = [];
      for (let i = 0; i < 5; i++) {
        const [g] = await l.grant(NOW);
        order.push(g!.uuid);
        expect(await l.release(g!.id)).toBe(true);
      }
      expect(order).toEqual(['u1', 'u2', 'n1', 'n2', 'n3']);
    });

    it("positions: every queued run's place in admission order, the one position() gives, and the order grants follow", async () => {
      const l = await start(policy({ max: 1, workloads: { urgent: wl({ priority: 10 }) } }));
      await enqueueAll(l, [waiter('n1'), waiter('n2'), waiter('u1', { workload: 'urgent' }), waiter('n3'), waiter('u2', { workload: 'urgent' })]);
      const expected = ['u1', 'u2', 'n1', 'n2', 'n3'];
      expect([...l.positions()].sort((a, b) => a[1] - b[1])).toEqual(expected.map((u, i) => [u, i + 1]));
      for (const u of expected) expect(l.position(u)).toBe(l.positions().get(u));
      // The head leaves the queue: everyone behind it moves up one.
      const [g] = await l.grant(NOW);
      expect(g!.uuid).toBe('u1');
      expect([...l.positions()].sort((a, b) => a[1] - b[1])).toEqual(expected.slice(1).map((u, i) => [u, i + 1]));
      expect(l.position('u1')).toBeNull();
    });

    it('no head-of-line blocking: a run held back by its own provider or workload holds back nobody else', async () => {
      const l = await start(policy({ max: 4, providers: { claude: 1 }, workloads: { batch: wl({ max: 1 }) } }));
      await enqueueAll(l, [
        waiter('c1'),
        waiter('c2'),
        waiter('b1', { provider: 'codex', workload: 'batch' }),
        waiter('b2', { provider: 'codex', workload: 'batch' }),
        waiter('x1', { provider: 'codex' }),
      ]);
      expect(await granted(l)).toEqual(['c1', 'b1', 'x1']);
      expect(l.waitingFor('c2', NOW, false)).toMatchObject({ reason: 'provider', name: 'claude' });
      expect(l.waitingFor('b2', NOW, false)).toMatchObject({ reason: 'workload', name: 'batch' });
    });

    it('reserved slots are kept for their workload, and only it may use them', async () => {
      const l = await start(policy({ max: 3, workloads: { review: wl({ reserved: 1 }) } }));
      await enqueueAll(
        l,
        ['d1', 'd2', 'd3'].map((u) => waiter(u)),
      );
      expect(await granted(l)).toEqual(['d1', 'd2']);
      expect(l.waitingFor('d3', NOW, false)).toMatchObject({ reason: 'reserved' });
      await l.enqueue(waiter('r1', { workload: 'review' }));
      expect(await granted(l)).toEqual(['r1']);
    });

    it('a held provider gets nothing until its hold lifts', async () => {
      const l = await start(policy({ max: 4 }), { claude: NOW + 5_000 });
      await enqueueAll(l, [waiter('c1'), waiter('x1', { provider: 'codex' })]);
      expect(await granted(l)).toEqual(['x1']);
      expect(l.nextDeadline(NOW)).toBe(NOW + 5_000);
      expect(await granted(l, NOW + 5_000)).toEqual(['c1']);
    });

    it("a lifted hold with a pace lets its provider's waiting runs start one per interval, the others meanwhile", async () => {
      const l = await start(policy({ max: 8 }), { claude: NOW + 60_000 });
      await enqueueAll(l, [waiter('c1'), waiter('c2'), waiter('c3'), waiter('x1', { provider: 'codex' })]);
      expect(await granted(l)).toEqual(['x1']);
      await l.lift('claude', false, { intervalMs: 1_000, now: NOW });
      // One now; the others wait their turns, and say why.
      expect(await granted(l)).toEqual(['c1']);
      expect(l.waitingFor('c2', NOW + 10, false)).toMatchObject({
        reason: 'pace',
        name: 'claude',
        active: 2,
        every_ms: 1_000,
        until: new Date(NOW + 1_000).toISOString(),
      });
      expect(l.nextDeadline(NOW + 10)).toBe(NOW + 1_000);
      await l.enqueue(waiter('x2', { provider: 'codex' }));
      expect(await granted(l, NOW + 500)).toEqual(['x2']);
      expect(await granted(l, NOW + 1_000)).toEqual(['c2']);
      expect(await granted(l, NOW + 1_500)).toEqual([]);
      expect(await granted(l, NOW + 2_000)).toEqual(['c3']);
      // Paced as many as waited at the lift: one queued since starts at once.
      await enqueueAll(l, [waiter('c4'), waiter('c5')]);
      expect(await granted(l, NOW + 2_100)).toEqual(['c4', 'c5']);
      // No holds of its own came of the pace: the provider is not held.
      expect(l.holds()).toEqual({});
    });

    it('a pace with one run or none waiting, or of 0, lets them start at once', async () => {
      const l = await start(policy({ max: 6 }), { claude: NOW + 60_000 });
      await enqueueAll(l, [waiter('c1'), waiter('c2')]);
      await l.lift('claude', false, { intervalMs: 0, now: NOW });
      expect(await granted(l)).toEqual(['c1', 'c2']);
    });

    it('release and renew are idempotent: a second release frees nothing', async () => {
      const l = await start(policy({ max: 1 }));
      await enqueueAll(l, [waiter('a'), waiter('b'), waiter('c')]);
      const [a] = await l.grant(NOW);
      expect(await l.renew(a!.id, NOW)).toBe(true);
      expect(await l.renew(a!.id, NOW)).toBe(true);
      expect(await l.release(a!.id)).toBe(true);
      expect(await l.release(a!.id)).toBe(false);
      expect(await l.renew(a!.id, NOW)).toBe(false);
      expect(await granted(l)).toEqual(['b']);
      // The second release of a did not free b's slot.
      expect(await granted(l)).toEqual([]);
      expect(l.active).toBe(1);
    });

    it('lease ids are never reused: not for the same run again, not by another instance', async () => {
      const l = await start(policy({ max: 2 }));
      const ids = new Set<string>();
      for (let round = 0; round < 20; round++) {
        await enqueueAll(l, [waiter('same'), waiter(`r${round}`)]);
        for (const g of await l.grant(NOW)) {
          expect(ids.has(g.id)).toBe(false);
          ids.add(g.id);
          await l.release(g.id);
        }
      }
      const other = await start(policy({ max: 2 }));
      await other.enqueue(waiter('same'));
      const [g] = await other.grant(NOW);
      expect(ids.has(g!.id)).toBe(false);
    });

    it('acquire is safe to cancel: a canceled waiter is never granted, and a cancel after the grant frees its slot', async () => {
      const l = await start(policy({ max: 1 }));
      await enqueueAll(l, [waiter('a'), waiter('b'), waiter('c')]);
      expect(await l.cancel('b')).toBe(true);
      expect(await l.cancel('b')).toBe(false);
      expect(await granted(l)).toEqual(['a']);
      // Canceled after its grant (killed while its start was in flight): the slot comes back.
      expect(await l.cancel('a')).toBe(true);
      expect(l.leaseOf('a')).toBeNull();
      expect(await granted(l)).toEqual(['c']);
    });

    it('a re-adopted lease keeps its id and its slot', async () => {
      const l = await start(policy({ max: 1 }));
      await l.enqueue(waiter('old'));
      const [lease] = await l.grant(NOW);
      // A restart re-adopts the lease its journal names.
      await l.adopt(lease!);
      await l.enqueue(waiter('new'));
      expect(await granted(l)).toEqual([]);
      expect(l.leaseOf('old')?.id).toBe(lease!.id);
      expect(l.active).toBe(1);
      expect(await l.release(lease!.id)).toBe(true);
      expect(await granted(l)).toEqual(['new']);
    });

    it('random histories never exceed a cap, never grant a waiter twice, and grant every waiter in the end', async () => {
      const providers = ['claude', 'codex', 'gemini'];
      const workloads = ['default', 'batch', 'review'];
      await fc.assert(
        fc.asyncProperty(
          fc.record({
            max: fc.integer({ min: 2, max: 4 }),
            claude: fc.integer({ min: 1, max: 3 }),
            batchMax: fc.integer({ min: 1, max: 3 }),
            reserved: fc.integer({ min: 0, max: 1 }),
          }),
          fc.array(
            fc.oneof(
              fc.record({ op: fc.constant('enqueue' as const), p: fc.integer({ min: 0, max: 2 }), w: fc.integer({ min: 0, max: 2 }) }),
              fc.record({ op: fc.constant('release' as const), k: fc.nat() }),
              fc.record({ op: fc.constant('cancel' as const), k: fc.nat() }),
            ),
            { maxLength: 40 },
          ),
          async (caps, ops) => {
            const p = policy({
              max: caps.max,
              providers: { claude: Math.min(caps.claude, caps.max) },
              workloads: { batch: wl({ max: caps.batchMax }), review: wl({ reserved: caps.reserved, priority: 1 }) },
            });
            const o = await make(p);
            try {
              const l = o.limiter;
              const everGranted = new Set<string>();
              const queued: string[] = [];
              let n = 0;
              const check = async (): Promise<void> => {
                for (const g of await l.grant(NOW)) {
                  expect(everGranted.has(g.uuid)).toBe(false);
                  everGranted.add(g.uuid);
                  queued.splice(queued.indexOf(g.uuid), 1);
                }
                const holders = l.holders();
                expect(holders.length).toBeLessThanOrEqual(p.max);
                expect(holders.filter((h) => h.provider === 'claude').length).toBeLessThanOrEqual(p.providers.claude!);
                expect(holders.filter((h) => h.workload === 'batch').length).toBeLessThanOrEqual(caps.batchMax);
              };
              for (const op of ops) {
                if (op.op === 'enqueue') {
                  const uuid = `w${n++}`;
                  queued.push(uuid);
                  await l.enqueue({ uuid, provider: providers[op.p]!, workload: workloads[op.w]!, queue_seq: n, enqueued_at: 1_000 });
                } else if (op.op === 'release') {
                  const hs = l.holders();
                  if (hs.length > 0) await l.release(hs[op.k % hs.length]!.id);
                } else if (queued.length > 0) {
                  const uuid = queued[op.k % queued.length]!;
                  queued.splice(queued.indexOf(uuid), 1);
                  await l.cancel(uuid);
                }
                await check();
              }
              // Drain: releasing everything lets every remaining waiter through (a reservation
              // always leaves at least one slot to the others: max >= 2 > reserved).
              for (let guard = 0; queued.length > 0 && guard < 200; guard++) {
                for (const h of l.holders()) await l.release(h.id);
                await check();
              }
              expect(queued).toEqual([]);
            } finally {
              await o.close();
            }
          },
        ),
        { numRuns: opts.propertyRuns ?? 60 },
      );
    });
  });
}
