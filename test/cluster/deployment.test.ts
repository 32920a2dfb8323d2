// The cluster as a team deploys it: two or three homes on one PostgreSQL,
// directly and behind a real PgBouncer in transaction mode. Admission follows
// the database's commits and notices, never a poll's luck: each machine here
// checks the database for changes only once an hour (`cluster.poll`), so a
// run that waited for the poll would wait past the test.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PublicRun } from '../../src/protocol/views.js';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { CLI, NODE, script, until, useHomes, type TestHome } from '../support/harness.js';
import { onPg, PgServer, pgBouncerNeed, pgNeed } from '../support/pg.js';
import { PgBouncer } from '../../bench/lib/pgbouncer.js';
import { cliAsync } from '../support/cluster.js';
import { describeWhen, itWhen } from '../support/skip.js';
import { wallClockArgs } from '../support/wall-clock.js';

const need = pgNeed();
const why = need.reason;
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

const FAKETIME_LIB = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1'].find((f) =>
  fs.existsSync(f),
);

/** A connection of the test's own, as an administrator would have. */
async function admin(url = server.url): Promise<pg.Client> {
  const c = new pg.Client(url);
  await c.connect();
  return c;
}

/** The end of a home's server.log, for a failure's message. */
const logTail = (h: TestHome): string => {
  try {
    return fs.readFileSync(path.join(h.dir, 'server.log'), 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(none)';
  }
};

/** The events of one home, by type. */
const eventTypes = (h: TestHome): string[] => h.json<{ type: string }[]>(['events']).map((e) => e.type);

/** Homes in one new cluster (named m1, m2, …) with these caps; no safety poll unless asked. */
function machines(n: number, caps: Record<string, unknown>, extra: ClusterExtra = {}, url = server.url): TestHome[] {
  const name = `d${process.pid}-${++clusters}`;
  return Array.from({ length: n }, (_, i) => home({ concurrency: caps, cluster: { url, name, host: `m${i + 1}`, lease_ttl: '30s', poll: '1h', ...extra } }));
}

describeWhen(need, `the cluster as deployed ${onPg()}`, () => {
  it('on an idle cluster a queued run starts after its enqueue commits, not at the next poll', async () => {
    const [a] = machines(2, { max: 4 });
    for (let i = 0; i < 10; i++) {
      a!.json(['run', '-n', `r${i}`, '--', 'true']);
      const r = await cliAsync(a!, ['wait', `r${i}`, '--timeout', '30s']);
      expect(r.stdout, `run ${i}: ${r.stderr}\nserver.log:\n${logTail(a!)}`).toBe(`r${i} completed\n`);
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

  it('a host name that a live machine of another home holds is refused at join, naming both; its own home may come back under it', () => {
    const [a] = machines(1, { max: 2 });
    expect(a!.cli(['stats']).code).toBe(0);
    const cfg = JSON.parse(fs.readFileSync(path.join(a!.dir, 'config.json'), 'utf8'));
    const twin = home(cfg);
    const direct = twin.cli(['serve']);
    expect(direct.code).toBe(2);
    expect(direct.stderr).toContain('cluster.host "m1" is taken');
    expect(direct.stderr).toContain(a!.dir);
    expect(direct.stderr).toMatch(/set cluster\.host in this home's config\.json/);
    // A verb that starts the supervisor says the same and exits 7.
    const verb = twin.cli(['stats']);
    expect(verb.code).toBe(7);
    expect(verb.stderr).toContain('cluster.host "m1" is taken');
    // The machine that holds it restarts under its name.
    expect(a!.cli(['server', 'stop']).code).toBe(0);
    expect(a!.cli(['stats']).code).toBe(0);
  });

  it('a machine that left is forgotten after cluster.forget_after, or at once with cluster forget HOST; a live one is refused', async () => {
    const [a, b, c] = machines(3, { max: 2 }, { lease_ttl: '1s', forget_after: '3s' });
    for (const m of [a, b, c]) expect(m!.cli(['stats']).code).toBe(0);
    await until(
      () => a!.json<{ machines: { host: string; alive: boolean }[] }>(['cluster', 'status']).machines.filter((m) => m.alive).length === 3,
      'three machines up',
    );
    // c leaves: gone, then forgotten on its own.
    expect(c!.cli(['server', 'stop']).code).toBe(0);
    await until(
      () => a!.json<{ machines: { host: string; alive: boolean }[] }>(['cluster', 'status']).machines.some((m) => m.host === 'm3' && !m.alive),
      'm3 to be gone',
    );
    expect(a!.cli(['cluster', 'status']).stdout).toMatch(/m3\s+gone/);
    await until(() => !a!.json<{ machines: { host: string }[] }>(['cluster', 'status']).machines.some((m) => m.host === 'm3'), 'm3 to be forgotten', 20_000);
    // A live machine, or this one, cannot be forgotten.
    const live = a!.cli(['cluster', 'forget', 'm2']);
    expect(live.code).toBe(7);
    expect(live.stderr).toMatch(/"m2" is a live machine/);
    expect(a!.cli(['cluster', 'forget', 'm1']).stderr).toMatch(/"m1" is this machine/);
    expect(a!.cli(['cluster', 'forget', 'nope']).code).toBe(6);
    // b leaves and is forgotten by hand, before forget_after.
    expect(b!.cli(['server', 'stop']).code).toBe(0);
    await until(
      () => a!.json<{ machines: { host: string; alive: boolean }[] }>(['cluster', 'status']).machines.some((m) => m.host === 'm2' && !m.alive),
      'm2 to be gone',
    );
    const forgot = a!.cli(['cluster', 'forget', 'm2']);
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(forgot.stdout).toMatch(/^m2 forgotten/);
    expect(a!.json<{ machines: { host: string }[] }>(['cluster', 'status']).machines.map((m) => m.host)).toEqual(['m1']);
  });

  // The fast machine's wall clock, 5 minutes ahead: preloaded into Node (always), or libfaketime under it (an extra, where installed).
  const AHEAD = [
    { how: 'a preloaded wall clock', need: { reason: null }, args: wallClockArgs(), env: { ORCR_TEST_WALL_CLOCK_OFFSET: '300' } },
    {
      how: 'libfaketime',
      need: { reason: FAKETIME_LIB ? null : 'no libfaketime (apt-get install faketime): the preloaded clock covers the same test', optional: true },
      args: [] as string[],
      env: { LD_PRELOAD: FAKETIME_LIB ?? '', FAKETIME: '+300', DONT_FAKE_MONOTONIC: '1' },
    },
  ];
  for (const clk of AHEAD)
    itWhen(clk.need, `a hold taken on one machine is not lifted early by a machine whose clock runs 5 minutes ahead (${clk.how})`, async () => {
      const [fast, slow] = machines(2, { max: 4 }, { poll: '5s' });
      slow!.writeConfig({ ...JSON.parse(fs.readFileSync(path.join(slow!.dir, 'config.json'), 'utf8')), timings: { limit_hold: '120s' } });
      fast!.writeConfig({ ...JSON.parse(fs.readFileSync(path.join(fast!.dir, 'config.json'), 'utf8')), timings: { limit_hold: '120s' } });
      // The fast machine's supervisor runs 5 minutes ahead of the database and of the other machine.
      const sup = spawn(NODE, [...clk.args, CLI, 'serve'], { env: { ...fast!.env, ...clk.env }, stdio: 'ignore' });
      try {
        await until(() => fast!.serverPid() === sup.pid, 'the fast supervisor to be ready');
        // A usage limit with no retry time: the provider is held for timings.limit_hold.
        const limited = script(slow!, 'limited.sh', `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"blocked","kind":"limit"}'\nexit 1\n`);
        slow!.json(['run', '-n', 'hit', '-a', 'claude', '--protocol', 'jsonl', '--', limited]);
        await until(() => slow!.json<{ holds: Record<string, number> }>(['stats']).holds.claude, 'the slow machine to hold claude');
        fast!.json(['run', '-n', 'held', '-a', 'claude', '--protocol', 'plain', '--', 'true']);
        // The fast machine sees the hold for what it is on its own clock: about two minutes to go.
        const w = await until(() => {
          const r = fast!.json<PublicRun>(['show', 'held']);
          return r.waiting?.reason === 'hold' ? r : null;
        }, 'the held run to wait on the hold');
        const left = Date.parse(w.waiting!.until!) - (Date.now() + 300_000);
        expect(left).toBeGreaterThan(60_000);
        expect(left).toBeLessThanOrEqual(121_000);
        // Another change makes the fast machine run its admission passes again: the hold stays.
        fast!.json(['run', '-n', 'other', '--', 'true']);
        expect(fast!.cli(['wait', 'other', '--timeout', '30s']).stdout).toBe('other completed\n');
        expect(fast!.json<PublicRun>(['show', 'held']).status).toBe('queued');
        expect(eventTypes(fast!)).not.toContain('hold_lifted');
        expect(slow!.json<{ holds: Record<string, number> }>(['stats']).holds.claude).toBeGreaterThan(Date.now() + 60_000);
      } finally {
        sup.kill('SIGTERM');
        await new Promise((r) => sup.once('exit', r));
      }
    });

  it('after the database was away longer than lease_ttl, every machine keeps its queue places: runs queued interleaved start interleaved', async () => {
    const [a, b] = machines(2, { max: 1 }, { lease_ttl: '2s' });
    const marks = path.join(a!.dir, 'marks');
    const go = path.join(a!.dir, 'go');
    a!.json(['run', '-n', 'blocker', '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.05; done`]);
    await until(() => a!.json<PublicRun>(['show', 'blocker']).status === 'working', 'the blocker to hold the slot');
    // Each run in the cluster's queue before the next is made (`run` answers once it is journaled, and
    // it joins the cluster's queue a moment later): the order across machines is then this one.
    for (let i = 1; i <= 3; i++) {
      for (const [m, n] of [
        [a!, `a${i}`],
        [b!, `b${i}`],
      ] as const) {
        m.json(['run', '-n', n, '--', 'sh', '-c', `echo ${n} >> ${marks}`]);
        await until(() => m.json<PublicRun>(['show', n]).queue_position !== null, `${n} in the cluster's queue`);
      }
    }
    await server.pause();
    try {
      // Longer than lease_ttl: the blocker's lease lapses (and is kept), every heartbeat goes stale.
      await until(() => eventTypes(a!).includes('lease_lost'), "the blocker's lease to lapse", 30_000);
      await until(() => b!.json<{ cluster: { available: boolean } }>(['server', 'status']).cluster.available === false, 'b to see the database gone');
      // What stats shows meanwhile is the cluster as last seen.
      expect(b!.cli(['stats']).stdout).toMatch(/as last seen at/);
    } finally {
      await server.resume();
    }
    await until(() => a!.json<{ cluster: { available: boolean } }>(['server', 'status']).cluster.available, 'a to be back');
    fs.writeFileSync(go, '');
    const [ra, rb] = await Promise.all([cliAsync(a!, ['wait', '--all', '--timeout', '60s']), cliAsync(b!, ['wait', '--all', '--timeout', '60s'])]);
    expect([ra.code, rb.code], ra.stdout + rb.stdout).toEqual([0, 0]);
    expect(fs.readFileSync(marks, 'utf8').trim().split('\n')).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3']);
  });

  it("a DBA's long lock on one of orcr's tables: fail closed naming it, cluster status answers meanwhile, one event each way", async () => {
    const [a] = machines(1, { max: 2 });
    expect(a!.cli(['stats']).code).toBe(0);
    const dba = await admin();
    try {
      await dba.query('BEGIN');
      await dba.query('LOCK TABLE orcr_lease IN ACCESS EXCLUSIVE MODE');
      a!.json(['run', '-n', 'locked-out', '--', 'true']);
      const down = await until(
        () => {
          const c = a!.json<{ cluster: { available: boolean; error: string | null } }>(['server', 'status']).cluster;
          return c.available ? null : c;
        },
        'a to fail closed',
        30_000,
      );
      expect(down.error).toMatch(/a lock on one of orcr's tables is held by another session/);
      // Read verbs answer while the lock is held (the lock is released only after they have).
      const st = await cliAsync(a!, ['cluster', 'status']);
      expect(st.code, st.stderr).toBe(0);
      expect(st.stdout).toMatch(/cluster unavailable since/);
      expect((await cliAsync(a!, ['stats'])).code).toBe(0);
    } finally {
      await dba.query('ROLLBACK');
      await dba.end();
    }
    expect(a!.cli(['wait', 'locked-out', '--timeout', '60s']).stdout).toBe('locked-out completed\n');
    const types = eventTypes(a!);
    expect(types.filter((t) => t === 'cluster_unavailable')).toHaveLength(1);
    expect(types.filter((t) => t === 'cluster_available')).toHaveLength(1);
  });

  it("adding, removing or changing cluster in a running supervisor's config.json is refused until a restart, and said where refused edits are", async () => {
    const solo = home({ concurrency: { max: 2 } });
    expect(solo.cli(['stats']).code).toBe(0);
    const name = `d${process.pid}-${++clusters}`;
    solo.writeConfig({ concurrency: { max: 2 }, cluster: { url: server.url, name, host: 'late' } });
    const refused = await until(() => solo.json<{ config_error: { message: string } | null }>(['stats']).config_error, 'the edit to be refused');
    expect(refused.message).toMatch(/cluster/);
    expect(refused.message).toMatch(/restart/);
    expect(solo.cli(['server', 'status']).stdout).toMatch(/restart/);
    expect(solo.json<{ cluster: unknown }>(['server', 'status']).cluster).toBeNull();
    // cluster status says the cluster waits for the next start, and how to get there (not that config.json has none).
    const waiting = solo.cli(['cluster', 'status']);
    expect(waiting.code).toBe(2);
    expect(waiting.stderr).toMatch(
      /not in a cluster yet: config\.json's "cluster" was added after it started, and takes effect at its next start \(orcr server stop, then any verb starts it again, in the cluster\)/,
    );
    // After a restart the new config is in force, as it said.
    expect(solo.cli(['server', 'stop']).code).toBe(0);
    expect(solo.cli(['stats']).code).toBe(0);
    expect(solo.json<{ cluster: { name: string } }>(['server', 'status']).cluster.name).toBe(name);
    expect(solo.json<{ name: string; host: string; pending: string | null }>(['cluster', 'status'])).toMatchObject({ name, host: 'late', pending: null });
    // And a change of host while in the cluster is refused the same way; cluster status says it waits.
    solo.writeConfig({ concurrency: { max: 2 }, cluster: { url: server.url, name, host: 'renamed' } });
    await until(
      () => solo.json<{ config_error: { message: string } | null }>(['stats']).config_error?.message.match(/cluster\.host/),
      'the rename to be refused',
    );
    expect(solo.json<{ cluster: { host: string } }>(['server', 'status']).cluster.host).toBe('late');
    expect(solo.cli(['cluster', 'status']).stdout).toMatch(
      /^config\.json was edited: cluster\.host changed: cluster settings take effect when the supervisor restarts/m,
    );
  });
});

const poolerNeed = pgBouncerNeed();
describeWhen(poolerNeed, `the cluster behind PgBouncer in transaction mode ${onPg()}`, () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    if (poolerNeed.reason === null) bouncer = await PgBouncer.start(server);
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
    // The probe waits 2 s for its own notification before it says "not arriving";
    // on a quiet machine the six runs are done before that, and the state is still "unknown".
    await until(
      () => a!.json<{ notifications: string }>(['cluster', 'status']).notifications === 'not arriving' || null,
      'the probe to find notifications not arriving',
      30_000,
      200,
    );
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
    await until(
      () => a!.json<{ notifications: string }>(['cluster', 'status']).notifications === 'arriving' || null,
      'the probe to find notifications arriving',
      30_000,
      200,
    );
  });

  it('three machines joining a new database at once through the pooler, three times over, all come up and leave no advisory lock behind', async () => {
    const dba = await admin();
    try {
      for (let round = 0; round < 3; round++) {
        const db = `j${process.pid}_${++clusters}`;
        await dba.query(`CREATE DATABASE ${db}`);
        const url = bouncer.url.replace(/\/postgres$/, `/${db}`);
        const ms = machines(3, { max: 2 }, {}, url);
        const ups = await Promise.all(ms.map((m) => cliAsync(m, ['stats'])));
        expect(
          ups.map((u) => u.code),
          ups.map((u) => u.stderr).join('\n'),
        ).toEqual([0, 0, 0]);
        const locks = await dba.query<{ n: string }>(
          `SELECT COUNT(*) AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = $1`,
          [db],
        );
        expect(Number(locks.rows[0]!.n)).toBe(0);
        for (const m of ms) m.cleanup();
      }
    } finally {
      await dba.end();
    }
  });
});
