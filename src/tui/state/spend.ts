// The spend view's figures as the supervisor sends them (`spend`): by
// provider and by workload over the fleet window, the fleet's meters, the last
// hour minute by minute, the agents' usage windows. Taken in the method
// table's shape; the names in them are user text, made safe on the way in.

import type { ResultOf } from '../../protocol/methods.js';
import type { SpendRow as SpendRowResult } from '../../protocol/results.js';
import type { QuotaView } from '../../text/quota.js';
import { clean } from './safe-text.js';
import { safeQuotas } from './stats.js';

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

const rows = (rs: readonly SpendRowResult[]): SpendRow[] => rs.map((r) => ({ key: clean(r.key), runs: r.runs, tokens: r.tokens, cost: r.cost }));

export function normalizeSpend(raw: ResultOf<'spend'>): Spend {
  return {
    window: clean(raw.window),
    at: raw.at,
    providers: rows(raw.by_provider),
    workloads: rows(raw.by_workload),
    perMinute: raw.per_minute,
    exceeded: raw.fleet.exceeded,
    meters: Object.entries(raw.fleet.meters).map(([name, m]) => ({ name: clean(name), used: m.used, limit: m.limit, fraction: m.fraction })),
    quotas: safeQuotas(raw.quotas),
  };
}
