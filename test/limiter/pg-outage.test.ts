// The PostgreSQL limiter while the server drops its connections: every call
// fails as ClusterUnavailable (or succeeds), and nothing escapes as an
// uncaught 'error' — one would take the whole supervisor down with the
// database, where it must fail closed and go on.

import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgLimiter } from '../../src/limiter/pg.js';
import { NOW, policy, waiter } from '../core/admission-fixtures.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';

const need = pgNeed();
let server: PgServer;

describeWhen(need, `PgLimiter under dropped connections ${onPg()}`, () => {
  beforeAll(async () => {
    if (need.reason === null) server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });

  it('connections terminated mid-work reject the call in flight and raise nothing uncaught', async () => {
    const uncaught: unknown[] = [];
    const seen = (e: unknown): void => void uncaught.push(e);
    process.on('uncaughtException', seen);
    const limiter = await PgLimiter.join({
      url: server.url,
      cluster: 'outage',
      host: 'h1',
      leaseTtlMs: 30_000,
      policy: policy({ max: 2 }),
      onConflict: 'refuse',
    });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    try {
      let failures = 0;
      for (let round = 0; round < 40; round++) {
        const work: Promise<unknown>[] = [];
        for (let i = 0; i < 8; i++) {
          work.push(limiter.enqueue(waiter(`r${round}-${i}`)));
          work.push(limiter.grant(NOW).then((ls) => Promise.all(ls.map((l) => limiter.release(l.id)))));
          work.push(limiter.heartbeat([]));
          work.push(limiter.refresh());
        }
        const settled = Promise.allSettled(work);
        // Every connection but this one, at a moment when some are between two queries of a transaction.
        await new Promise((r) => setImmediate(r));
        await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()');
        for (const r of await settled) {
          if (r.status === 'rejected') {
            failures++;
            expect((r.reason as Error).name).toBe('ClusterUnavailable');
          }
        }
      }
      // Some calls were cut (else the test proved nothing), and the limiter works again afterwards.
      expect(failures).toBeGreaterThan(0);
      await limiter.refresh();
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', seen);
      await admin.end();
      await limiter.close();
    }
  }, 120_000);
});
