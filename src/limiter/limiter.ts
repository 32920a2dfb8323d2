// The limiter seam: how a run gets a slot. Admission asks a Limiter — enqueue
// a waiter, grant leases, renew and release them, list holders and waiters
// per cap — and does not care where the caps live: in this process (local.ts,
// the embedded default) or shared by several machines. It decides nothing
// about processes and writes no journal; the supervisor does both.

import type { AdmissionPolicy, CapUsage, Waiter } from '../core/admission.js';
import type { Waiting } from '../core/waiting.js';

/** A slot held by one run. Its id is never given to another grant, here or after a restart. */
export interface Lease {
  id: string;
  uuid: string;
  provider: string;
  workload: string;
  granted_at: number;
  /** The run's name, for listings. */
  name?: string;
}

export interface Limiter {
  /** Join the queue. A uuid that is queued or holds a lease already is a caller's bug: throws. */
  enqueue(waiter: Waiter): Promise<void>;
  /**
   * Leave the queue (canceled, expired). Safe against a grant in flight: a
   * run granted meanwhile gives its lease back. True if it was waiting or held.
   */
  cancel(uuid: string): Promise<boolean>;
  /** A run re-adopted after a restart keeps the lease it held. */
  adopt(lease: Lease): Promise<void>;
  /**
   * One admission pass: leases for every waiter that may start now, in start
   * order. Each is counted in all of its caps at once or not at all.
   */
  grant(now: number): Promise<Lease[]>;
  /** Keep a lease alive; false if it is not held (released, expired). Idempotent. */
  renew(leaseId: string, now: number): Promise<boolean>;
  /** Give a lease back; false if it was not held. Idempotent. */
  release(leaseId: string): Promise<boolean>;

  /** Waiters past their workload's max wait: they end `expired` (the caller cancels them). */
  expired(now: number): string[];
  /** When something time-based changes next (a max wait, a hold lifting), or null. */
  nextDeadline(now: number): number | null;
  setPolicy(policy: AdmissionPolicy): void;
  /** provider → epoch ms until which it is held (replaces this limiter's view of them; a shared limiter also hears of holds set elsewhere). */
  setHolds(holds: Readonly<Record<string, number>>): void;
  /** Hold a provider until then, for every machine that shares this limiter (never shortens a hold). */
  hold(provider: string, until: number): Promise<void>;
  /**
   * Lift a provider's hold, everywhere. `due`: it is lifted because its time
   * has come (by this machine's clock), not early: a shared limiter lifts it
   * only once its own clock agrees. `pace`: the runs of the provider waiting
   * then start one per `intervalMs` (core/pace.ts), not all at once.
   */
  lift(provider: string, due?: boolean, pace?: { intervalMs: number; now: number }): Promise<void>;
  /** The holds in force as this limiter knows them: provider → until. */
  holds(): Record<string, number>;
  /** Fleet usage to count where the limiter is shared (a local limiter counts nothing: the journal does). */
  addUsage(at: number, tokens: number, cost: number): Promise<void>;
  /** Shared fleet usage since then, or null when the local journal is the only count. */
  usageSince(at: number): { tokens: number; cost: number } | null;
  /** How listings name a run (`host:name` in a cluster), or null for its own name. */
  nameOf?(uuid: string): string | null;
  /** Let go of connections and timers. */
  close(): Promise<void>;

  readonly queued: number;
  readonly active: number;
  isQueued(uuid: string): boolean;
  leaseOf(uuid: string): Lease | null;
  holders(): Lease[];
  /** Waiters in queue order. */
  waiting(): Waiter[];
  /** One entry per cap: limit, holders, waiting line. */
  usage(now: number): CapUsage[];
  /** 1-based place in admission order, or null if not queued. */
  position(uuid: string): number | null;
  /** position() of every queued run at once (in a cluster, other machines' runs too). */
  positions(): Map<string, number>;
  /** What holds a queued run back, or null if it is not queued. */
  waitingFor(uuid: string, now: number, fleetExceeded: boolean): Waiting | null;
}
