// Fixtures for the admission suites: policies, waiters and holders with
// defaults, and one small API over both admission engines — the pure decide()
// of src/core/admission.ts and the incremental AdmissionIndex — so a behaviour
// is stated once and checked against each (describe.each(ENGINES)).

import {
  capUsage,
  decide,
  expired,
  nextDeadline,
  type AdmissionInput,
  type AdmissionPolicy,
  type CapUsage,
  type SlotHolder,
  type Waiter,
  type WorkloadPolicy,
} from '../../src/core/admission.js';
import { AdmissionIndex } from '../../src/core/admission-index.js';

/** The clock the admission tests decide at unless a test says otherwise. */
export const NOW = 10_000;

/** Global cap 4, nothing else configured. */
export function policy(over: Partial<AdmissionPolicy> = {}): AdmissionPolicy {
  return { max: 4, providers: {}, workloads: {}, max_queued: null, ...over };
}

/** A workload entry: no reservation, priority 0, no max, no max wait. */
export function wl(over: Partial<WorkloadPolicy> = {}): WorkloadPolicy {
  return { reserved: 0, priority: 0, max: null, max_wait_ms: null, ...over };
}

let seq = 0;
/** A queued claude/default run, enqueued at 1000; each call takes the next queue_seq. */
export function waiter(uuid: string, over: Partial<Waiter> = {}): Waiter {
  seq++;
  return { uuid, provider: 'claude', workload: 'default', queue_seq: seq, enqueued_at: 1000, ...over };
}

/** A claude/default run holding a slot. */
export function holder(uuid: string, over: Partial<SlotHolder> = {}): SlotHolder {
  return { uuid, provider: 'claude', workload: 'default', ...over };
}

export const uuids = (xs: readonly { uuid: string }[]): string[] => xs.map((x) => x.uuid);

/** What a supervisor does with an admission engine, the same calls for both. */
export interface Admission {
  enqueue(w: Waiter): void;
  /** Count a run as holding a slot; a queued run with this uuid leaves the queue. */
  acquire(h: SlotHolder): void;
  /** Free a run's slot; false if it held none. */
  release(uuid: string): boolean;
  /** Drop a queued run; false if it was not queued. */
  remove(uuid: string): boolean;
  /** The runs to promote now, in start order; they become holders. */
  decide(now?: number): string[];
  expired(now?: number): string[];
  nextDeadline(now?: number): number | null;
  capUsage(now?: number): CapUsage[];
  /** uuids of the slot holders, oldest first. */
  holders(): string[];
  /** uuids of the queued runs, in queue order. */
  waiting(): string[];
}

export type MakeAdmission = (p: AdmissionPolicy, holds?: Readonly<Record<string, number>>) => Admission;

/** The pure engine, fed plain arrays the way the supervisor once kept them. */
const pureEngine: MakeAdmission = (p, holds = {}) => {
  let holders: SlotHolder[] = [];
  let waiters: Waiter[] = [];
  const input = (now: number): AdmissionInput => ({ policy: p, holders, waiters, holds, now });
  const acquire = (h: SlotHolder): void => {
    waiters = waiters.filter((w) => w.uuid !== h.uuid);
    holders = [...holders.filter((x) => x.uuid !== h.uuid), { uuid: h.uuid, provider: h.provider, workload: h.workload }];
  };
  return {
    enqueue(w) {
      // decide() wants ascending queue_seq; an earlier one goes back to its place.
      const at = waiters.findIndex((x) => x.queue_seq > w.queue_seq);
      waiters = at < 0 ? [...waiters, w] : [...waiters.slice(0, at), w, ...waiters.slice(at)];
    },
    acquire,
    release(uuid) {
      const before = holders.length;
      holders = holders.filter((h) => h.uuid !== uuid);
      return holders.length < before;
    },
    remove(uuid) {
      const before = waiters.length;
      waiters = waiters.filter((w) => w.uuid !== uuid);
      return waiters.length < before;
    },
    decide(now = NOW) {
      const promoted = decide(input(now));
      for (const uuid of promoted) acquire(waiters.find((w) => w.uuid === uuid)!);
      return promoted;
    },
    expired: (now = NOW) => expired(input(now)),
    nextDeadline: (now = NOW) => nextDeadline(input(now)),
    capUsage: (now = NOW) => capUsage(input(now)),
    holders: () => uuids(holders),
    waiting: () => uuids(waiters),
  };
};

/** The incremental index; its views go through snapshot(), the form the pure engine reads. */
const indexEngine: MakeAdmission = (p, holds = {}) => {
  const ix = new AdmissionIndex(p, holds);
  return {
    enqueue: (w) => ix.enqueue(w),
    acquire: (h) => ix.acquire(h),
    release: (uuid) => ix.release(uuid),
    remove: (uuid) => ix.remove(uuid),
    decide: (now = NOW) => ix.decide(now),
    expired: (now = NOW) => ix.expired(now),
    nextDeadline: (now = NOW) => ix.nextDeadline(now),
    capUsage: (now = NOW) => capUsage(ix.snapshot(now)),
    holders: () => uuids(ix.holders()),
    waiting: () => uuids(ix.waiting()),
  };
};

export const ENGINES: [string, MakeAdmission][] = [
  ['decide() (pure engine)', pureEngine],
  ['AdmissionIndex', indexEngine],
];

/** An engine with these holders, then these waiters, already in it. */
export function admission(
  make: MakeAdmission,
  p: AdmissionPolicy,
  holders: readonly SlotHolder[] = [],
  waiters: readonly Waiter[] = [],
  holds: Readonly<Record<string, number>> = {},
): Admission {
  const a = make(p, holds);
  for (const h of holders) a.acquire(h);
  for (const w of waiters) a.enqueue(w);
  return a;
}
