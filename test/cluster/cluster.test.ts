// One fleet across machines: three supervisors on three homes share one
// cluster in a real PostgreSQL server. Caps are counted from /proc across all
// three homes; nothing here mocks the database or the supervisors.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PublicRun } from '../../src/protocol/views.js';
import { alive, MOCK_AGENT, NODE, ROOT, script, until, useHomes, type TestHome } from '../support/harness.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';
import { cliAsync, fanOut, monitor, startsOf } from '../support/cluster.js';

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

type Caps = { max: number; providers?: Record<string, number>; workloads?: Record<string, unknown> };

/** Three machines (homes) in one new cluster with these caps. */
function machines(caps: Caps, extra: { lease_ttl?: string; on_lease_lost?: string } = {}): TestHome[] {
  const name = `c${process.pid}-${++clusters}`;
  return ['m1', 'm2', 'm3'].map((host) =>
    home({
      concurrency: caps,
      timings: { kill_grace: '1s' },
      cluster: { url: server.url, name, host, lease_ttl: extra.lease_ttl ?? '2s', ...(extra.on_lease_lost ? { on_lease_lost: extra.on_lease_lost } : {}) },
    }),
  );
}

/** Stop the database server's processes (SIGSTOP: connections stay open and hang, as behind a host that drops packets) until thawed. */
function freeze(pgServer: PgServer): { thaw: () => void } {
  const port = new URL(pgServer.url).port;
  const procs = fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number);
  const parentOf = (pid: number): number => {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
  };
  const postmaster = procs.filter((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return argv.some((a) => a.endsWith('/postgres')) && argv.includes(port);
    } catch {
      return false;
    }
  });
  if (postmaster.length === 0) throw new Error(`no postgres process for port ${port} (ORCR_TEST_PG_URL servers cannot be frozen)`);
  const all = [
    ...postmaster,
    ...procs.filter((pid) => {
      try {
        return postmaster.includes(parentOf(pid));
      } catch {
        return false;
      }
    }),
  ];
  for (const pid of all) process.kill(pid, 'SIGSTOP');
  return {
    thaw: () =>
      all.forEach((pid) => {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          /* gone */
        }
      }),
  };
}

describeWhen(need, `one fleet across machines ${onPg()}`, () => {
  it('three supervisors share a global cap of 3 and a provider cap of 2: never exceeded across machines, every run completes exactly once', async () => {
    const ms = machines({ max: 3, providers: { a: 2 } });
    const providerOf = new Map<string, string>();
    const mon = monitor(
      ms.map((m) => m.dir),
      providerOf,
    );
    const all: { m: TestHome; run: PublicRun }[] = [];
    for (const [i, m] of ms.entries()) {
      const runs = fanOut(
        m,
        Array.from({ length: 6 }, (_, k) => ({ name: `r${i}-${k}`, provider: k % 2 ? 'a' : 'b', command: ['sh', '-c', 'sleep 0.3'] })),
      );
      for (const run of runs) {
        providerOf.set(run.uuid, run.provider);
        all.push({ m, run });
      }
    }
    // Waited on without blocking this process: the /proc monitor samples meanwhile.
    for (const m of ms) expect((await cliAsync(m, ['wait', '--all', '--timeout', '60s'])).code).toBe(0);
    const seen = mon.stop();
    expect(seen.max).toBeLessThanOrEqual(3);
    expect(seen.byProvider.a ?? 0).toBeLessThanOrEqual(2);
    // The caps were used, not just respected.
    expect(seen.max).toBe(3);
    for (const m of ms) {
      const starts = startsOf(m);
      for (const { run } of all.filter((x) => x.m === m)) {
        expect(starts.get(run.uuid)).toBe(1);
        expect(m.json<PublicRun>(['show', run.uuid])).toMatchObject({ status: 'ended', exit_reason: 'completed' });
      }
    }
  });

  it('priority, then enqueue order, hold across machines', async () => {
    const ms = machines({ max: 1, workloads: { urgent: { priority: 5 } } });
    const marks = path.join(ms[0]!.dir, 'marks');
    const go = path.join(ms[0]!.dir, 'go');
    ms[0]!.json(['run', '-n', 'blocker', '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.05; done`]);
    await until(() => ms[0]!.json<PublicRun>(['show', 'blocker']).status === 'working', 'the blocker to hold the one slot');
    const mark = (n: string): string[] => ['--', 'sh', '-c', `echo ${n} >> ${marks}`];
    // Journaled here, `run` answers; the run joins the cluster's queue a moment later. Each is in it
    // before the next machine's: the enqueue order across machines is then this one.
    const queue = async (m: TestHome, args: string[]): Promise<void> => {
      const r = m.json<PublicRun>(['run', ...args]);
      await until(() => m.json<PublicRun>(['show', r.uuid]).queue_position !== null, `${r.name} in the cluster's queue`);
    };
    await queue(ms[0]!, ['-n', 'first', ...mark('first')]);
    await queue(ms[1]!, ['-n', 'second', ...mark('second')]);
    await queue(ms[2]!, ['-n', 'third', ...mark('third')]);
    await queue(ms[1]!, ['-n', 'urgent', '-w', 'urgent', ...mark('urgent')]);
    // Each machine sees the cluster's queue, in admission order (this one once the other's notice came).
    const placed = (): unknown =>
      ms[2]!
        .json<PublicRun[]>(['ps'])
        .filter((r) => r.status === 'queued')
        .map((r) => [r.name, r.queue_position]);
    await until(
      () => JSON.stringify(placed()) === JSON.stringify([['third', 4]]),
      () => `third at 4 in the cluster's queue: ${JSON.stringify(placed())}`,
    );
    fs.writeFileSync(go, '');
    for (const [i, n] of [
      [0, 'first'],
      [1, 'second'],
      [2, 'third'],
      [1, 'urgent'],
    ] as const) {
      expect(ms[i]!.cli(['wait', n, '--timeout', '60s']).stdout.trim()).toBe(`${n} completed`);
    }
    expect(fs.readFileSync(marks, 'utf8').trim().split('\n')).toEqual(['urgent', 'first', 'second', 'third']);
  });

  it('a machine SIGKILLed with its agents while they hold slots: the others get them within lease_ttl + 1 s', async () => {
    const ms = machines({ max: 2 }, { lease_ttl: '2s' });
    const [a, b] = ms as [TestHome, TestHome, TestHome];
    a.json(['run', '-n', 'hog1', '--', 'sleep', '300']);
    a.json(['run', '-n', 'hog2', '--', 'sleep', '300']);
    await until(() => a.json<PublicRun[]>(['ps']).every((r) => r.status === 'working'), 'the hogs to hold both slots');
    b.json(['run', '-n', 'waiting', '--', 'sleep', '300']);
    expect(b.json<PublicRun>(['show', 'waiting']).status).toBe('queued');
    const pids = a.json<PublicRun[]>(['ps']).map((r) => r.pid!);
    const sup = a.serverPid()!;
    process.kill(sup, 'SIGKILL');
    for (const pid of pids) process.kill(-pid, 'SIGKILL');
    const t0 = Date.now();
    await until(() => !alive(sup) && pids.every((p) => !alive(p)), 'machine a and its agents to be gone', 5_000);
    await until(() => b.json<PublicRun>(['show', 'waiting']).status !== 'queued', 'machine b to take a slot', 2_000 + 1_000 + 2_000);
    expect(Date.now() - t0).toBeLessThanOrEqual(2_000 + 1_000 + 500);
  });

  it('the database stopped while runs wait and work: no admissions, agents go on, the state is visible; back: admissions resume, nothing lost', async () => {
    const ms = machines({ max: 1 }, { lease_ttl: '3s' });
    const [a, b] = ms as [TestHome, TestHome, TestHome];
    const go = path.join(a.dir, 'go');
    a.json(['run', '-n', 'worker', '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.05; done`]);
    await until(() => a.json<PublicRun>(['show', 'worker']).status === 'working', 'the worker to work');
    b.json(['run', '-n', 'after', '--', 'true']);
    const supervisors = [a.serverPid(), b.serverPid()];
    await server.pause();
    try {
      // The worker finishes while the database is away; the slot it frees goes to nobody.
      fs.writeFileSync(go, '');
      expect(a.cli(['wait', 'worker', '--timeout', '30s']).stdout.trim()).toBe('worker completed');
      // Runs still queue locally, and say what holds them.
      b.json(['run', '-n', 'late', '--', 'true']);
      await until(() => b.json<{ cluster: { available: boolean } }>(['server', 'status']).cluster.available === false, 'b to see the database gone');
      const st = b.cli(['server', 'status']);
      expect(st.stdout).toMatch(/cluster unavailable since/);
      expect(b.cli(['ps']).stdout).toMatch(/late .*cluster unavailable/);
      expect(b.json<PublicRun[]>(['ps']).map((r) => r.status)).toEqual(['queued', 'queued']);
    } finally {
      await server.resume();
    }
    for (const n of ['after', 'late']) expect(b.cli(['wait', n, '--timeout', '60s']).stdout.trim()).toBe(`${n} completed`);
    // The same supervisors throughout: the database going away fails them closed, it does not take them down.
    expect([a.serverPid(), b.serverPid()]).toEqual(supervisors);
    const events = b.json<{ type: string }[]>(['events']).map((e) => e.type);
    expect(events).toContain('cluster_unavailable');
    expect(events).toContain('cluster_available');
  });

  it('a usage limit seen on one machine holds the provider on all three; provider resume on another lifts it everywhere', async () => {
    const ms = machines({ max: 3 });
    const [a, b, c] = ms as [TestHome, TestHome, TestHome];
    const limited = script(a, 'limited.sh', `#!/bin/sh\necho '{"type":"turn_start"}'\necho '{"type":"blocked","kind":"limit","retry_after_s":3600}'\nexit 1\n`);
    a.json(['run', '-n', 'hit', '-a', 'claude', '--protocol', 'jsonl', '--', limited]);
    // `wait` returns at `blocked` too, which this agent passes through on its way out: wait for the end itself.
    await until(() => a.json<PublicRun>(['show', 'hit']).status === 'ended', 'the limited run to end');
    expect(a.json<PublicRun>(['show', 'hit']).exit_reason).toBe('errored');
    await until(() => b.json<{ holds: Record<string, number> }>(['stats']).holds.claude, 'b to see the hold');
    b.json(['run', '-n', 'held', '-a', 'claude', '--protocol', 'jsonl', '--', NODE, MOCK_AGENT, '--format', 'jsonl', '--turns', '1', '--delay', '0']);
    await until(() => b.json<PublicRun>(['show', 'held']).waiting?.reason === 'hold', "b's run to wait on the hold");
    expect(c.cli(['provider', 'resume', 'claude']).code).toBe(0);
    expect(b.cli(['wait', 'held', '--timeout', '60s']).stdout.trim()).toBe('held completed');
  });

  it('a machine whose caps differ is refused, naming the key', () => {
    const name = `c${process.pid}-${++clusters}`;
    const a = home({ concurrency: { max: 3 }, cluster: { url: server.url, name, host: 'a' } });
    expect(a.cli(['stats']).code).toBe(0);
    const b = home({ concurrency: { max: 4, providers: { claude: 2 } }, cluster: { url: server.url, name, host: 'b' } });
    const r = b.cli(['stats']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/concurrency\.max/);
    expect(r.stderr).toMatch(/concurrency\.providers\.claude/);
    const direct = b.cli(['serve']);
    expect(direct.code).toBe(2);
    // Both values of each key: what the cluster applies and what this machine's config.json says.
    expect(direct.stderr).toMatch(
      /: concurrency\.max is 3 in the cluster, 4 here; concurrency\.providers\.claude is unset in the cluster, 2 here \(make them equal/,
    );
  });

  it('cluster status while the database is down reports it and exits 0; cluster schema --json is JSON', async () => {
    const [a] = machines({ max: 2 }) as [TestHome, TestHome, TestHome];
    expect(a.cli(['cluster', 'status']).stdout).toMatch(/database available/);
    await server.pause();
    try {
      // At once, before the supervisor has noticed, and once it has.
      const first = a.cli(['cluster', 'status']);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      await until(() => a.json<{ available: boolean }>(['cluster', 'status']).available === false, 'the database to be seen gone');
      const st = a.cli(['cluster', 'status']);
      expect(st.code).toBe(0);
      expect(st.stdout).toMatch(/cluster unavailable since \S+/);
      // A supervisor started while the database is away says the same.
      expect(a.cli(['server', 'stop']).code).toBe(0);
      const fresh = a.cli(['cluster', 'status']);
      expect(fresh.stderr).toBe('');
      expect(fresh.code).toBe(0);
      expect(fresh.stdout).toMatch(/cluster unavailable since \S+/);
    } finally {
      await server.resume();
    }
    const schema = a.cli(['cluster', 'schema', '--json']);
    expect(schema.code).toBe(0);
    const j = JSON.parse(schema.stdout) as { version: number; sql: string };
    expect(j.sql).toBe(a.cli(['cluster', 'schema']).stdout.trim());
    expect(j.version).toBeGreaterThan(0);
  });

  it('cluster status while the database stops answering (its processes frozen) says so within seconds and exits 0', async () => {
    // A database that stops answering (its processes stopped: pooled connections hang) is reported as down within
    // seconds. A server of its own: one that was stopped so is not given back to the other tests.
    const own = await PgServer.start();
    try {
      const c = home({ cluster: { url: own.url, name: 'frozen', host: 'c' } });
      expect(c.json<{ available: boolean }>(['cluster', 'status']).available).toBe(true);
      const frozen = freeze(own);
      try {
        const t0 = Date.now();
        // Not a synchronous spawn: this process owns the database server (its output pipes are read here), and
        // blocking its event loop while the server is stopped and thawed held the verb up past the test's timeout.
        const hung = await cliAsync(c, ['cluster', 'status']);
        expect(hung.stderr).toBe('');
        expect(hung.code).toBe(0);
        expect(hung.stdout).toMatch(/cluster unavailable since \S+ \(the database did not answer within 3 s\)/);
        expect(Date.now() - t0).toBeLessThan(15_000);
      } finally {
        frozen.thaw();
      }
    } finally {
      await own.destroy();
    }
  });

  it('a supervisor restarted within lease_ttl keeps its agents and their leases', async () => {
    // 30 s: the restart must fall within it, and a stop and a start (two CLI
    // processes and a supervisor joining the cluster) took over 5 s at load 10.
    const [a] = machines({ max: 2 }, { lease_ttl: '30s' }) as [TestHome, TestHome, TestHome];
    a.json(['run', '-n', 'long', '--', 'sleep', '300']);
    const before = await until(() => {
      const r = a.json<PublicRun>(['show', 'long']);
      return r.status === 'working' && r.lease ? r : null;
    }, 'the run to hold a lease');
    expect(a.cli(['server', 'stop']).code).toBe(0);
    const after = a.json<PublicRun>(['show', 'long']);
    expect(after).toMatchObject({ status: 'working', pid: before.pid, lease: before.lease });
    expect(a.json<{ type: string }[]>(['events']).filter((e) => e.type === 'lease_lost')).toEqual([]);
  });

  it('leases that lapse while the database is away: with on_lease_lost "keep" the agent goes on and takes a slot again; with "stop" it ends lease_lost', async () => {
    const keep = machines({ max: 2 }, { lease_ttl: '1s' })[0]!;
    const stop = machines({ max: 2 }, { lease_ttl: '1s', on_lease_lost: 'stop' })[0]!;
    for (const h of [keep, stop]) h.json(['run', '-n', 'long', '--', 'sleep', '300']);
    const leases = await until(() => {
      const ls = [keep, stop].map((h) => h.json<PublicRun>(['show', 'long']));
      return ls.every((r) => r.status === 'working' && r.lease) ? ls.map((r) => r.lease) : null;
    }, 'both runs to hold leases');
    await server.pause();
    try {
      await until(() => stop.json<PublicRun>(['show', 'long']).status === 'ended', 'the stop run to end', 20_000);
      expect(stop.json<PublicRun>(['show', 'long']).exit_reason).toBe('lease_lost');
      await until(() => keep.json<{ type: string }[]>(['events']).some((e) => e.type === 'lease_lost'), "the keep run's lease_lost");
      expect(keep.json<PublicRun>(['show', 'long']).status).toBe('working');
    } finally {
      await server.resume();
    }
    const again = await until(
      () => {
        const r = keep.json<PublicRun>(['show', 'long']);
        return r.lease && r.lease !== leases[0] ? r : null;
      },
      'the keep run to hold a new lease',
      20_000,
    );
    expect(again.status).toBe('working');
  });

  it('a bad database, or a role that may not create tables, is told at start; the schema can be applied as a migration', async () => {
    const bad = home({ cluster: { url: server.url.replace(/\/postgres$/, '/no_such_db'), name: 'x', host: 'a' } });
    const r = bad.cli(['serve']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such database/);
    // A role with no right to create tables: refused with the cause until the schema is applied for it.
    const pg = (await import('pg')).default;
    const admin = new pg.Client(server.url);
    await admin.connect();
    const role = `limited_${process.pid}_${clusters}`;
    const db = `orcr_${process.pid}_${++clusters}`;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`CREATE DATABASE ${db}`);
      const url = server.url.replace(/orcr@/, `${role}@`).replace(/\/postgres$/, `/${db}`);
      const limited = home({ cluster: { url, name: 'lim', host: 'a' } });
      const refused = limited.cli(['serve']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/privilege/);
      expect(refused.stderr).toMatch(/orcr cluster schema/);
      // An administrator applies what `orcr cluster schema` prints, and grants the role what the README says.
      const schema = limited.cli(['cluster', 'schema']).stdout;
      const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const grants = readme.slice(readme.indexOf('`orcr cluster schema` prints the SQL')).match(/```sql\n([\s\S]*?)```/)![1]!;
      expect(grants).toMatch(/GRANT USAGE ON ALL SEQUENCES/);
      const owner = new pg.Client(server.url.replace(/\/postgres$/, `/${db}`));
      await owner.connect();
      await owner.query(schema);
      await owner.query(grants.replaceAll('orcr_role', role));
      await owner.end();
      expect(limited.cli(['stats']).code).toBe(0);
      // The grants are enough to queue and start runs, not only to join.
      limited.json(['run', '-n', 'granted', '--', 'true']);
      expect(limited.cli(['wait', 'granted', '--timeout', '30s']).stdout).toBe('granted completed\n');
      expect(limited.json<{ cluster: { name: string; available: boolean } }>(['server', 'status']).cluster).toMatchObject({ name: 'lim', available: true });
    } finally {
      await admin.end();
    }
  });
});
