// The cluster as a machine last read it — leases with their time left,
// waiters in queue order, holds in force — and every read of the Limiter
// answered from it: counts, positions, why a run waits, deadlines. Reads
// overlap (a grant's, a refresh's): the one that began last is kept.

import type pg from 'pg';
import { capUsage, expired as expiredOf, nextDeadline as nextDeadlineOf, type AdmissionPolicy, type CapUsage, type Waiter } from '../core/admission.js';
import { AdmissionIndex } from '../core/admission-index.js';
import { pacedWaiting, withPaceHolds, type Pace } from '../core/pace.js';
import type { Waiting } from '../core/waiting.js';
import type { Lease } from './limiter.js';

export interface Snapshot {
  /** Each lease's time left (database clock) when read, in ms. */
  holders: (Lease & { host: string; name: string; leftMs: number })[];
  waiters: (Waiter & { host: string; name: string })[];
  holds: Record<string, number>;
  /** Providers starting their waiting runs at a pace (next_at on this machine's clock). Absent: none. */
  paces?: Record<string, Pace>;
}

/** What holds each provider back: its hold, or its pace's next start. */
const heldBy = (snap: Pick<Snapshot, 'holds' | 'paces'>): Record<string, number> => withPaceHolds(snap.holds, snap.paces ?? {});

/** Read the cluster's state in the caller's transaction; hold ends converted to this machine's clock by `fromDb`. */
export async function readSnapshot(c: pg.PoolClient, cluster: string, fromDb: (t: number) => number): Promise<Snapshot> {
  // One after another: a pg client runs one query at a time anyway (it only queued them), and pg 9 will refuse the overlap.
  const leases = await c.query<{
    id: string;
    uuid: string;
    host: string;
    name: string;
    provider: string;
    workload: string;
    granted_at: string;
    left_ms: number;
  }>(
    `SELECT id, uuid, host, name, provider, workload, granted_at, (extract(epoch FROM expires_at - now()) * 1000)::float8 AS left_ms
     FROM orcr_lease WHERE cluster = $1 AND expires_at >= now() ORDER BY id`,
    [cluster],
  );
  const waiters = await c.query<{ uuid: string; host: string; name: string; provider: string; workload: string; seq: string; enqueued_at: string }>(
    `SELECT uuid, host, name, provider, workload, seq, enqueued_at FROM orcr_waiter WHERE cluster = $1 ORDER BY seq`,
    [cluster],
  );
  // A hold's end on the database's clock, in this machine's (a version-1 row has only the writer's own `until`).
  const holds = await c.query<{ provider: string; until: string; at_ms: number | null }>(
    `SELECT provider, until, (extract(epoch FROM expires_at) * 1000)::float8 AS at_ms FROM orcr_hold WHERE cluster = $1`,
    [cluster],
  );
  const paces = await c.query<{ provider: string; interval_ms: string; left_count: number; at_ms: number }>(
    `SELECT provider, interval_ms, left_count, (extract(epoch FROM next_at) * 1000)::float8 AS at_ms FROM orcr_pace WHERE cluster = $1 AND left_count > 0`,
    [cluster],
  );
  return {
    paces: Object.fromEntries(
      paces.rows.map((r) => [r.provider, { interval_ms: Number(r.interval_ms), left: r.left_count, next_at: Math.round(fromDb(Number(r.at_ms))) }]),
    ),
    holders: leases.rows.map((r) => ({
      id: String(r.id),
      uuid: r.uuid,
      host: r.host,
      name: r.name,
      provider: r.provider,
      workload: r.workload,
      granted_at: Number(r.granted_at),
      leftMs: Number(r.left_ms),
    })),
    waiters: waiters.rows.map((r) => ({
      uuid: r.uuid,
      host: r.host,
      name: r.name,
      provider: r.provider,
      workload: r.workload,
      queue_seq: Number(r.seq),
      enqueued_at: Number(r.enqueued_at),
    })),
    holds: Object.fromEntries(holds.rows.map((r) => [r.provider, r.at_ms === null ? Number(r.until) : Math.round(fromDb(Number(r.at_ms)))])),
  };
}

export class ClusterSnapshot {
  private snap: Snapshot = { holders: [], waiters: [], holds: {} };
  /** When the snapshot was read (this machine's clock): lease times left count from here. */
  private at = 0;
  private index: AdmissionIndex | null = null;
  /** Reads in the order they began, and the one the snapshot is from. */
  private begun = 0;
  private taken = 0;

  constructor(
    /** This machine: only its own waiters expire here, only its own leases are its. */
    private readonly host: string,
    /** The cluster's caps, as the last grant read them. */
    public policy: AdmissionPolicy,
    private readonly now: () => number,
  ) {}

  /** A read begins: its number, for set(). */
  begin(): number {
    return ++this.begun;
  }

  /** Take a read's result unless one that began later was taken already. */
  set(seq: number, snap: Snapshot): void {
    if (seq < this.taken) return;
    this.taken = seq;
    this.snap = snap;
    this.at = this.now();
    this.index = null;
  }

  /** When it was read; null before the first read. */
  get seenAt(): number | null {
    return this.at || null;
  }

  expired(now: number): string[] {
    // Only this machine ends its own waiters.
    const mine = this.snap.waiters.filter((w) => w.host === this.host);
    return expiredOf({ policy: this.policy, holders: [], waiters: mine, holds: heldBy(this.snap), now });
  }

  /**
   * Besides max waits and holds: while we have waiters, the moment the next
   * lease lapses (its machine may be gone) — so a dead machine's slot is
   * taken within lease_ttl, not at the next poll.
   */
  nextDeadline(now: number): number | null {
    const mine = this.snap.waiters.filter((w) => w.host === this.host);
    let at = nextDeadlineOf({ policy: this.policy, holders: [], waiters: mine, holds: heldBy(this.snap), now });
    if (mine.length > 0 && this.snap.holders.length > 0) {
      const lapse = this.at + Math.min(...this.snap.holders.map((h) => h.leftMs)) + 1;
      if (lapse > now && (at === null || lapse < at)) at = lapse;
    }
    return at;
  }

  get queued(): number {
    return this.snap.waiters.length;
  }

  get active(): number {
    return this.snap.holders.length;
  }

  isQueued(uuid: string): boolean {
    return this.snap.waiters.some((w) => w.uuid === uuid);
  }

  leaseOf(uuid: string): Lease | null {
    return this.snap.holders.find((h) => h.uuid === uuid && h.host === this.host) ?? null;
  }

  holders(): Lease[] {
    return this.snap.holders.map((h) => ({ ...h }));
  }

  waiting(): Waiter[] {
    return this.snap.waiters.map((w) => ({ ...w }));
  }

  holds(): Record<string, number> {
    return { ...this.snap.holds };
  }

  /** Cluster-wide caps; holders and waiters named `host:name`. */
  usage(now: number): CapUsage[] {
    return capUsage({ policy: this.policy, holders: this.snap.holders, waiters: this.snap.waiters, holds: heldBy(this.snap), now });
  }

  position(uuid: string): number | null {
    return this.view().queuePosition(uuid);
  }

  positions(): Map<string, number> {
    return this.view().positions();
  }

  waitingFor(uuid: string, now: number, fleetExceeded: boolean): Waiting | null {
    return pacedWaiting(this.view().waitingFor(uuid, now, fleetExceeded), this.snap.paces ?? {}, this.snap.holds, now);
  }

  /** `host:name` of a run the cluster lists, for listings. */
  nameOf(uuid: string): string | null {
    const r = this.snap.holders.find((h) => h.uuid === uuid) ?? this.snap.waiters.find((w) => w.uuid === uuid);
    return r ? `${r.host}:${r.name}` : null;
  }

  /** An admission index over the snapshot, for positions and reasons (built once per snapshot). */
  private view(): AdmissionIndex {
    if (this.index) return this.index;
    const ix = new AdmissionIndex(this.policy, heldBy(this.snap));
    for (const h of this.snap.holders) ix.acquire(h);
    for (const w of this.snap.waiters) ix.enqueue(w);
    this.index = ix;
    return ix;
  }
}
