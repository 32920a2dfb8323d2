// What was spent: the fleet's usage minute by minute (the usage_minutes
// table, which fleet budgets are summed from), and the spend of the runs
// live in a window by provider and by workload (from their records).

import type Database from 'better-sqlite3';
import { roundCost } from '../core/budget.js';
import type { SpendRow } from '../protocol/results.js';

interface UsageMinute {
  minute: number;
  tokens: number;
  cost: number;
}

export class Usage {
  private readonly stmts;

  constructor(db: Database.Database) {
    const spendBy = (col: 'provider' | 'workload') =>
      db.prepare<[number], SpendRow>(
        `SELECT ${col} AS key, COUNT(*) AS runs,
           COALESCE(SUM(json_extract(record, '$.tokens.input') + json_extract(record, '$.tokens.output')), 0) AS tokens,
           COALESCE(SUM(json_extract(record, '$.cost_usd')), 0) AS cost
         FROM runs WHERE status != 'ended' OR ended_at >= ? GROUP BY ${col} ORDER BY cost DESC, tokens DESC, key`,
      );
    this.stmts = {
      add: db.prepare<[number, number, number]>(
        `INSERT INTO usage_minutes (minute, tokens, cost) VALUES (?, ?, ?)
         ON CONFLICT(minute) DO UPDATE SET tokens = tokens + excluded.tokens, cost = cost + excluded.cost`,
      ),
      since: db.prepare<[number], { tokens: number; cost: number }>(
        `SELECT COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(cost), 0) AS cost FROM usage_minutes WHERE minute >= ?`,
      ),
      minutesAfter: db.prepare<[number], UsageMinute>(`SELECT minute, tokens, cost FROM usage_minutes WHERE minute > ? ORDER BY minute`),
      byProvider: spendBy('provider'),
      byWorkload: spendBy('workload'),
    };
  }

  /** Add a fleet usage increment to its minute. */
  add(ts: number, tokens: number, cost: number): void {
    this.stmts.add.run(Math.floor(ts / 60_000), tokens, cost);
  }

  /** Fleet usage from `sinceTs` on (minute resolution); 0 for all time. */
  since(sinceTs: number): { tokens: number; cost: number } {
    const sum = this.stmts.since.get(Math.floor(sinceTs / 60_000)) ?? { tokens: 0, cost: 0 };
    // A sum of REALs carries float noise (6.199999…); costs are kept to a millionth of a dollar.
    return { tokens: sum.tokens, cost: roundCost(sum.cost) };
  }

  /**
   * Spend by provider and by workload of the runs live in a window (not
   * ended, or ended since `sinceTs`), their whole usage each; and the fleet's
   * usage minute by minute over the last `minutes` up to `nowTs`.
   */
  spend(sinceTs: number, nowTs: number, minutes: number): { providers: SpendRow[]; workloads: SpendRow[]; perMinute: UsageMinute[] } {
    const rounded = <R extends { cost: number }>(r: R): R => ({ ...r, cost: roundCost(r.cost) });
    const last = Math.floor(nowTs / 60_000);
    return {
      providers: this.stmts.byProvider.all(sinceTs).map(rounded),
      workloads: this.stmts.byWorkload.all(sinceTs).map(rounded),
      perMinute: this.stmts.minutesAfter.all(last - minutes).map(rounded),
    };
  }
}
