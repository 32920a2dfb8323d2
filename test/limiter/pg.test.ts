// The PostgreSQL limiter against a real PostgreSQL server passes the same
// conformance suite as the in-process one.

import { afterAll, beforeAll } from 'vitest';
import { PgLimiter } from '../../src/limiter/pg.js';
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
      const open = (host: string): Promise<PgLimiter> =>
        PgLimiter.join({ url: server.url, cluster, host, leaseTtlMs: 30_000, policy, onConflict: 'refuse' });
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
});
