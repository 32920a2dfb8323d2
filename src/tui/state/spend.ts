// The spend view's figures as the supervisor sends them (`spend`), checked:
// by provider and by workload over the fleet window, the fleet's meters, and
// the last hour minute by minute, the agents' usage windows.

import type { QuotaView } from '../../text/quota.js';
import { clean } from './safe-text.js';
import { normalizeQuotas } from './stats.js';

export interface SpendRow {
  key: string;
  runs: number;
  tokens: number;
  cost: number;
}

export interface Spend {
  window: string;
  /** The supervisor's clock when read. */
  at: number;
  providers: SpendRow[];
  workloads: SpendRow[];
  /** Epoch minute → tokens and cost (minutes with no usage absent). */
  perMinute: { minute: number; tokens: number; cost: number }[];
  exceeded: boolean;
  meters: { name: string; used: number; limit: number | null; fraction: number | null }[];
  /** The usage windows the agents last reported. */
  quotas: QuotaView[];
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function rows(v: unknown): SpendRow[] {
  return Array.isArray(v) ? v.filter((r) => r && typeof r === 'object').map((r: Record<string, unknown>) => ({ key: clean(String(r.key ?? '')), runs: num(r.runs), tokens: num(r.tokens), cost: num(r.cost) })) : [];
}

export function normalizeSpend(raw: unknown): Spend {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const fleet = (o.fleet && typeof o.fleet === 'object' ? o.fleet : {}) as Record<string, unknown>;
  const meters = fleet.meters && typeof fleet.meters === 'object' ? Object.entries(fleet.meters as Record<string, Record<string, unknown>>) : [];
  return {
    window: typeof o.window === 'string' ? clean(o.window) : 'all',
    at: num(o.at),
    providers: rows(o.by_provider),
    workloads: rows(o.by_workload),
    perMinute: Array.isArray(o.per_minute) ? (o.per_minute as Record<string, unknown>[]).map((m) => ({ minute: num(m.minute), tokens: num(m.tokens), cost: num(m.cost) })) : [],
    exceeded: fleet.exceeded === true,
    meters: meters.map(([name, m]) => ({ name: clean(name), used: num(m?.used), limit: typeof m?.limit === 'number' ? m.limit : null, fraction: typeof m?.fraction === 'number' ? m.fraction : null })),
    quotas: normalizeQuotas(o.quotas),
  };
}
