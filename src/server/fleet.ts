// The fleet's budget and the providers' holds: usage summed in the budget's
// window, warnings and the trip that stops new work, and usage-limit holds
// with their lifting. The verdict is core/budget's fleetVerdict; this
// journals it through the run store, and the limiter hears of holds only
// after they are committed (effects). Never starts or signals a process.

import type { Config } from '../config/load.js';
import { fleetMeters, fleetVerdict, roundCost, roundFraction, type FleetBudget, type Meter } from '../core/budget.js';
import { DEFAULT_RESUME_PACE_MS } from '../core/pace.js';
import { monoNow } from './clock.js';
import type { Ending } from './ending.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { Run } from '../core/types.js';
import type { Slots } from './slots.js';

/** A provider's standing in one usage window (epoch ms). */
export interface Quota {
  provider: string;
  /** The account's folder (agents/accounts.ts), null for the agent's default login. */
  account: string | null;
  window: string;
  status: string;
  utilization: number | null;
  resets_at: number | null;
  at: number;
}

export class Fleet {
  private usage = { tokens: 0, cost: 0 };
  private warned = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** The holds this machine journaled (the limiter's view may hold more: a cluster's). */
  private journaled: Record<string, number> = {};
  /** When each provider's hold last lifted here (memory only): a limit met soon after is the reset's rush, not a new window. */
  private lifted: Record<string, number> = {};
  /**
   * Accounts held (pause_at, reached by a run of the account): provider and
   * account (accountKey) → until. This machine's only (an account is a login
   * folder of its own), journaled; their queued runs wait outside the
   * limiter (keepsOut), the provider's other accounts' do not.
   */
  private accounts: Record<string, number> = {};
  exceeded = false;

  /** @param p.promptAfterHold  what an interactive run a limit left idle is told when the hold lifts (Continuing's policy), or null */
  constructor(
    private readonly p: {
      store: RunStore;
      slots: Slots;
      config: () => Config;
      lifecycle: Pick<Lifecycle, 'background'>;
      ending: Pick<Ending, 'end'>;
      promptAfterHold: (run: Run) => string | null;
    },
  ) {}

  /**
   * At start: holds, the exceeded flag and the window's usage from the
   * journal (a rolling window is re-read each minute). Returns the holds, for
   * a limiter built from the journal.
   */
  load(): Record<string, number> {
    const { reader } = this.p.store;
    this.journaled = reader.getMeta<Record<string, number>>('holds') ?? {};
    this.accounts = reader.getMeta<Record<string, number>>('account_holds') ?? {};
    this.exceeded = reader.getMeta('fleet_exceeded') !== null;
    this.loadUsage();
    this.timer ??= setInterval(() => {
      this.loadUsage();
      this.check();
    }, 60_000);
    this.timer.unref();
    return { ...this.journaled };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private budget(): FleetBudget {
    const f = this.p.config().budgets.fleet;
    return { max_tokens: f.max_tokens, max_cost_usd: f.max_cost_usd, window: f.window };
  }

  /** Re-read usage for the current window: the cluster's when it shares one, else this journal's. */
  loadUsage(): void {
    const w = this.p.config().budgets.fleet.window;
    const since = w === 'all' ? 0 : monoNow() - w.rolling_ms;
    this.usage = this.p.slots.limiter.usageSince(since) ?? this.p.store.reader.usageSince(since);
  }

  meters(): Meter[] {
    return fleetMeters({ tokens: this.usage.tokens, cost_usd: this.usage.cost }, this.budget());
  }

  /** A run spent this much (journaled in the caller's unit of work; counted once it commits, and told to the cluster). */
  add(tokens: number, cost: number): void {
    const at = monoNow();
    this.p.store.addUsage(at, tokens, cost);
    this.p.store.afterCommit(() => {
      this.usage = { tokens: this.usage.tokens + tokens, cost: this.usage.cost + cost };
      this.p.lifecycle.background(this.p.slots.limiter.addUsage(at, tokens, cost));
    });
  }

  /** Warn at 80%; over the ceiling, stop new work (queued runs canceled, idle ones let go); back under, resume. */
  check(): void {
    const { store } = this.p;
    const v = fleetVerdict(this.meters(), this.exceeded, this.warned);
    for (const m of v.warn) {
      this.warned.add(m.name);
      store.event(null, {
        type: 'budget_warning',
        data: { scope: 'fleet', meter: m.name, used: roundCost(m.used), limit: m.limit, fraction: roundFraction(m.fraction) },
      });
    }
    const change = v.change;
    if (change.kind === 'trip') {
      const trip = change.meter;
      store.transaction(() => {
        store.setMeta('fleet_exceeded', { at: monoNow(), meter: trip.name });
        store.event(null, { type: 'budget_exceeded', data: { scope: 'fleet', meter: trip.name, used: roundCost(trip.used), limit: trip.limit } });
        // Nothing new starts; this machine's queued runs are canceled; in-flight runs finish their turn.
        for (const run of [...store.active()]) if (run.status === 'queued') this.p.ending.end(run.uuid, 'canceled', 'fleet_budget', null);
        store.afterCommit(() => {
          this.exceeded = true;
        });
      });
      store.emit(...[...store.active()].filter((r) => r.status === 'idle').map((r) => ({ kind: 'close_input' as const, uuid: r.uuid })));
    } else if (change.kind === 'reset') {
      store.transaction(() => {
        store.setMeta('fleet_exceeded', null);
        store.event(null, { type: 'budget_reset', data: { scope: 'fleet' } });
        store.afterCommit(() => {
          this.exceeded = false;
          this.warned.clear();
        });
      });
    }
  }

  /** Each provider's latest standing in each usage window it reported (memory only: the next turn says it again). */
  private readonly quotaSeen = new Map<string, Quota>();

  /** An agent's report of its account's usage window: the latest per provider, account and window is kept. */
  noteQuota(
    q: { provider: string; account: string | null; window: string; status: string; utilization: number | null; resets_at: number | null },
    at: number,
  ): void {
    this.quotaSeen.set(`${q.provider}\u0000${q.account ?? ''}\u0000${q.window}`, {
      provider: q.provider,
      account: q.account,
      window: q.window,
      status: q.status,
      utilization: q.utilization,
      resets_at: q.resets_at,
      at,
    });
  }

  /** The latest report per provider, account and window, whose window has not reset yet (or whose reset is unknown). */
  quotas(now: number): Quota[] {
    return [...this.quotaSeen.values()]
      .filter((q) => q.resets_at === null || q.resets_at > now)
      .sort((a, b) => a.provider.localeCompare(b.provider) || (a.account ?? '').localeCompare(b.account ?? '') || a.window.localeCompare(b.window));
  }

  /** The holds in force (a cluster's are every machine's). */
  get holds(): Record<string, number> {
    return this.p.slots.limiter.holds();
  }

  /** Hold a provider until then (in the caller's unit of work, with the run's events); never shortens a hold. */
  hold(provider: string, until: number): void {
    const held = Math.max(this.journaled[provider] ?? -Infinity, this.holds[provider] ?? -Infinity);
    if (held >= until) return;
    const holds = { ...this.journaled, [provider]: until };
    this.p.store.setMeta('holds', holds);
    this.p.store.afterCommit(() => {
      this.journaled = holds;
    });
    this.p.store.emit({ kind: 'hold', provider, until });
  }

  /**
   * Hold one account of a provider until then (in the caller's unit of work,
   * with the run's events); never shortens a hold. Once it commits, that
   * account's queued runs step out of the limiter's queue (the requeue effect
   * asks keepsOut).
   */
  holdAccount(provider: string, account: string | null, until: number): void {
    const key = accountKey(provider, account);
    if ((this.accounts[key] ?? -Infinity) >= until) return;
    const accounts = { ...this.accounts, [key]: until };
    const { store } = this.p;
    store.setMeta('account_holds', accounts);
    store.afterCommit(() => {
      this.accounts = accounts;
    });
    for (const run of store.active())
      if (run.status === 'queued' && accountKey(run.provider, run.account ?? null) === key) store.emit({ kind: 'requeue', uuid: run.uuid });
  }

  /** Until when this account of the provider is held, or null. */
  accountHeldUntil(provider: string, account: string | null, now: number): number | null {
    const key = accountKey(provider, account);
    const until = Object.hasOwn(this.accounts, key) ? this.accounts[key]! : null;
    return until !== null && until > now ? until : null;
  }

  /** A queued run whose account is held waits outside the limiter: no cap's line, no slot. */
  keepsOut(run: Run, now = monoNow()): boolean {
    return this.accountHeldUntil(run.provider, run.account ?? null, now) !== null;
  }

  /** The account holds in force, for stats. */
  accountHolds(now: number): { provider: string; account: string | null; until: string }[] {
    return Object.entries(this.accounts)
      .filter(([, until]) => until > now)
      .map(([key, until]) => ({ ...splitKey(key), until: new Date(until).toISOString() }));
  }

  /** When the next account hold ends (admission looks again then), or null. */
  nextAccountLift(now: number): number | null {
    const ends = Object.values(this.accounts).filter((u) => u > now);
    return ends.length === 0 ? null : Math.min(...ends);
  }

  /** Until when a provider is held, or null. */
  heldUntil(provider: string, now: number): number | null {
    const holds = this.holds;
    const until = Object.hasOwn(holds, provider) ? holds[provider]! : null;
    return until !== null && until > now ? until : null;
  }

  /** Lift holds whose time has come (and, with `provider`, that one early): here and, in a cluster, everywhere. */
  lift(now: number, provider?: string): boolean {
    const accounts = this.liftAccounts(now, provider);
    const lifted = Object.entries({ ...this.holds, ...this.journaled }).filter(([p, until]) => until <= now || p === provider);
    if (lifted.length === 0) return accounts;
    const rest = Object.fromEntries(Object.entries(this.journaled).filter(([p]) => !lifted.some(([q]) => q === p)));
    const { store } = this.p;
    store.transaction(() => {
      for (const [p, until] of lifted) store.event(null, { type: 'hold_lifted', data: { provider: p, early: until > now } });
      store.setMeta('holds', Object.keys(rest).length ? rest : null);
      store.afterCommit(() => {
        this.journaled = rest;
        for (const [p, until] of lifted) {
          this.lifted[p] = now;
          // The runs it held back start at the provider's pace, not all in the same second.
          this.p.lifecycle.background(this.p.slots.limiter.lift(p, until <= now, { intervalMs: this.resumePace(p), now }));
        }
      });
      // Interactive runs a limit left idle, their agent alive: told to go on (a one-shot one is queued and resumed instead).
      const gone = new Set(lifted.map(([p]) => p));
      for (const run of store.active()) {
        if (!gone.has(run.provider) || !run.interactive || run.status !== 'idle' || !run.limited_at) continue;
        const text = this.p.promptAfterHold(run);
        if (text !== null) store.emit({ kind: 'send', uuid: run.uuid, text });
      }
    });
    return true;
  }

  /** Lift account holds whose time has come (with `provider`, its accounts' early): their runs take their queue places again. */
  private liftAccounts(now: number, provider?: string): boolean {
    const lifted = Object.entries(this.accounts).filter(([key, until]) => until <= now || splitKey(key).provider === provider);
    if (lifted.length === 0) return false;
    const gone = new Set(lifted.map(([key]) => key));
    const rest = Object.fromEntries(Object.entries(this.accounts).filter(([key]) => !gone.has(key)));
    const { store } = this.p;
    store.transaction(() => {
      for (const [key, until] of lifted) store.event(null, { type: 'hold_lifted', data: { ...splitKey(key), early: until > now } });
      store.setMeta('account_holds', Object.keys(rest).length ? rest : null);
      store.afterCommit(() => {
        this.accounts = rest;
      });
      for (const run of store.active())
        if (run.status === 'queued' && gone.has(accountKey(run.provider, run.account ?? null))) store.emit({ kind: 'requeue', uuid: run.uuid });
    });
    return true;
  }

  /** When the provider's hold last lifted on this machine, or null. */
  liftedAt(provider: string): number | null {
    return Object.hasOwn(this.lifted, provider) ? this.lifted[provider]! : null;
  }

  /** providers.NAME.resume_pace, else the default. */
  private resumePace(provider: string): number {
    const providers = this.p.config().providers;
    return (Object.hasOwn(providers, provider) ? providers[provider]!.resume_pace : undefined) ?? DEFAULT_RESUME_PACE_MS;
  }

  /** `orcr provider resume`: its hold and its accounts' lifted; false if none was held. */
  resume(provider: string): boolean {
    const accounts = Object.keys(this.accounts).some((key) => splitKey(key).provider === provider);
    if (!Object.hasOwn(this.holds, provider) && !Object.hasOwn(this.journaled, provider) && !accounts) return false;
    this.lift(monoNow(), provider);
    this.p.store.emit({ kind: 'admit' });
    return true;
  }
}

/** An account of a provider, as a key of the account holds (NUL cannot be in either). */
function accountKey(provider: string, account: string | null): string {
  return `${provider}\u0000${account ?? ''}`;
}

function splitKey(key: string): { provider: string; account: string | null } {
  const at = key.indexOf('\u0000');
  const account = key.slice(at + 1);
  return { provider: key.slice(0, at), account: account === '' ? null : account };
}
