// The fleet's usage written in batches (limiter/pg-usage.ts): a burst of
// reports is one transaction, their sums per minute are exact, and a batch
// the database refused is written with the next — nothing this process holds
// is lost to an outage. On a real PostgreSQL server; transactions counted by
// the server itself (pg_stat_database).

import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClusterDb } from '../../src/limiter/pg-db.js';
import { CLUSTER_SCHEMA } from '../../src/limiter/pg-schema.js';
import { UsageBatch } from '../../src/limiter/pg-usage.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';

const need = pgNeed();
let server: PgServer;
let admin: pg.Client;

describeWhen(need, `the fleet's usage in batches ${onPg()}`, () => {
  beforeAll(async () => {
    if (need.reason !== null) return;
    server = await PgServer.start();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(CLUSTER_SCHEMA);
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await server?.destroy();
  });

  const sums = async (cluster: string): Promise<Record<string, { tokens: number; cost: number }>> =>
    Object.fromEntries(
      (
        await admin.query<{ minute: string; tokens: string; cost: number }>('SELECT minute, tokens, cost FROM orcr_usage WHERE cluster = $1', [cluster])
      ).rows.map((r) => [r.minute, { tokens: Number(r.tokens), cost: Math.round(r.cost * 1e6) / 1e6 }]),
    );
  /** Transactions the server committed, as it counts them (its statistics flushed first). */
  const commits = async (): Promise<number> => {
    await admin.query('SELECT pg_stat_force_next_flush()');
    return Number((await admin.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.n);
  };

  it('a burst of 500 reports over two minutes is one write, its sums exact', async () => {
    const db = new ClusterDb(server.url, Date.now);
    const batch = new UsageBatch(db, 'burst', 200);
    try {
      await db.q('SELECT 1');
      const before = await commits();
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 500; i++) writes.push(batch.add(i < 300 ? 100 : 101, 10, 0.001));
      await Promise.all(writes);
      // One for the batch, and a few of the statistics' own reads: far from 500.
      expect((await commits()) - before).toBeLessThan(10);
      expect(await sums('burst')).toEqual({ '100': { tokens: 3000, cost: 0.3 }, '101': { tokens: 2000, cost: 0.2 } });
    } finally {
      await db.end();
    }
  });

  it('a batch the database refused is written with the next one, nothing lost', async () => {
    const db = new ClusterDb(server.url, Date.now);
    const batch = new UsageBatch(db, 'outage', 50);
    try {
      await admin.query('ALTER TABLE orcr_usage RENAME TO orcr_usage_away');
      await expect(batch.add(7, 5, 0.5)).rejects.toThrow(/orcr_usage/);
      await admin.query('ALTER TABLE orcr_usage_away RENAME TO orcr_usage');
      await batch.add(7, 1, 0.25);
      expect(await sums('outage')).toEqual({ '7': { tokens: 6, cost: 0.75 } });
      // flush() writes at once what waits (a read of the fleet's usage does it first).
      const added = batch.add(8, 2, 0);
      await batch.flush();
      await added;
      expect((await sums('outage'))['8']).toEqual({ tokens: 2, cost: 0 });
    } finally {
      await db.end();
    }
  });
});
