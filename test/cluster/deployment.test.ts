// The cluster as a team deploys it: two or three homes on one PostgreSQL,
// directly and behind a real PgBouncer in transaction mode. Admission follows
// the database's commits and notices, never a poll's luck: each machine here
// checks the database for changes only once an hour (`cluster.poll`), so a
// run that waited for the poll would wait past the test.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublicRun } from '../../src/server/view.js';
import { until, useHomes, type TestHome } from '../support/harness.js';
import { PgServer, pgUnavailable } from '../support/pg.js';
import { PgBouncer, pgBouncerUnavailable } from '../../bench/lib/pgbouncer.js';
import { cliAsync } from '../support/cluster.js';

const why = pgUnavailable();
const home = useHomes();
let server: PgServer;
let clusters = 0;

if (!why) {
  beforeAll(async () => {
    server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });
}

type ClusterExtra = Record<string, unknown>;

/** Homes in one new cluster (named m1, m2, …) with these caps; no safety poll unless asked. */
function machines(n: number, caps: Record<string, unknown>, extra: ClusterExtra = {}, url = server.url): TestHome[] {
  const name = `d${process.pid}-${++clusters}`;
  return Array.from({ length: n }, (_, i) => home({ concurrency: caps, cluster: { url, name, host: `m${i + 1}`, lease_ttl: '30s', poll: '1h', ...extra } }));
}

describe.skipIf(why !== null)(`the cluster as deployed (PostgreSQL)${why ? `: ${why}` : ''}`, () => {
  it('on an idle cluster a queued run starts after its enqueue commits, not at the next poll', async () => {
    const [a] = machines(2, { max: 4 });
    for (let i = 0; i < 10; i++) {
      a!.json(['run', '-n', `r${i}`, '--', 'true']);
      const r = await cliAsync(a!, ['wait', `r${i}`, '--timeout', '30s']);
      expect(r.stdout, `run ${i}: ${r.stderr}`).toBe(`r${i} completed\n`);
    }
  });

  it('a slot freed on one machine goes to the next waiter on another at once, again and again', async () => {
    const [a, b] = machines(2, { max: 1 });
    // Interleaved in queue order: a0 b0 a1 b1 …, so every freed slot is the other machine's.
    for (let i = 0; i < 4; i++) {
      a!.cli(['run', '-n', `a${i}`, '--', 'sh', '-c', 'sleep 0.1']);
      b!.cli(['run', '-n', `b${i}`, '--', 'sh', '-c', 'sleep 0.1']);
    }
    const [ra, rb] = await Promise.all([cliAsync(a!, ['wait', '--all', '--timeout', '60s']), cliAsync(b!, ['wait', '--all', '--timeout', '60s'])]);
    expect([ra.code, rb.code], ra.stdout + rb.stdout).toEqual([0, 0]);
  });
});

const whyPooler = why ?? pgBouncerUnavailable();
describe.skipIf(whyPooler !== null)(`the cluster behind PgBouncer in transaction mode${whyPooler ? `: ${whyPooler}` : ''}`, () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    bouncer = await PgBouncer.start(server);
  }, 60_000);
  afterAll(async () => {
    await bouncer?.stop();
  });

  it('notifications that never arrive are found and said (cluster status, stats, server.log), and freed slots still reach other machines', async () => {
    const [a, b] = machines(2, { max: 1 }, {}, bouncer.url);
    for (let i = 0; i < 3; i++) {
      a!.cli(['run', '-n', `a${i}`, '--', 'sh', '-c', 'sleep 0.1']);
      b!.cli(['run', '-n', `b${i}`, '--', 'sh', '-c', 'sleep 0.1']);
    }
    const [ra, rb] = await Promise.all([cliAsync(a!, ['wait', '--all', '--timeout', '60s']), cliAsync(b!, ['wait', '--all', '--timeout', '60s'])]);
    expect([ra.code, rb.code], ra.stdout + rb.stdout).toEqual([0, 0]);
    const status = a!.json<{ notifications: string }>(['cluster', 'status']);
    expect(status.notifications).toBe('not arriving');
    expect(a!.cli(['cluster', 'status']).stdout).toMatch(/notifications do not arrive/);
    expect(a!.cli(['stats']).stdout).toMatch(/notifications do not arrive/);
    expect(fs.readFileSync(path.join(a!.dir, 'server.log'), 'utf8')).toMatch(/notifications do not arrive/);
  });

  it('with cluster.listen_url (a direct connection) notifications arrive while queries go through the pooler', async () => {
    const [a, b] = machines(2, { max: 1 }, { listen_url: server.url }, bouncer.url);
    for (let i = 0; i < 3; i++) {
      a!.cli(['run', '-n', `a${i}`, '--', 'sh', '-c', 'sleep 0.1']);
      b!.cli(['run', '-n', `b${i}`, '--', 'sh', '-c', 'sleep 0.1']);
    }
    const [ra, rb] = await Promise.all([cliAsync(a!, ['wait', '--all', '--timeout', '60s']), cliAsync(b!, ['wait', '--all', '--timeout', '60s'])]);
    expect([ra.code, rb.code], ra.stdout + rb.stdout).toEqual([0, 0]);
    expect(a!.json<{ notifications: string }>(['cluster', 'status']).notifications).toBe('arriving');
  });
});
