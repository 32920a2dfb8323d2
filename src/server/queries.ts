// What clients read: a run's public view (with its budget meters and what
// holds it back), a user's reference resolved to a run, the active runs a
// filter selects, and the caps. Reads the store, the limiter and the fleet;
// writes nothing.

import type { QuotaReport, SpendReply, Stats } from '../protocol/results.js';
import type { MeterView } from '../protocol/views.js';
import { roundCost, roundFraction } from '../core/budget.js';
import { holdsSlot } from '../core/run-state.js';
import type { Run } from '../core/types.js';
import type { RunEvent } from '../core/events.js';
import { withResumes, type Waiting } from '../core/waiting.js';
import { passingFailure } from '../core/attempts.js';
import { monoNow } from './clock.js';
import type { Config } from '../config/load.js';
import type { Fleet } from './fleet.js';
import type { Lifecycle } from './lifecycle.js';
import type { Settings } from './settings.js';
import type { Slots } from './slots.js';
import type { RunStore } from './run-store.js';
import { resolveRef } from './refs.js';
import type { Dependencies } from './dependencies.js';
import { publicRun, type PublicRun } from '../protocol/views.js';

/** What queries read, each at call time (the limiter, the config and the mode change under them). */
export interface QuerySources {
  readonly store: RunStore;
  readonly slots: Pick<Slots, 'limiter' | 'cluster'>;
  readonly fleet: Pick<Fleet, 'exceeded' | 'heldUntil' | 'meters' | 'holds' | 'quotas' | 'accountHeldUntil' | 'accountHolds'>;
  readonly dependencies: Pick<Dependencies, 'holds' | 'verdict' | 'dependentsOf'>;
  readonly config: () => Config;
  readonly lifecycle: Pick<Lifecycle, 'paused' | 'draining' | 'degraded'>;
  readonly settings: Pick<Settings, 'error'>;
}

/** The active runs `orcr kill --all/--status/-a/-w/--name GLOB` (and `--after REF`) names. */
export interface RunFilter {
  all?: boolean;
  status?: string;
  provider?: string;
  workload?: string;
  name?: string;
  after?: string;
}

export class Queries {
  constructor(private readonly p: QuerySources) {}

  view(run: Run): PublicRun {
    const { fleet, lifecycle } = this.p;
    const { limiter } = this.p.slots;
    const now = monoNow();
    let waiting: Waiting | null = null;
    if (run.status === 'queued') {
      // Admission order (priority, then first come): where the run really stands, and what holds it.
      const stopped = lifecycle.degraded !== null ? 'unavailable' : lifecycle.paused || lifecycle.draining ? 'paused' : null;
      waiting = stopped
        ? { reason: stopped, name: null, active: null, limit: null, reserved: null, until: null, position: limiter.position(run.uuid) }
        : limiter.waitingFor(run.uuid, now, fleet.exceeded);
      if (waiting) waiting = withResumes(waiting, run.attempts.length);
      // A dependent waiting for its inputs is in no queue yet (server/dependencies.ts).
      if (!stopped && this.p.dependencies.holds(run.uuid)) {
        const v = this.p.dependencies.verdict(run);
        const left = v.kind === 'wait' ? v.left.map((i) => ({ uuid: i.uuid, name: i.name, status: i.status })) : [];
        waiting = { reason: 'after', name: null, active: null, limit: run.after.length, reserved: null, until: null, position: null, inputs: left };
      }
      // A run of an account held (pause_at) waits outside the limiter until it lifts.
      const account = run.account ?? null;
      const accountHeld = stopped ? null : fleet.accountHeldUntil(run.provider, account, now);
      if (accountHeld !== null) {
        waiting = withResumes(
          {
            reason: 'hold',
            name: run.provider,
            account,
            active: null,
            limit: null,
            reserved: null,
            until: new Date(accountHeld).toISOString(),
            position: null,
          },
          run.attempts.length,
        );
      }
      // A retry waiting out its backoff is not in the limiter's queue yet.
      if (!stopped && run.retry_at && run.retry_at > Date.now()) {
        const retried = run.attempts.filter((a) => a.kind === 'retry');
        waiting = {
          reason: 'retry',
          name: null,
          active: retried.length,
          limit: run.retries,
          reserved: null,
          until: new Date(run.retry_at).toISOString(),
          position: null,
          why: retried.at(-1) ? (passingFailure(retried.at(-1)!) ?? null) : null,
        };
      }
    }
    return publicRun(run, {
      waiting,
      queuePosition: waiting?.position ?? null,
      now,
      heldUntil: run.status === 'ended' ? null : fleet.heldUntil(run.provider, now),
      loop: run.loop_flags ?? undefined,
      children: this.p.store.reader.childrenOf(run.uuid),
      dependents: this.p.dependencies.dependentsOf(run.uuid),
    });
  }

  /**
   * Each queued run of this home by its place in admission order (1 = next):
   * the figure its view gives as queue_position, for all of them at once.
   */
  positions(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [uuid, pos] of this.p.slots.limiter.positions()) if (this.p.store.get(uuid)?.status === 'queued') out.set(uuid, pos);
    return out;
  }

  /** Resolve a user's reference: uuid, unique uuid prefix, or name (an active run's before an ended one's). */
  resolve(ref: string): Run {
    return resolveRef(this.p.store, ref);
  }

  /** The active runs a filter matches, in queue order. */
  select(f: RunFilter): Run[] {
    const input = f.after === undefined ? null : this.resolve(f.after).uuid;
    const glob =
      f.name === undefined
        ? null
        : new RegExp(
            '^' +
              f.name
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '.*')
                .replace(/\?/g, '.') +
              '$',
            's',
          );
    return [...this.p.store.active()]
      .filter(
        (r) =>
          (f.status === undefined || r.status === f.status) &&
          (f.provider === undefined || r.provider === f.provider) &&
          (f.workload === undefined || r.workload === f.workload) &&
          (glob === null || glob.test(r.name)) &&
          (input === null || (r.after ?? []).includes(input)),
      )
      .sort((a, b) => a.queue_seq - b.queue_seq);
  }

  /** This home's active runs: those running an agent (slot holders) and those queued (what a stop leaves for the next supervisor). */
  counts(): { running: number; queued: number; active: number } {
    let running = 0;
    let queued = 0;
    let active = 0;
    for (const r of this.p.store.active()) {
      active++;
      if (holdsSlot(r.status)) running++;
      else if (r.status === 'queued') queued++;
    }
    return { running, queued, active };
  }

  /** The usage windows in force, for stats and spend. */
  private quotaViews(): QuotaReport[] {
    return this.p.fleet
      .quotas(Date.now())
      .map((q) => ({ ...q, resets_at: q.resets_at === null ? null : new Date(q.resets_at).toISOString(), at: new Date(q.at).toISOString() }));
  }

  /**
   * The spend view (`$` in the TUI): by provider and by workload over the
   * fleet budget's window (runs live in it, with their whole usage), the
   * fleet's meters against its budget, and the last hour minute by minute.
   */
  spend(): SpendReply {
    const { fleet, store } = this.p;
    const w = this.p.config().budgets.fleet.window;
    const now = monoNow();
    const since = w === 'all' ? 0 : now - w.rolling_ms;
    const s = store.reader.spend(since, now, 60);
    const meters: Record<string, MeterView> = {};
    for (const m of fleet.meters()) meters[m.name] = { used: roundCost(m.used), limit: m.limit, fraction: roundFraction(m.fraction), warn: m.warn };
    return {
      window: w === 'all' ? 'all' : `${w.rolling_ms}ms`,
      at: now,
      by_provider: s.providers,
      by_workload: s.workloads,
      per_minute: s.perMinute,
      fleet: { exceeded: fleet.exceeded, meters },
      quotas: this.quotaViews(),
    };
  }

  /** The names of the runs these events are about (uuid → name), so a reader shows a name without a lookup per run. */
  eventNames(events: readonly RunEvent[]): Record<string, string> {
    const { store } = this.p;
    const names: Record<string, string> = {};
    for (const e of events) {
      if (e.run === null || Object.hasOwn(names, e.run)) continue;
      const name = store.get(e.run)?.name ?? store.reader.nameOf(e.run);
      if (name !== null) names[e.run] = name;
    }
    return names;
  }

  stats(): Stats {
    const { fleet, store } = this.p;
    const { limiter, cluster } = this.p.slots;
    const config = this.p.config();
    const meters: Record<string, MeterView> = {};
    for (const m of fleet.meters()) meters[m.name] = { used: roundCost(m.used), limit: m.limit, fraction: roundFraction(m.fraction), warn: m.warn };
    const w = config.budgets.fleet.window;
    const names: Record<string, string> = {};
    const caps = limiter.usage(monoNow());
    for (const c of caps) for (const u of [...c.holders, ...c.waiting]) names[u] ??= limiter.nameOf?.(u) ?? store.get(u)?.name ?? u;
    return {
      caps,
      names,
      queued: limiter.queued,
      active: limiter.active,
      holds: { ...fleet.holds },
      account_holds: fleet.accountHolds(monoNow()),
      quotas: this.quotaViews(),
      fleet: { exceeded: fleet.exceeded, window: w === 'all' ? 'all' : `${w.rolling_ms}ms`, meters },
      warnings: [...config.warnings],
      config_error: this.p.settings.error,
      cluster: cluster?.state() ?? null,
      paused: this.p.lifecycle.paused,
      draining: this.p.lifecycle.draining,
      degraded: this.p.lifecycle.degraded,
    };
  }
}
