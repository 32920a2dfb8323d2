// The supervisor's stats as the TUI holds them: caps with their holders and
// waiters, holds, fleet budget meters, config problems. Taken in the shape
// the method table gives `stats` (a supervisor speaks the client's protocol
// version or refuses the hello), with every text made safe on the way in:
// names, warnings and errors are user text and reach the terminal. Pure.

import type { CapUsage } from '../../core/admission.js';
import type { ResultOf } from '../../protocol/methods.js';
import type { ClusterState, QuotaReport } from '../../protocol/results.js';
import type { MeterView } from '../../protocol/views.js';
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
  fleetWindow: string;
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

function toCluster(c: ClusterState | null): ClusterInfo | null {
  if (c === null) return null;
  return {
    name: clean(c.name),
    host: clean(c.host),
    available: c.available,
    since: c.since,
    error: c.error === null ? null : clean(c.error),
    machinesUp: c.machines.filter((m) => m.alive).length,
    machines: c.machines.length,
    notificationsLost: c.notifications === 'not arriving',
  };
}

/** The meters with a ceiling, by name (a meter without one has nothing to fill). */
function fleetMeters(meters: Readonly<Record<string, MeterView>>): FleetMeter[] {
  return Object.entries(meters)
    .filter(([, m]) => m.limit !== null)
    .map(([name, m]) => ({ name: clean(name), used: m.used, limit: m.limit, fraction: m.fraction ?? (m.limit ? m.used / m.limit : null) }));
}

/** The usage windows stats and spend carry, their text made safe. */
export function safeQuotas(quotas: readonly QuotaReport[]): QuotaView[] {
  return quotas.map((q) => ({
    provider: clean(q.provider),
    account: q.account === null ? null : clean(q.account),
    window: clean(q.window),
    status: clean(q.status),
    utilization: q.utilization,
    resets_at: q.resets_at,
  }));
}

const safeKeys = <V>(o: Readonly<Record<string, V>>): Record<string, V> => Object.fromEntries(Object.entries(o).map(([k, v]) => [clean(k), v]));

/** The stats result as the TUI holds it. */
export function normalizeStats(raw: ResultOf<'stats'>): Stats {
  const ce = raw.config_error;
  return {
    caps: raw.caps.map((c) => ({ ...c, cap: clean(c.cap) })),
    queued: raw.queued,
    active: raw.active,
    holds: safeKeys(raw.holds),
    quotas: safeQuotas(raw.quotas),
    fleet: fleetMeters(raw.fleet.meters),
    fleetExceeded: raw.fleet.exceeded,
    fleetWindow: clean(raw.fleet.window),
    // Uuids stay keys as they are (they are looked up, never shown); the names are shown.
    names: Object.fromEntries(Object.entries(raw.names).map(([k, v]) => [k, clean(v)])),
    warnings: raw.warnings.map(clean),
    configError: ce === null ? null : { at: ce.at, message: clean(ce.message) },
    paused: raw.paused,
    degraded: raw.degraded === null ? null : clean(raw.degraded),
    cluster: toCluster(raw.cluster),
  };
}
