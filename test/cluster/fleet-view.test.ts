// One fleet, one view: three supervisors on three homes publish their runs
// into one cluster of a real PostgreSQL server, and each reads every
// machine's (`ps --cluster`, `show HOST:RUN`). A machine SIGKILLed is shown
// stale, then not at all; a viewer with a role that can only SELECT reads
// the fleet; the database stopped leaves the last good read, said stale.
// Nothing here mocks the database, the supervisors or the agents.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PgBouncer } from '../../bench/lib/pgbouncer.js';
import type { ClusterRunsReply } from '../../src/protocol/results.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { connect, type Orcr } from '../../src/sdk/index.js';
import { askingMock } from '../support/approvals.js';
import { spawn } from 'node:child_process';
import { alive, CLI, lineReader, NODE, ROOT, until, useHomes, type TestHome } from '../support/harness.js';
import { wallClockArgs } from '../support/wall-clock.js';
import { onPg, PgServer, pgBouncerNeed, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';

const need = pgNeed();
const home = useHomes();
let server: PgServer;
let clusters = 0;
const sdks: Orcr[] = [];

if (!need.reason) {
  beforeAll(async () => {
    server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    for (const o of sdks) o.close();
    await server?.destroy();
  });
}

/** Three machines a, b, c in one new cluster: stale after 2 s without a heartbeat, gone after 5 s. */
function machines(url = server.url, extra: Record<string, unknown> = {}): { name: string; ms: [TestHome, TestHome, TestHome] } {
  const name = `v${process.pid}-${++clusters}`;
  const ms = ['a', 'b', 'c'].map((host) =>
    home({ timings: { kill_grace: '1s' }, cluster: { url, name, host, lease_ttl: '1500ms', stale_after: '2s', gone_after: '5s', ...extra } }),
  );
  // Each supervisor started (any verb starts one): it joins, and publishes.
  for (const m of ms) expect(m.cli(['stats']).code).toBe(0);
  return { name, ms: ms as [TestHome, TestHome, TestHome] };
}

/** A run that works until its file `go` appears in the machine's home. */
function worker(m: TestHome, name: string): PublicRun {
  const go = path.join(m.dir, `go-${name}`);
  return m.json<PublicRun>(['run', '-n', name, '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.02; done`]);
}

const release = (m: TestHome, name: string): void => fs.writeFileSync(path.join(m.dir, `go-${name}`), '');

function fleet(m: TestHome, args: string[] = []): ClusterRunsReply {
  return m.json<ClusterRunsReply>(['ps', '--cluster', ...args]);
}

/** ref → status, as one machine's `ps --cluster` lists them. */
function statuses(m: TestHome, args: string[] = []): Record<string, string> {
  return Object.fromEntries(fleet(m, args).runs.map((r) => [r.ref, r.status]));
}

async function sdk(m: TestHome): Promise<Orcr> {
  const o = await connect({ home: m.dir, autoStart: false });
  sdks.push(o);
  return o;
}

describeWhen(need, `one fleet, one view ${onPg()}`, () => {
  it("publishes a run's public face only: no prompt, command, directory, environment (names or values) or output reaches the database", async () => {
    const { name, ms } = machines();
    const [a, b] = ms;
    const dir = fs.mkdtempSync(path.join(path.dirname(b.dir), 'orcr-private-'));
    const go = path.join(b.dir, 'go-private');
    b.json([
      'run',
      '-n',
      'private',
      '-e',
      'SECRET_NAME=hunter2-value',
      '-p',
      'prompt-words-xyz',
      '--cwd',
      dir,
      '--',
      'sh',
      '-c',
      `echo leaked-output-text; while [ ! -f ${go} ]; do sleep 0.02; done`,
    ]);
    await until(() => statuses(a)['b:private'] === 'working', 'a to see b:private working');
    const pg = (await import('pg')).default;
    const admin = new pg.Client(server.url);
    await admin.connect();
    try {
      const rows = await admin.query<{ row: string }>(`SELECT row_to_json(r)::text AS row FROM orcr_run r WHERE cluster = $1 AND name = 'private'`, [name]);
      expect(rows.rows).toHaveLength(1);
      const published = rows.rows[0]!.row;
      for (const secret of ['hunter2-value', 'SECRET_NAME', 'prompt-words-xyz', 'leaked-output-text', dir, 'while [']) expect(published).not.toContain(secret);
      expect(published).toContain('"private"');
    } finally {
      release(b, 'private');
      await admin.end();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ps --cluster on each machine lists every run with the right status, within a second of a change', async () => {
    const { ms } = machines();
    const [a, b, c] = ms;
    for (const m of ms) worker(m, `w-${m === a ? 'a' : m === b ? 'b' : 'c'}`);
    const want = (self: string): Record<string, string> => Object.fromEntries(['a', 'b', 'c'].map((h) => [h === self ? `w-${h}` : `${h}:w-${h}`, 'working']));
    await until(
      () => JSON.stringify(statuses(a)) === JSON.stringify(want('a')),
      () => `a to see every run working: ${JSON.stringify(statuses(a))}`,
      15_000,
      100,
    );
    expect(statuses(b)).toEqual(want('b'));
    expect(statuses(c)).toEqual(want('c'));
    const table = a.cli(['ps', '--cluster']).stdout;
    expect(table).toMatch(/^MACHINE\s+NAME\s+ID\s+STATUS/m);
    expect(table).toMatch(/^b\s+b:w-b\s+\w{8}\s+working/m);
    expect(table).toMatch(/^a\s+w-a\s+/m);
    // A change on b (its run ends), seen by a and c: measured from the run's end as b journaled it.
    const [oa, oc] = [await sdk(a), await sdk(c)];
    const seen: Record<string, number> = {};
    release(b, 'w-b');
    // Each machine asked at once, each read timed from when it was asked (a loaded box's slow reply, or the other
    // machine's read before it, is not the view's lag).
    const look = async (h: 'a' | 'c', o: typeof oa): Promise<void> => {
      const asked = Date.now();
      const v = await o.cluster.runs({ all: true, host: 'b' });
      if (!seen[h] && v.runs.some((r) => r.name === 'w-b' && r.status === 'ended')) seen[h] = asked;
    };
    await until(
      async () => {
        await Promise.all([seen.a ? null : look('a', oa), seen.c ? null : look('c', oc)]);
        return seen.a && seen.c;
      },
      'a and c to see b:w-b ended',
      10_000,
      10,
    );
    const ended = Date.parse(b.json<PublicRun>(['show', 'w-b']).ended_at!);
    expect(seen.a! - ended).toBeLessThan(1000);
    expect(seen.c! - ended).toBeLessThan(1000);
    expect(statuses(c, ['--all'])['b:w-b']).toBe('ended');
    // Active only by default: the ended run leaves ps --cluster.
    expect(statuses(c)['b:w-b']).toBeUndefined();
    for (const m of [a, c]) release(m, m === a ? 'w-a' : 'w-c');
  });

  it("a machine whose clock is an hour behind is not shown stale: ages are the database's clock's", async () => {
    const name = `v${process.pid}-${++clusters}`;
    // An age read on b's clock would be an hour: stale and gone at once. Generous bounds, so that load is never mistaken for it.
    const [a, b] = ['a', 'b'].map((host) => home({ cluster: { url: server.url, name, host, lease_ttl: '3s', stale_after: '20s', gone_after: '60s' } }));
    // b's supervisor reads its wall clock an hour behind the database's and a's.
    const sup = spawn(NODE, [...wallClockArgs(), CLI, 'serve'], { env: { ...b!.env, ORCR_TEST_WALL_CLOCK_OFFSET: '-3600' }, stdio: 'ignore' });
    try {
      await until(() => b!.serverPid() === sup.pid, "b's supervisor, an hour behind, to be ready");
      expect(a!.cli(['stats']).code).toBe(0);
      worker(b!, 'late');
      await until(() => statuses(a!)['b:late'] === 'working', 'a to see b:late working');
      const seen = fleet(a!);
      expect(seen.machines.find((m) => m.host === 'b')).toMatchObject({ stale: false });
      expect(seen.runs.find((r) => r.ref === 'b:late')).toMatchObject({ status: 'working', stale: false });
      release(b!, 'late');
    } finally {
      sup.kill('SIGTERM');
      await new Promise((r) => sup.once('exit', r));
    }
  });

  it('a machine SIGKILLed shows its runs stale, then gone', async () => {
    // Stale from 2 s, gone from 10 s: room for the four CLI reads of the stale state on a loaded machine.
    const { ms } = machines(server.url, { gone_after: '10s' });
    const [a, b] = ms;
    const run = worker(a, 'doomed');
    await until(() => statuses(b)['a:doomed'] === 'working', 'b to see a:doomed working', 15_000, 100);
    const sup = a.serverPid()!;
    const pid = a.json<PublicRun>(['show', 'doomed']).pid!;
    process.kill(sup, 'SIGKILL');
    process.kill(-pid, 'SIGKILL');
    await until(() => !alive(sup), 'a to be gone');
    await until(() => fleet(b).runs.find((r) => r.uuid === run.uuid)?.stale === true, 'b to show a:doomed stale', 10_000, 100);
    const v = fleet(b);
    expect(v.machines.find((m) => m.host === 'a')).toMatchObject({ stale: true });
    expect(b.cli(['ps', '--cluster']).stdout).toMatch(/machine a is not answering \(last heard \d/);
    expect(b.cli(['ps', '--cluster']).stdout).toMatch(/^a \(stale\)\s+a:doomed/m);
    await until(() => !fleet(b).runs.some((r) => r.host === 'a'), 'b to show a gone', 30_000, 200);
    expect(fleet(b).machines.map((m) => m.host)).toEqual(['b', 'c']);
  });

  it('a bare name two machines have is refused as ambiguous, naming both; HOST:NAME picks one; an unknown host is said', async () => {
    const { ms } = machines();
    const [a, b, c] = ms;
    worker(b, 'fix');
    worker(c, 'fix');
    await until(
      () => {
        const s = statuses(a);
        return s['b:fix'] === 'working' && s['c:fix'] === 'working';
      },
      'a to see both fixes working',
      15_000,
      100,
    );
    const amb = a.cli(['show', 'fix']);
    expect(amb.code, amb.stderr + amb.stdout).toBe(2);
    expect(amb.stderr).toMatch(/b:fix, c:fix/);
    const one = a.json<{ run: { host: string; ref: string; status: string } }>(['show', 'b:fix']);
    expect(one.run).toMatchObject({ host: 'b', ref: 'b:fix', status: 'working' });
    expect(a.cli(['show', 'c:fix']).stdout).toMatch(/^machine\s+c$/m);
    // A bare name only one other machine has is that run.
    worker(c, 'only-c');
    await until(() => statuses(a)['c:only-c'] === 'working', 'a to see c:only-c', 15_000, 100);
    expect(a.json<{ run: { ref: string } }>(['show', 'only-c']).run.ref).toBe('c:only-c');
    const unknown = a.cli(['show', 'zz:fix']);
    expect(unknown.code).toBe(6);
    expect(unknown.stderr).toMatch(/no machine "zz" in cluster/);
    const noHost = a.cli(['ps', '--cluster', '--host', 'zz']);
    expect(noHost.code).toBe(6);
    expect(noHost.stderr).toMatch(/no machine "zz" in cluster/);
    // A host or a name with a control character in it is written escaped, on one line.
    const odd = a.cli(['show', 'b\nx:fix']);
    expect(odd.code).toBe(6);
    expect(odd.stderr).toMatch(/^orcr: no run "b\\nx:fix" on any machine of the cluster; no machine "b\\nx" in cluster "[^"\n]+" \(a, b, c\)\n$/);
    expect(a.cli(['ps', '--cluster', '--host', 'b\n']).stderr.split('\n')[0]).toMatch(/^orcr: no machine "b\\n" in cluster/);
    for (const m of [b, c]) release(m, 'fix');
    release(c, 'only-c');
  });

  it('outside a cluster --cluster is a usage error; stats, spend and approvals read the fleet', async () => {
    const lone = home();
    const r = lone.cli(['ps', '--cluster']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not in a cluster/);
    const { ms } = machines();
    const [a, b] = ms;
    b.json(['run', '-n', 'quick', '--', 'true']);
    expect(b.cli(['wait', 'quick', '--timeout', '30s']).code).toBe(0);
    await until(() => statuses(a, ['--all'])['b:quick'] === 'ended', 'a to see b:quick ended', 15_000, 100);
    const stats = a.json<{ machines: { host: string; runs: number }[] }>(['stats', '--cluster']);
    expect(stats.machines.map((m) => m.host)).toEqual(['a', 'b', 'c']);
    const spend = a.json<{ by_machine: { key: string; runs: number }[] }>(['spend', '--cluster']);
    expect(spend.by_machine.find((x) => x.key === 'b')?.runs).toBe(1);
    expect(a.cli(['approvals', '--cluster']).stdout).toMatch(/no request waits for an answer on any machine/);
    // A request pending on b: listed on a as b:ID with its summary; the run blocked, and why.
    b.json(['run', '-n', 'asks', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask')]);
    const pending = await until(
      () => a.json<{ approvals: { id: string; run: string; summary: string }[] }>(['approvals', '--cluster']).approvals[0],
      'a to list b:asks request',
      15_000,
      100,
    );
    expect(pending.id).toMatch(/^b:\d+$/);
    expect(pending.run).toBe('b:asks');
    expect(pending.summary).toMatch(/^(Bash|Write|Edit): /);
    expect(a.cli(['approvals', '--cluster']).stdout).toMatch(new RegExp(`^${pending.id}\\s+b:asks\\s+\\d\\S*\\s+deny in \\d\\S*\\s+\\w+: `, 'm'));
    expect(a.cli(['ps', '--cluster']).stdout).toMatch(/^b\s+b:asks\s+\w{8}\s+blocked:approval approve \w+: /m);
    sameAsLocal(a, b, pending.id);
    b.cli(['kill', 'asks']);
  });

  /**
   * b's run `asks` and its request as a reads them (`ps --cluster`, `show
   * b:asks`, `approvals --cluster`) and as b reads them (`ps`, `show`,
   * `approvals`): the same columns and labels, the same words.
   */
  function sameAsLocal(a: TestHome, b: TestHome, id: string): void {
    const cells = (line: string | undefined): string[] => (line ?? '').split(/\s{2,}/);
    const row = (out: string, name: string): string[] => cells(out.split('\n').find((l) => l.split(/\s{2,}/).includes(name)));
    // ps: every column after MACHINE and NAME but ELAPSED (read a moment apart) is b's own.
    const [there, here] = [row(a.cli(['ps', '--cluster']).stdout, 'b:asks'), row(b.cli(['ps']).stdout, 'asks')];
    expect(there.slice(2, -1)).toEqual(here.slice(1, -1));
    // approvals: DEADLINE says how and when (not an ISO time), WHAT is the same summary.
    const [asked, local] = [row(a.cli(['approvals', '--cluster']).stdout, 'b:asks'), row(b.cli(['approvals']).stdout, 'asks')];
    expect(a.cli(['approvals', '--cluster']).stdout.split('\n')[0]).toMatch(/^ID\s+RUN\s+AGE\s+DEADLINE\s+WHAT$/);
    expect(asked[3]).toMatch(/^deny in \d/);
    expect(asked[3]!.split(' in ')[0]).toBe(local[3]!.split(' in ')[0]);
    expect(asked[4]).toBe(local[4]);
    // show: b's labels and words for what it published, its request by the id a answers it by.
    const label = (out: string): Map<string, string> =>
      new Map(
        out.split('\n').flatMap((l): [string, string][] => {
          const m = /^(\S(?:.*?\S)?)\s{2,}(.*)$/.exec(l);
          return m ? [[m[1]!, m[2]!]] : [];
        }),
      );
    const [shown, own] = [label(a.cli(['show', 'b:asks']).stdout), label(b.cli(['show', 'asks']).stdout)];
    for (const k of ['status', 'exit', 'provider', 'workload', 'turns', 'tokens', 'cost', 'created', 'started', 'ended'])
      expect(shown.get(k), k).toBe(own.get(k));
    expect(shown.get('elapsed')).toMatch(/^\d/);
    expect(shown.get('request')).toBe(own.get('request')!.replace(/^#(\d+)/, id));
    expect(shown.get('machine')).toBe('b');
  }

  it("events --cluster lists each run's last change; --follow prints each change of any machine as it is seen", async () => {
    const { ms } = machines();
    const [a, b] = ms;
    worker(b, 'watched');
    await until(() => statuses(a)['b:watched'] === 'working', 'a to see b:watched', 15_000, 100);
    const listed = a.json<{ run: string; status: string }[]>(['events', '--cluster']);
    expect(listed.find((c) => c.run === 'b:watched')?.status).toBe('working');
    const child = a.spawn(['events', '--cluster', '--follow']);
    try {
      const out = lineReader(child);
      // `events`' columns, the machine where the seq would be: host, time, type, id, name, data.
      await out.waitFor((l) => l.some((x) => /^b\t\S+Z\tworking\t\w{8}\tb:watched\t$/.test(x)), 'the follow to list b:watched working');
      release(b, 'watched');
      await out.waitFor(
        (l) => l.some((x) => /^b\t\S+Z\tended\t\w{8}\tb:watched\tfrom=working reason=completed\b.* exit_code=0$/.test(x)),
        'the follow to print b:watched ended',
        10_000,
      );
    } finally {
      child.kill();
    }
    expect(a.cli(['events', '--cluster', '--since', '3']).code).toBe(2);
  });

  it('an ended run leaves the fleet view view_retention after its end', async () => {
    const { ms } = machines(server.url, { view_retention: '2s' });
    const [a, b] = ms;
    b.json(['run', '-n', 'brief', '--', 'true']);
    expect(b.cli(['wait', 'brief', '--timeout', '30s']).code).toBe(0);
    await until(() => statuses(a, ['--all'])['b:brief'] === 'ended', 'a to see b:brief ended', 15_000, 100);
    const ended = Date.parse(b.json<PublicRun>(['show', 'brief']).ended_at!);
    await until(() => statuses(a, ['--all'])['b:brief'] === undefined, 'b:brief to leave the view', 15_000, 100);
    // Swept within a second of its time (the sweep runs every half of the retention, at least 1 s apart).
    expect(Date.now() - ended).toBeGreaterThanOrEqual(2000);
    expect(Date.now() - ended).toBeLessThan(6000);
  });

  it('a viewer with a role that can only SELECT reads the fleet and joins nothing', async () => {
    const { name, ms } = machines();
    const [a] = ms;
    worker(a, 'seen');
    await until(() => statuses(a)['seen'] === 'working', 'a:seen working');
    const pg = (await import('pg')).default;
    const admin = new pg.Client(server.url);
    await admin.connect();
    const role = `viewer_${process.pid}_${clusters}`;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      // The grants the README gives a viewer.
      const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      const grants = readme.match(/```sql\n(GRANT SELECT ON [^`]*TO orcr_viewer;\n)```/)![1]!;
      await admin.query(grants.replaceAll('orcr_viewer', role));
      const viewer = home({ cluster: { url: server.url.replace(/orcr@/, `${role}@`), name, host: 'desk', viewer: true, stale_after: '2s' } });
      await until(
        () => viewer.json<ClusterRunsReply>(['ps', '--cluster']).runs.some((r) => r.ref === 'a:seen' && r.status === 'working'),
        'the viewer to see a:seen',
      );
      expect(viewer.cli(['ps', '--cluster']).stdout).toMatch(/^a\s+a:seen/m);
      expect(viewer.json<{ run: { host: string; status: string } }>(['show', 'a:seen']).run).toMatchObject({ host: 'a', status: 'working' });
      expect(viewer.json<{ run: { ref: string } }>(['show', 'seen']).run.ref).toBe('a:seen');
      const status = viewer.cli(['cluster', 'status']);
      expect(status.code).toBe(2);
      expect(status.stderr).toMatch(/a viewer of cluster/);
      const hosts = await admin.query(`SELECT host FROM orcr_host WHERE cluster = $1 ORDER BY host`, [name]);
      expect(hosts.rows.map((x: { host: string }) => x.host)).toEqual(['a', 'b', 'c']);
      // The role cannot write: a member with it would be refused at start.
      await expect(
        (async () => {
          const c = new pg.Client(server.url.replace(/orcr@/, `${role}@`));
          await c.connect();
          try {
            await c.query(`DELETE FROM orcr_run WHERE cluster = $1`, [name]);
          } finally {
            await c.end();
          }
        })(),
      ).rejects.toThrow(/permission denied/);
      // And the viewer cannot act: a kill of a's run is refused, and the run works on.
      const kill = viewer.cli(['kill', 'a:seen']);
      expect(kill.code, kill.stderr).toBe(7);
      expect(kill.stderr).toMatch(/not one of its machines|viewer/);
      expect(a.json<PublicRun>(['show', 'seen']).status).toBe('working');
    } finally {
      release(a, 'seen');
      await admin.end();
    }
  });

  it('the database stopped: ps --cluster answers from the last good read, said stale since then; back: current again', async () => {
    const { ms } = machines(server.url, { lease_ttl: '3s', stale_after: '3s' });
    const [a, b] = ms;
    worker(b, 'through');
    await until(() => statuses(a)['b:through'] === 'working', 'a to see b:through');
    await server.pause();
    try {
      const v = fleet(a);
      expect(v.stale_since).not.toBeNull();
      expect(v.runs.find((r) => r.ref === 'b:through')?.status).toBe('working');
      const out = a.cli(['ps', '--cluster']);
      expect(out.code).toBe(0);
      expect(out.stdout).toMatch(/the cluster database does not answer .*stale since then/);
    } finally {
      await server.resume();
    }
    release(b, 'through');
    await until(
      () => fleet(a, ['--all']).stale_since === null && statuses(a, ['--all'])['b:through'] === 'ended',
      'a current again, b:through ended',
      30_000,
      200,
    );
  });
});

const poolerNeed = pgBouncerNeed();
describeWhen(poolerNeed, `one fleet, one view through PgBouncer in transaction mode ${onPg()}`, () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    if (poolerNeed.reason === null) bouncer = await PgBouncer.start(server);
  }, 60_000);
  afterAll(async () => {
    await bouncer?.stop();
  });

  it("ps --cluster lists every machine's runs, and a change within a second", async () => {
    const { ms } = machines(bouncer.url);
    const [a, b] = ms;
    worker(a, 'pa');
    worker(b, 'pb');
    await until(() => statuses(a)['b:pb'] === 'working' && statuses(b)['a:pa'] === 'working', 'each to see the other', 15_000, 100);
    const oa = await sdk(a);
    release(b, 'pb');
    let seen = 0;
    await until(
      async () => {
        // Timed from when it was asked, as above.
        const asked = Date.now();
        const v = await oa.cluster.runs({ all: true, host: 'b' });
        if (v.runs.some((r) => r.name === 'pb' && r.status === 'ended')) seen = asked;
        return seen;
      },
      'a to see b:pb ended',
      10_000,
      10,
    );
    expect(seen - Date.parse(b.json<PublicRun>(['show', 'pb']).ended_at!)).toBeLessThan(1000);
    release(a, 'pa');
  });
});
