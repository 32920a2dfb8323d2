import { describe, expect, it } from 'vitest';
import { capUsage, type AdmissionPolicy } from '../../src/core/admission.js';
import { AdmissionIndex } from '../../src/core/admission-index.js';
import { waitingFromCaps, whyWaiting, type WaitingFacts } from '../../src/core/waiting.js';
import { agentWaitText, waitingText } from '../../src/text/waiting.js';

const NOW_ = 1_000_000;
const facts = (over: Partial<WaitingFacts> = {}): WaitingFacts => ({
  global: { active: 2, limit: 8 },
  reservedForOthers: 0,
  provider: { name: 'claude', active: 1, limit: 3, heldUntil: null },
  workload: { name: 'batch', active: 1, max: 3 },
  expired: false,
  fleetExceeded: false,
  position: 4,
  now: 1_000_000,
  ...over,
});

describe('whyWaiting', () => {
  it.each([
    ['the global cap', facts({ global: { active: 8, limit: 8 } }), 'global 8/8'],
    ['slots reserved for other workloads', facts({ global: { active: 6, limit: 8 }, reservedForOthers: 2 }), 'global 6/8 (2 reserved)'],
    ['its workload cap', facts({ workload: { name: 'batch', active: 3, max: 3 } }), 'workload batch 3/3'],
    ['its provider cap', facts({ provider: { name: 'claude', active: 3, limit: 3, heldUntil: null } }), 'provider claude 3/3'],
    [
      'a hold, before any cap (it lasts longest)',
      facts({ global: { active: 8, limit: 8 }, provider: { name: 'codex', active: 0, limit: 3, heldUntil: 1_000_000 + (4 * 24 + 23) * 3_600_000 } }),
      'hold codex 4d23h',
    ],
    ['the fleet budget', facts({ fleetExceeded: true }), 'fleet budget'],
    ['a max wait that passed', facts({ expired: true }), 'max wait passed'],
    ['nothing: admission is about to run', facts({ position: 4 }), 'queue #4'],
    ['nothing, first in line', facts({ position: 1 }), 'starting next'],
  ])('names %s', (_what, f, text) => {
    expect(waitingText(whyWaiting(f), f.now)).toBe(text);
  });

  it('a provider or workload without a cap of its own (limit = the global max) is never named: the global cap is', () => {
    const w = whyWaiting(
      facts({
        global: { active: 1, limit: 1 },
        provider: { name: 'sh', active: 1, limit: 1, heldUntil: null },
        workload: { name: 'default', active: 1, max: 1 },
      }),
    );
    expect(waitingText(w, NOW_)).toBe('global 1/1');
  });

  it('a run the limit stopped says when it resumes, by the clock and from now (the date once a day or more away)', () => {
    const at = new Date(2026, 11, 3, 16, 50).getTime();
    const base = { reason: 'hold' as const, name: 'claude', active: null, limit: null, reserved: null, position: 2, resumes: true };
    expect(waitingText({ ...base, until: new Date(at).toISOString() }, at - (4 * 60 + 12) * 60_000)).toBe('limit claude · resumes 16:50 (4h12m)');
    expect(waitingText({ ...base, until: new Date(at).toISOString() }, at - 2 * 86_400_000)).toBe('limit claude · resumes Dec 3 16:50 (2d)');
    expect(waitingText({ ...base, until: new Date(at).toISOString() }, at + 1)).toBe('limit claude · resumes now');
    // In a table, beside its provider's column.
    expect(waitingText({ ...base, until: new Date(at).toISOString() }, at - (4 * 60 + 12) * 60_000, { short: true })).toBe('resumes 16:50 (4h12m)');
  });

  it('a run blocked on a limit its agent waits out by itself says so, not that orcr resumes it; any other run says nothing', () => {
    const at = new Date(2026, 11, 3, 16, 50).getTime();
    const r = { status: 'blocked', blocked_kind: 'limit', provider: 'claude', agent_retry: { until: new Date(at).toISOString() } };
    const before = at - (4 * 60 + 12) * 60_000;
    expect(agentWaitText(r, before)).toBe('limit claude · the agent waits until 16:50 (4h12m)');
    expect(agentWaitText(r, before, { short: true })).toBe('the agent waits until 16:50 (4h12m)');
    expect(agentWaitText(r, at - 2 * 86_400_000)).toBe('limit claude · the agent waits until Dec 3 16:50 (2d)');
    expect(agentWaitText(r, at + 1)).toBe('limit claude · the agent retries now');
    // The agent stopped at the limit (nobody but orcr waits), a retry without a delay, a run not blocked on a limit.
    expect(agentWaitText({ ...r, agent_retry: null }, before)).toBeNull();
    expect(agentWaitText({ ...r, agent_retry: { until: null } }, before)).toBeNull();
    expect(agentWaitText({ ...r, status: 'working' }, before)).toBeNull();
    expect(agentWaitText({ ...r, blocked_kind: 'login' }, before)).toBeNull();
  });

  it('a hold that has lifted is not a reason', () => {
    const w = whyWaiting(facts({ provider: { name: 'codex', active: 0, limit: 3, heldUntil: 999_999 } }));
    expect(w.reason).toBe('next');
  });
});

describe('the same answer from the index and from stats caps', () => {
  const policy: AdmissionPolicy = {
    max: 4,
    providers: { claude: 1 },
    workloads: { batch: { reserved: 0, priority: 0, max: 2, max_wait_ms: null }, urgent: { reserved: 1, priority: 5, max: null, max_wait_ms: null } },
    max_queued: null,
  };
  it('provider, workload and reserved reasons agree', () => {
    const idx = new AdmissionIndex(policy);
    idx.acquire({ uuid: 'h1', provider: 'claude', workload: 'batch' });
    idx.acquire({ uuid: 'h2', provider: 'codex', workload: 'batch' });
    idx.enqueue({ uuid: 'q1', provider: 'claude', workload: 'default', queue_seq: 1, enqueued_at: 0 });
    idx.enqueue({ uuid: 'q2', provider: 'codex', workload: 'batch', queue_seq: 2, enqueued_at: 0 });
    idx.enqueue({ uuid: 'q3', provider: 'codex', workload: 'default', queue_seq: 3, enqueued_at: 0 });
    idx.enqueue({ uuid: 'q4', provider: 'codex', workload: 'default', queue_seq: 4, enqueued_at: 0 });
    // q3 takes the last slot that is not reserved for `urgent`.
    expect(idx.decide(10)).toEqual(['q3']);
    const caps = capUsage(idx.snapshot(10));
    for (const [uuid, provider, workload, text] of [
      ['q1', 'claude', 'default', 'provider claude 1/1'],
      ['q2', 'codex', 'batch', 'workload batch 2/2'],
      ['q4', 'codex', 'default', 'global 3/4 (1 reserved)'],
    ] as const) {
      const fromIndex = idx.waitingFor(uuid, 10, false)!;
      const fromCaps = waitingFromCaps(caps, { provider, workload, position: fromIndex.position }, { fleetExceeded: false, now: 10 });
      expect(waitingText(fromIndex, 10)).toBe(text);
      expect(fromCaps).toEqual(fromIndex);
    }
    expect(idx.waitingFor('h1', 10, false)).toBeNull();
  });
});
