// The supervisor's stats as the TUI holds them: caps with their holders and
// waiters, holds, fleet budget meters, config problems. Accepted as sent,
// with fields an older supervisor lacks defaulted; text made safe. Pure.

import type { CapUsage } from '../../core/admission.js';
import { clean } from './safe-text.js';
import type { QuotaView } from '../../text/quota.js';

export interface FleetMeter {
  name: string;
  used: number;
  limit: number | null;
  fraction: number | null;
}

export interface Stats {
  caps: CapUsage[];
  /** Names of the runs the caps list (holders, first waiters), by uuid. */
  names: Record<string, string>;
  /** Config values the supervisor clamped or ignored, in words. */
  warnings: string[];
  /** The last config.json edit the supervisor refused (the previous config stays in force), or null. */
  configError: { at: number; message: string } | null;
  queued: number;
  active: number;
  holds: Record<string, number>;
  /** Each provider's latest standing in its usage windows (its agents' reports), newest first. */
  quotas: QuotaView[];
  /** Fleet budget meters with a ceiling, when the supervisor reports them. */
  fleet: FleetMeter[];
  /** The fleet budget tripped: nothing new starts until it resets. */
  fleetExceeded: boolean;
  /** "all" or a rolling window, as the supervisor names it. */
  fleetWindow: string | null;
  /** `orcr queue pause`: nothing queued starts until it is resumed. */
  paused: boolean;
  /** Why the supervisor's journal cannot be written (a full disk), or null: nothing starts meanwhile. */
  degraded: string | null;
  /** The cluster this machine shares its caps with, or null on its own. */
  cluster: ClusterInfo | null;
}

export interface ClusterInfo {
  name: string;
  host: string;
  /** Its database can be reached: while not, this machine admits nothing (runs still queue, agents go on). */
  available: boolean;
  /** When `available` last changed (epoch ms). */
  since: number;
  error: string | null;
  /** Machines whose supervisor beat lately, and all it knows of. */
  machinesUp: number;
  machines: number;
  /** Other machines' notices do not reach this one (a transaction-mode pooler): it polls the database instead. */
  notificationsLost: boolean;
}

function toCluster(v: unknown): ClusterInfo | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  if (typeof o.name !== 'string') return null;
  const machines = Array.isArray(o.machines) ? (o.machines as { alive?: unknown }[]).filter((m) => m && typeof m === 'object') : [];
  return {
    name: clean(o.name),
    host: typeof o.host === 'string' ? clean(o.host) : '',
    available: o.available === true,
    since: typeof o.since === 'number' ? o.since : 0,
    error: typeof o.error === 'string' ? clean(o.error) : null,
    machinesUp: machines.filter((m) => m.alive === true).length,
    machines: machines.length,
    notificationsLost: o.notifications === 'not arriving',
  };
}

function toMeter(name: string, v: unknown): FleetMeter | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const used = typeof o.used === 'number' ? o.used : null;
  if (used === null) return null;
  const limit = typeof o.limit === 'number' ? o.limit : null;
  const fraction = typeof o.fraction === 'number' ? o.fraction : limit ? used / limit : null;
  return { name: clean(typeof o.name === 'string' ? o.name : name), used, limit, fraction };
}

/** The usage windows stats and spend carry, checked (an older supervisor sends none). */
export function normalizeQuotas(v: unknown): QuotaView[] {
  if (!Array.isArray(v)) return [];
  return (v as Record<string, unknown>[])
    .filter((q) => q && typeof q.provider === 'string' && typeof q.window === 'string')
    .map((q) => ({
      provider: clean(q.provider as string),
      account: typeof q.account === 'string' ? clean(q.account) : null,
      window: clean(q.window as string),
      status: typeof q.status === 'string' ? clean(q.status) : '',
      utilization: typeof q.utilization === 'number' ? q.utilization : null,
      resets_at: typeof q.resets_at === 'string' ? q.resets_at : null,
    }));
}

/** Accept the stats result as the supervisor sends it, tolerating fields it does not send yet. */
export function normalizeStats(raw: unknown): Stats {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const caps = Array.isArray(o.caps) ? (o.caps as CapUsage[]).filter((c) => c && typeof c.cap === 'string') : [];
  const holds: Record<string, number> = {};
  if (o.holds && typeof o.holds === 'object') {
    for (const [k, v] of Object.entries(o.holds as Record<string, unknown>)) if (typeof v === 'number') holds[clean(k)] = v;
  }
  const fleet: FleetMeter[] = [];
  const names: Record<string, string> = {};
  if (o.names && typeof o.names === 'object') {
    for (const [k, v] of Object.entries(o.names as Record<string, unknown>)) if (typeof v === 'string') names[k] = clean(v);
  }
  const warnings = Array.isArray(o.warnings) ? o.warnings.filter((w): w is string => typeof w === 'string').map(clean) : [];
  const ce = o.config_error as { at?: unknown; message?: unknown } | null | undefined;
  const configError = ce && typeof ce === 'object' && typeof ce.message === 'string' ? { at: typeof ce.at === 'number' ? ce.at : 0, message: clean(ce.message) } : null;
  const fleetObj = (o.fleet && typeof o.fleet === 'object' && !Array.isArray(o.fleet) ? o.fleet : {}) as Record<string, unknown>;
  // `fleet: {exceeded, window, meters: {name: meter}}`, or the meters directly.
  const src = fleetObj.meters ?? o.fleet ?? o.budgets ?? o.budget;
  if (Array.isArray(src)) {
    src.forEach((m, i) => {
      const mm = toMeter(`budget${i + 1}`, m);
      if (mm) fleet.push(mm);
    });
  } else if (src && typeof src === 'object') {
    for (const [k, v] of Object.entries(src as Record<string, unknown>)) {
      const mm = toMeter(k, v);
      if (mm) fleet.push(mm);
    }
  }
  return {
    caps: caps.map((c) => ({
      ...c,
      cap: clean(c.cap),
      priority: typeof c.priority === 'number' ? c.priority : null,
      holders: Array.isArray(c.holders) ? c.holders : [],
      waiting: Array.isArray(c.waiting) ? c.waiting : [],
      reserved: typeof c.reserved === 'number' ? c.reserved : 0,
      held_until: typeof c.held_until === 'number' ? c.held_until : null,
    })),
    queued: typeof o.queued === 'number' ? o.queued : 0,
    active: typeof o.active === 'number' ? o.active : 0,
    holds,
    quotas: normalizeQuotas(o.quotas),
    fleet: fleet.filter((m) => m.limit !== null),
    fleetExceeded: fleetObj.exceeded === true,
    fleetWindow: typeof fleetObj.window === 'string' ? clean(fleetObj.window) : null,
    names,
    warnings,
    configError,
    paused: o.paused === true,
    degraded: typeof o.degraded === 'string' ? clean(o.degraded) : null,
    cluster: toCluster(o.cluster),
  };
}
