// The PostgreSQL limiter against a real PostgreSQL server passes the same
// conformance suite as the in-process one.

import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgLimiter } from '../../src/limiter/pg.js';
import { policy, waiter } from '../core/admission-fixtures.js';
import { until } from '../support/harness.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';
import { limiterConformance } from './conformance.js';

const need = pgNeed();
let server: PgServer;
let n = 0;

describeWhen(need, `limiter conformance ${onPg()}`, () => {
  beforeAll(async () => {
    if (need.reason === null) server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });

  limiterConformance(
    'PostgreSQL (PgLimiter)',
    async (policy, holds) => {
      const cluster = `conformance-${process.pid}-${++n}`;
      const open = (host: string): Promise<PgLimiter> => PgLimiter.join({ url: server.url, cluster, host, leaseTtlMs: 30_000, policy, onConflict: 'refuse' });
      const limiter = await open('h1');
      for (const [provider, until] of Object.entries(holds ?? {})) await limiter.hold(provider, until);
      const others: PgLimiter[] = [];
      return {
        limiter,
        reopen: async () => {
          const l = await open(`h${others.length + 2}`);
          others.push(l);
          return l;
        },
        close: async () => {
          for (const l of [limiter, ...others]) await l.close();
        },
      };
    },
    { propertyRuns: 15 },
  );

  // A supervisor resyncs in the background as it starts (and after an outage), from the list of
  // its queued runs taken when the resync began. CI once saw a run queued in that window deleted
  // from the cluster's queue by it: queued here, in no machine's queue, never to start.
  it('a resync keeps a run queued after it began, and brings back no run canceled after it began', async () => {
    const cluster = `resync-${process.pid}`;
    const l = await PgLimiter.join({ url: server.url, cluster, host: 'h1', leaseTtlMs: 30_000, policy: policy({ max: 1 }), onConflict: 'refuse' });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const inDb = async (uuid: string): Promise<boolean> =>
      ((await admin.query(`SELECT 1 FROM orcr_waiter WHERE cluster = $1 AND uuid = $2`, [cluster, uuid])).rowCount ?? 0) > 0;
    const queued = (): string[] =>
      l
        .waiting()
        .map((w) => w.uuid)
        .sort();
    try {
      await l.enqueue(waiter('a'));
      // A slow resync: this machine's row is locked, so it waits in its first statement.
      const blocker = new pg.Client({ connectionString: server.url });
      await blocker.connect();
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM orcr_host WHERE cluster = $1 AND host = 'h1' FOR UPDATE`, [cluster]);
      const resync = l.resync([waiter('a')], []);
      await until(
        async () =>
          ((await admin.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO orcr_host%'`)).rowCount ?? 0) > 0,
        'the resync to wait for the lock',
      );
      // b is queued meanwhile. Before the fix its row was in the database at once, and the resync deleted it.
      const enqueued = l.enqueue(waiter('b'));
      // (Within the resync's lock_timeout of 2 s: with the fix b waits for the resync, and is not there.)
      await until(() => inDb('b'), 'b in the database', 1_000).catch(() => undefined);
      await blocker.query('ROLLBACK');
      await blocker.end();
      await Promise.all([resync, enqueued]);
      await l.refresh();
      expect(queued()).toEqual(['a', 'b']);
      expect(await inDb('b')).toBe(true);
      // b canceled while a resync that still lists it is on its way: it does not come back.
      for (let round = 0; round < 5; round++) {
        const again = l.resync([waiter('a'), waiter('b')], []);
        await l.cancel('b');
        await again;
        await l.refresh();
        expect(queued()).toEqual(['a']);
        await l.enqueue(waiter('b'));
      }
    } finally {
      await admin.end();
      await l.close();
    }
  });
});
