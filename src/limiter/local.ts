// The in-process limiter: caps kept by this supervisor alone, on the
// incremental admission index. Durable through the journal, not here: at
// start the supervisor enqueues its queued runs again and adopts the leases
// of its live ones. Lease ids carry a random per-process prefix, so no id is
// ever handed out twice, whether or not the process restarted.

import crypto from 'node:crypto';
import { capUsage, type AdmissionPolicy, type CapUsage, type Waiter } from '../core/admission.js';
import { AdmissionIndex } from '../core/admission-index.js';
import { applyPaces, paceAfterLift, pacedWaiting, withPaceHolds, type Pace } from '../core/pace.js';
import type { Waiting } from '../core/waiting.js';
import type { Lease, Limiter } from './limiter.js';

export class LocalLimiter implements Limiter {
  private index: AdmissionIndex;
  private readonly leases = new Map<string, Lease>();
  private readonly byUuid = new Map<string, Lease>();
  private readonly prefix = crypto.randomBytes(6).toString('hex');
  private seq = 0;
  private heldUntil: Record<string, number> = {};
  /** Providers starting their held-back runs at a pace (core/pace.ts): memory only, a restart lets the rest go at once. */
  private paces: Record<string, Pace> = {};

  constructor(policy: AdmissionPolicy, holds: Readonly<Record<string, number>> = {}) {
    this.index = new AdmissionIndex(policy, holds);
    this.heldUntil = { ...holds };
  }

  /** The index holds a provider for its hold and its pace, the later of the two. */
  private syncHolds(): void {
    this.index.setHolds(withPaceHolds(this.heldUntil, this.paces));
  }

  async enqueue(waiter: Waiter): Promise<void> {
    this.enqueueNow(waiter);
  }

  /** enqueue, for a caller that must not wait a turn (the supervisor queues inside its journal transaction). */
  enqueueNow(waiter: Waiter): void {
    if (this.byUuid.has(waiter.uuid)) throw new Error(`limiter: ${waiter.uuid} already holds a lease`);
    this.index.enqueue(waiter);
  }

  async cancel(uuid: string): Promise<boolean> {
    return this.cancelNow(uuid);
  }

  cancelNow(uuid: string): boolean {
    if (this.index.remove(uuid)) return true;
    const lease = this.byUuid.get(uuid);
    return lease !== undefined && this.releaseNow(lease.id);
  }

  async adopt(lease: Lease): Promise<void> {
    this.adoptNow(lease);
  }

  adoptNow(lease: Lease): void {
    const old = this.byUuid.get(lease.uuid);
    if (old) this.leases.delete(old.id);
    this.index.acquire({ uuid: lease.uuid, provider: lease.provider, workload: lease.workload });
    this.leases.set(lease.id, lease);
    this.byUuid.set(lease.uuid, lease);
  }

  async grant(now: number): Promise<Lease[]> {
    return this.grantNow(now);
  }

  grantNow(now: number): Lease[] {
    const out: Lease[] = [];
    const lease = (w: Waiter): void => {
      const l: Lease = { id: `${this.prefix}-${++this.seq}`, uuid: w.uuid, provider: w.provider, workload: w.workload, granted_at: now };
      this.leases.set(l.id, l);
      this.byUuid.set(w.uuid, l);
      out.push(l);
    };
    if (Object.keys(this.paces).length === 0) {
      for (const w of this.index.decideWaiters(now)) lease(w);
      return out;
    }
    for (;;) {
      // A paced provider's runs past its one go back to the queue in their places, its pace held
      // from now; the slots they would have taken go to other runs in the same pass.
      const { keep, back, paces } = applyPaces(this.index.decideWaiters(now), this.paces, now);
      for (const w of back) {
        this.index.release(w.uuid);
        this.index.enqueue(w);
      }
      keep.forEach(lease);
      this.paces = paces;
      this.syncHolds();
      if (back.length === 0) return out;
    }
  }

  async renew(leaseId: string, _now: number): Promise<boolean> {
    return this.leases.has(leaseId);
  }

  async release(leaseId: string): Promise<boolean> {
    return this.releaseNow(leaseId);
  }

  releaseNow(leaseId: string): boolean {
    const lease = this.leases.get(leaseId);
    if (!lease) return false;
    this.leases.delete(leaseId);
    this.byUuid.delete(lease.uuid);
    this.index.release(lease.uuid);
    return true;
  }

  expired(now: number): string[] {
    return this.index.expired(now);
  }

  nextDeadline(now: number): number | null {
    return this.index.nextDeadline(now);
  }

  setPolicy(policy: AdmissionPolicy): void {
    this.index.setPolicy(policy);
  }

  setHolds(holds: Readonly<Record<string, number>>): void {
    this.heldUntil = { ...holds };
    this.syncHolds();
  }

  async hold(provider: string, until: number): Promise<void> {
    if ((this.heldUntil[provider] ?? -Infinity) >= until) return;
    this.setHolds({ ...this.heldUntil, [provider]: until });
  }

  async lift(provider: string, _due?: boolean, pace?: { intervalMs: number; now: number }): Promise<void> {
    const { [provider]: _, ...rest } = this.heldUntil;
    this.heldUntil = rest;
    const { [provider]: _old, ...others } = this.paces;
    const p = pace ? paceAfterLift(pace.intervalMs, this.index.waiting().filter((w) => w.provider === provider).length, pace.now) : null;
    this.paces = p === null ? others : { ...others, [provider]: p };
    this.syncHolds();
  }

  holds(): Record<string, number> {
    return { ...this.heldUntil };
  }

  async addUsage(): Promise<void> {
    /* the journal counts it */
  }

  usageSince(): null {
    return null;
  }

  async close(): Promise<void> {
    /* nothing held */
  }

  get queued(): number {
    return this.index.queued;
  }

  get active(): number {
    return this.index.active;
  }

  isQueued(uuid: string): boolean {
    return this.index.isQueued(uuid);
  }

  leaseOf(uuid: string): Lease | null {
    return this.byUuid.get(uuid) ?? null;
  }

  holders(): Lease[] {
    return [...this.leases.values()];
  }

  waiting(): Waiter[] {
    return this.index.waiting();
  }

  usage(now: number): CapUsage[] {
    return capUsage(this.index.snapshot(now));
  }

  position(uuid: string): number | null {
    return this.index.queuePosition(uuid);
  }

  positions(): Map<string, number> {
    return this.index.positions();
  }

  waitingFor(uuid: string, now: number, fleetExceeded: boolean): Waiting | null {
    return pacedWaiting(this.index.waitingFor(uuid, now, fleetExceeded), this.paces, this.heldUntil, now);
  }
}
