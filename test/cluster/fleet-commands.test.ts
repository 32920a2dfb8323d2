// Acting on another machine's runs (issue 43): three supervisors on three
// homes in one cluster of a real PostgreSQL server; a verb on `HOST:RUN` at
// one machine travels as a command through the database to the machine
// that owns the run, is carried out there and answered with the same words
// and exit codes as a local one. An agent's end is read from /proc.

import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PublicRun } from '../../src/protocol/views.js';
import { PgBouncer } from '../../bench/lib/pgbouncer.js';
import { askingMock } from '../support/approvals.js';
import { cliAsync } from '../support/cluster.js';
import { alive, NODE, script, until, useHomes, type TestHome } from '../support/harness.js';
import { onPg, PgServer, pgBouncerNeed, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';

const need = pgNeed();
const home = useHomes();
let server: PgServer;
let clusters = 0;

if (!need.reason) {
  beforeAll(async () => {
    server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });
}

type ClusterExtra = { accept_commands?: boolean; url?: string; lease_ttl?: string; command_timeout?: string };

/** Machines a, b, c (or the hosts given) in one new cluster; each supervisor up. */
function machines(hosts: string[] = ['a', 'b', 'c'], extra: Record<string, ClusterExtra> = {}): Record<string, TestHome> {
  const name = `fc${process.pid}-${++clusters}`;
  const out: Record<string, TestHome> = {};
  for (const host of hosts) {
    const { url, ...rest } = extra[host] ?? {};
    out[host] = home({
      concurrency: { max: 10 },
      timings: { kill_grace: '1s' },
      cluster: { url: url ?? server.url, name, host, lease_ttl: '2s', ...rest },
    });
  }
  for (const h of Object.values(out)) expect(h.cli(['stats']).code).toBe(0);
  return out;
}

/** The pids of the agent processes of a run (ORCR_RUN in their environment), from /proc. */
function agentPids(uuid: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/cmdline`, 'latin1').includes('dir=$1; fifo=$2')) continue;
      if (fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0').includes(`ORCR_RUN=${uuid}`)) out.push(Number(e));
    } catch {
      /* gone */
    }
  }
  return out;
}

const INTERACTIVE = `
const fs = require('fs');
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
say({ type: 'turn_start' });
say({ type: 'turn_end' });
let buf = '';
let n = 0;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  let nl;
  while ((nl = buf.indexOf('\\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    say({ type: 'turn_start' });
    fs.writeFileSync(process.argv[2] + '.' + ++n, msg.text);
    setTimeout(() => say({ type: 'turn_end' }), 300);
  }
});
process.stdin.on('end', () => process.exit(0));
`;

async function working(h: TestHome, name: string): Promise<PublicRun> {
  return until(() => {
    const r = h.json<PublicRun>(['show', name]);
    return r.status === 'working' && r;
  }, `${name} to be working`);
}

describeWhen(need, `commands across machines ${onPg()}`, () => {
  it('kill b:RUN from a ends it on b, its agent gone from /proc; unknown runs and machines are not found', async () => {
    const { a, b } = machines();
    b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
    const run = await working(b!, 'long');
    await until(() => agentPids(run.uuid).length > 0, 'the agent in /proc');
    const k = a!.cli(['kill', 'b:long']);
    expect(k, k.stderr).toMatchObject({ code: 0, stdout: 'b:long killing\n' });
    await until(() => agentPids(run.uuid).length === 0, 'the agent gone from /proc', 10_000);
    await until(() => b!.json<PublicRun>(['show', 'long']).status === 'ended', 'long to end on b');
    expect(b!.json<PublicRun>(['show', 'long'])).toMatchObject({ exit_reason: 'killed' });
    // The same words and exit codes as a local kill.
    expect(a!.cli(['kill', 'b:long'])).toMatchObject({ code: 0, stdout: 'b:long already ended (killed)\n' });
    const none = a!.cli(['kill', 'b:nothing']);
    expect(none.code).toBe(6);
    expect(none.stderr).toMatch(/no run "b:nothing"/);
    const noHost = a!.cli(['kill', 'zz:long']);
    expect(noHost.code).toBe(6);
    expect(noHost.stderr).toMatch(/no machine "zz"/);
  });

  it('send b:RUN and wait b:RUN from a: the turn runs on b, the wait answers as a local one does', async () => {
    const { a, b } = machines();
    const agent = script(b!, 'chat.cjs', INTERACTIVE);
    const got = path.join(b!.dir, 'input');
    b!.json(['run', '-n', 'chat', '--interactive', '--protocol', 'jsonl', '--', NODE, agent, got]);
    await until(() => b!.json<PublicRun>(['show', 'chat']).status === 'idle', 'chat to be idle');
    const s = a!.cli(['send', 'b:chat', 'hello from a']);
    expect(s, s.stderr).toMatchObject({ code: 0 });
    const w = await cliAsync(a!, ['wait', 'b:chat', '--timeout', '20s']);
    expect(w, w.stderr).toMatchObject({ code: 0, stdout: 'b:chat turn_complete\n' });
    expect(fs.readFileSync(`${got}.1`, 'utf8')).toBe('hello from a');
    // A wait that runs out: the same exit code (3) as a local one.
    b!.json(['run', '-n', 'slow', '--', 'sh', '-c', 'sleep 30']);
    await working(b!, 'slow');
    const late = await cliAsync(a!, ['wait', 'b:slow', '--timeout', '300ms', '--json']);
    const local = await cliAsync(b!, ['wait', 'slow', '--timeout', '300ms', '--json']);
    expect(late.code).toBe(local.code);
    expect(JSON.parse(late.stdout)).toEqual(JSON.parse(local.stdout).map((x: { name: string }) => ({ ...x, name: `b:${x.name}` })));
    // Sending to a run that is not idle: exit 4, as here.
    const busy = a!.cli(['send', 'b:slow', 'x']);
    expect(busy.code).toBe(b!.cli(['send', 'slow', 'x']).code);
    // logs b:RUN: its last lines, fetched the same way.
    const logs = a!.cli(['logs', 'b:chat', '--raw', '--tail', '2']);
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout.trimEnd().split('\n')).toEqual(b!.cli(['logs', 'chat', '--raw', '--tail', '2']).stdout.trimEnd().split('\n'));
    // diff b:RUN: answered by b as b answers it (a run without a worktree: the same refusal and exit code).
    const [there, here] = [a!.cli(['diff', 'b:chat']), b!.cli(['diff', 'chat'])];
    expect(there.code).toBe(here.code);
    expect(there.stderr).toBe(here.stderr.replaceAll('"chat"', '"b:chat"'));
  });

  it("approve b:RUN and deny b:ID from a answer b's agent, which goes on; b records who answered and from which machine", async () => {
    const { a, b } = machines();
    b!.json(['run', '-n', 'asks', '--protocol', 'claude', '-p', 'go', '--', ...askingMock('ask', 3)]);
    type Req = { id: number; state: string; message: string | null; by: { who: string | null } | null };
    const pending = (): Req[] => b!.json<Req[]>(['approvals', 'asks']);
    const first = await until(() => pending()[0], 'a request on b');
    const words = 'not that one: from machine a';
    const d = a!.cli(['deny', `b:${first.id}`, '-m', words]);
    expect(d, d.stderr).toMatchObject({ code: 0, stdout: `b:${first.id} denied\n` });
    const decided = b!.json<Req[]>(['approvals', 'asks', '--all']).find((r) => r.id === first.id)!;
    expect(decided).toMatchObject({ state: 'denied', message: words });
    expect(decided.by?.who).toMatch(/ on a \(via cluster\)$/);
    // The rest by the run's name, from a, until the agent is done.
    await until(
      () => {
        if (pending().length > 0) {
          const r = a!.cli(['approve', 'b:asks']);
          expect(r.code, r.stderr).toBe(0);
          expect(r.stdout).toMatch(/^b:\d+ allowed \(/);
        }
        return b!.json<PublicRun>(['show', 'asks']).status === 'ended';
      },
      'asks to end, answered from a',
      30_000,
      100,
    );
    expect(b!.json<PublicRun>(['show', 'asks'])).toMatchObject({ exit_reason: 'completed' });
    // A second answer is refused as here: conflict (4), naming who answered.
    const again = a!.cli(['approve', `b:${first.id}`]);
    expect(again.code).toBe(4);
    expect(again.stderr).toMatch(/via cluster/);
    expect(again.stderr).toMatch(new RegExp(`request b:${first.id} was already denied`));
    // A request b does not have is named as it was typed.
    const none = a!.cli(['approve', 'b:99999']);
    expect(none).toMatchObject({ code: 6, stderr: 'orcr: no request b:99999\n' });
  });

  it('run --after b:RUN on c starts when it completes on b; one after a run of b that failed is canceled', async () => {
    const { b, c } = machines();
    const go = path.join(b!.dir, 'go');
    b!.json(['run', '-n', 'first', '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.05; done`]);
    b!.json(['run', '-n', 'bad', '--', 'sh', '-c', 'exit 3']);
    await working(b!, 'first');
    const dep = c!.cli(['run', '-n', 'dep', '--after', 'b:first', '--json', '--', 'sh', '-c', 'true']);
    expect(dep.code, dep.stderr).toBe(0);
    const lost = c!.cli(['run', '-n', 'lost', '--after', 'b:bad', '--json', '--', 'sh', '-c', 'true']);
    expect(lost.code, lost.stderr).toBe(0);
    await until(() => c!.json<PublicRun>(['show', 'lost']).status === 'ended', 'lost to be canceled');
    expect(c!.json<PublicRun>(['show', 'lost'])).toMatchObject({ exit_reason: 'canceled', exit_detail: 'dependency b:bad ended errored' });
    // Still waiting: its input works on b.
    expect(c!.json<PublicRun>(['show', 'dep']).status).toBe('queued');
    fs.writeFileSync(go, '');
    const w = await cliAsync(c!, ['wait', 'dep', '--timeout', '20s']);
    expect(w, w.stderr).toMatchObject({ code: 0, stdout: 'dep completed\n' });
    expect(b!.json<PublicRun>(['show', 'first'])).toMatchObject({ status: 'ended', exit_reason: 'completed' });
    // An unknown run of b is refused at once, as an unknown local one is, and nothing is queued.
    const none = c!.cli(['run', '-n', 'never', '--after', 'b:nothing', '--', 'true']);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no run "b:nothing"/);
  });

  it("a bare name no local run has is another machine's when one machine publishes it; several: refused as ambiguous, naming each", async () => {
    const { a, b, c } = machines();
    const solo = b!.json<PublicRun>(['run', '-n', 'solo', '--', 'sh', '-c', 'sleep 600']);
    const twinB = b!.json<PublicRun>(['run', '-n', 'twin', '--', 'sh', '-c', 'sleep 600']);
    const twinC = c!.json<PublicRun>(['run', '-n', 'twin', '--', 'sh', '-c', 'sleep 600']);
    await working(b!, 'solo');
    // The rows the fleet view publishes (orcr_run), written here as that view writes them.
    const cluster = a!.json<{ name: string }>(['cluster', 'status']).name;
    const db = new pg.Client(server.url);
    await db.connect();
    try {
      for (const [host, run] of [
        ['b', solo],
        ['b', twinB],
        ['c', twinC],
      ] as const) {
        await db.query(
          `INSERT INTO orcr_run (cluster, host, uuid, name, status, face) VALUES ($1, $2, $3, $4, 'working', '{}') ON CONFLICT (cluster, uuid) DO NOTHING`,
          [cluster, host, run.uuid, run.name],
        );
      }
    } finally {
      await db.end();
    }
    const twin = a!.cli(['kill', 'twin']);
    expect(twin.code).toBe(2);
    expect(twin.stderr).toMatch(/"twin" names runs of several machines: b:twin, c:twin/);
    const k = a!.cli(['kill', 'solo']);
    expect(k, k.stderr).toMatchObject({ code: 0, stdout: 'b:solo killing\n' });
    await until(() => agentPids(solo.uuid).length === 0, 'solo gone from /proc on b', 10_000);
  });

  it('queue pause --host b and provider resume --host b act on b', () => {
    const { a, b } = machines();
    const p = a!.cli(['queue', 'pause', '--host', 'b']);
    expect(p, p.stderr).toMatchObject({ code: 0 });
    expect(p.stdout).toMatch(/^queue paused on b: /);
    expect(b!.json<{ paused: boolean }>(['stats']).paused).toBe(true);
    expect(a!.json<{ paused: boolean }>(['stats']).paused).toBe(false);
    expect(a!.cli(['queue', 'resume', '--host', 'b']).code).toBe(0);
    expect(b!.json<{ paused: boolean }>(['stats']).paused).toBe(false);
    const r = a!.cli(['provider', 'resume', 'claude', '--host', 'b']);
    expect(r).toMatchObject({ code: 4, stderr: expect.stringMatching(/claude is not on hold on b/) });
    expect(a!.cli(['queue', 'pause', '--host', 'nowhere'])).toMatchObject({ code: 6, stderr: expect.stringMatching(/no machine "nowhere"/) });
    // A home on its own has no machine to name: a usage error, and its own queue is left as it is.
    const alone = home({});
    expect(alone.cli(['queue', 'pause', '--host', 'b'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/not in one/) });
    expect(alone.json<{ paused: boolean }>(['stats']).paused).toBe(false);
  });

  it('a machine not heard from within lease_ttl is refused at once (exit 7, naming it and when it was last heard)', async () => {
    const { a, c } = machines();
    c!.json(['run', '-n', 'x', '--', 'sh', '-c', 'sleep 600']);
    await working(c!, 'x');
    c!.cli(['server', 'stop']);
    // lease_ttl is 2 s: past it, c is stale (as the database's clock tells a's cluster status).
    type Status = { machines: { host: string; alive: boolean }[] };
    await until(() => a!.json<Status>(['cluster', 'status']).machines.find((m) => m.host === 'c')?.alive === false, 'c to be stale', 10_000, 200);
    const t0 = Date.now();
    const k = a!.cli(['kill', 'c:x']);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(k.code).toBe(7);
    expect(k.stderr).toMatch(/machine c is not answering \(last heard \ds ago\)/);
  });

  it('cluster.accept_commands false: refused (exit 7), and said in its orcr_host row', async () => {
    const { a, c } = machines(['a', 'c'], { c: { accept_commands: false } });
    c!.json(['run', '-n', 'x', '--', 'sh', '-c', 'sleep 600']);
    await working(c!, 'x');
    const k = a!.cli(['kill', 'c:x']);
    expect(k.code).toBe(7);
    expect(k.stderr).toMatch(/machine c does not take commands from other machines \(its cluster.accept_commands is false\)/);
    expect(c!.json<PublicRun>(['show', 'x']).status).toBe('working');
    const db = new pg.Client(server.url);
    await db.connect();
    try {
      const rows = (
        await db.query<{ host: string; accept_commands: boolean }>(
          `SELECT host, accept_commands FROM orcr_host WHERE host IN ('a', 'c') AND cluster LIKE 'fc%' ORDER BY heartbeat DESC LIMIT 2`,
        )
      ).rows;
      expect(Object.fromEntries(rows.map((r) => [r.host, r.accept_commands]))).toEqual({ a: true, c: false });
    } finally {
      await db.end();
    }
  });

  it('a role that may not write orcr_command cannot act: refused naming the grant it lacks, and nothing happens on b', async () => {
    const db = new pg.Client(server.url);
    await db.connect();
    const role = `ro${process.pid}_${clusters + 1}`;
    try {
      await db.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw'`);
      await db.query(
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
      );
      const u = new URL(server.url);
      u.username = role;
      u.password = 'pw';
      const { a, b } = machines(['a', 'b'], { a: { url: u.toString() } });
      b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
      await working(b!, 'long');
      // Joined with every grant; then left with reading only on orcr_command.
      await db.query(`REVOKE INSERT, UPDATE, DELETE ON orcr_command FROM ${role}`);
      const k = a!.cli(['kill', 'b:long']);
      expect(k.code).toBe(7);
      expect(k.stderr).toMatch(/may not write orcr_command.*GRANT SELECT, INSERT, UPDATE, DELETE ON orcr_command/);
      expect(b!.json<PublicRun>(['show', 'long']).status).toBe('working');
    } finally {
      await db.end();
    }
  });
});

describeWhen(need, `commands that cannot go, or get no answer ${onPg()}`, () => {
  it('the database away: refused at once (exit 7), and nothing is queued to go later', async () => {
    const { a, b } = machines(['a', 'b']);
    b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
    await working(b!, 'long');
    const cluster = a!.json<{ name: string }>(['cluster', 'status']).name;
    await server.pause();
    try {
      await until(() => a!.json<{ available: boolean }>(['cluster', 'status']).available === false, 'a to find the database away', 20_000, 200);
      const t0 = Date.now();
      const k = a!.cli(['kill', 'b:long']);
      expect(Date.now() - t0).toBeLessThan(3000);
      expect(k.code).toBe(7);
      expect(k.stderr).toMatch(/the cluster database is unavailable \(.*\): nothing was sent to machine b/);
    } finally {
      await server.resume();
    }
    await until(() => a!.json<{ available: boolean }>(['cluster', 'status']).available, 'a to be back', 30_000, 200);
    const db = new pg.Client(server.url);
    await db.connect();
    try {
      expect((await db.query(`SELECT id FROM orcr_command WHERE cluster = $1`, [cluster])).rows).toEqual([]);
    } finally {
      await db.end();
    }
    expect(b!.json<PublicRun>(['show', 'long']).status).toBe('working');
  });

  it('wait b:RUN given up by its client (Ctrl-C): the wait on b is dropped too', async () => {
    const { a, b } = machines(['a', 'b']);
    b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
    await working(b!, 'long');
    const child = a!.spawn(['wait', 'b:long']);
    await until(() => b!.json<{ waits: number }>(['server', 'status']).waits === 1, 'the wait to be open on b');
    child.kill('SIGINT');
    await until(() => b!.json<{ waits: number }>(['server', 'status']).waits === 0, 'the wait on b dropped', 10_000, 100);
  });

  it('wait b:RUN whose machine stops answering meanwhile: said within seconds (exit 7), not waited on for ever', async () => {
    const { a, b } = machines(['a', 'b']);
    b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
    await working(b!, 'long');
    const waiting = cliAsync(a!, ['wait', 'b:long']);
    // The wait is on its way on b (its command taken) before b goes.
    await until(() => b!.json<{ waits: number }>(['server', 'status']).waits === 1, 'the wait to be open on b');
    process.kill(b!.serverPid()!, 'SIGKILL');
    const t0 = Date.now();
    const w = await waiting;
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(w.code).toBe(7);
    expect(w.stderr).toMatch(/machine b stopped answering while the call was on its way \(last heard \ds ago\)/);
  });

  it("wait b:RUN across restarts of b's supervisor (stopped; SIGKILLed): the next one carries the wait on, answered when the run ends", async () => {
    const { a, b } = machines(['a', 'b'], { a: { lease_ttl: '30s' }, b: { lease_ttl: '30s' } });
    const go = path.join(b!.dir, 'go');
    b!.json(['run', '-n', 'job', '--', 'sh', '-c', `while [ ! -e '${go}' ]; do sleep 0.1; done`]);
    await working(b!, 'job');
    const waiting = cliAsync(a!, ['wait', 'b:job']);
    const open = (): boolean => b!.json<{ waits: number }>(['server', 'status']).waits === 1;
    await until(open, 'the wait to be open on b');
    expect(b!.cli(['server', 'stop']).code).toBe(0);
    expect(b!.cli(['stats']).code).toBe(0);
    await until(open, 'the wait carried on by the next supervisor');
    const sup = b!.serverPid()!;
    process.kill(sup, 'SIGKILL');
    await until(() => !alive(sup), "b's supervisor to be gone");
    const again = b!.cli(['stats']);
    expect(again, again.stderr).toMatchObject({ code: 0 });
    await until(open, 'the wait carried on after a SIGKILL');
    fs.writeFileSync(go, '');
    const w = await waiting;
    expect(w, w.stderr).toMatchObject({ code: 0 });
    expect(w.stdout).toMatch(/^b:job completed/);
  });

  it("a command b's supervisor took and did not answer (it died), not a wait: the next one says it may have been done, and does not do it again", async () => {
    const { b } = machines(['a', 'b'], { a: { lease_ttl: '30s' }, b: { lease_ttl: '30s' } });
    b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
    await working(b!, 'long');
    expect(b!.cli(['server', 'stop']).code).toBe(0);
    // As a supervisor that took a kill and died before it answered leaves it: taken, no answer.
    const db = new pg.Client({ connectionString: server.url });
    await db.connect();
    let id: string;
    try {
      const cluster = `fc${process.pid}-${clusters}`;
      const r = await db.query<{ id: string }>(
        `INSERT INTO orcr_command (cluster, host, from_host, method, params, taken_at) VALUES ($1, 'b', 'a', 'run.kill', $2, now()) RETURNING id`,
        [cluster, JSON.stringify({ refs: ['long'] })],
      );
      id = String(r.rows[0]!.id);
      expect(b!.cli(['stats']).code).toBe(0);
      const answer = await until(
        async () =>
          (await db.query<{ answer: { error?: { code: string; message: string } } | null }>(`SELECT answer FROM orcr_command WHERE id = $1`, [id])).rows[0]
            ?.answer,
        () => 'the next supervisor to answer it ' + fs.readFileSync(path.join(b!.dir, 'server.log'), 'utf8').slice(-3000),
      );
      expect(answer.error).toMatchObject({
        code: 'unavailable',
        message: expect.stringMatching(/stopped while it carried out run\.kill.*may have been done there/),
      });
    } finally {
      await db.end();
    }
    expect(b!.json<PublicRun>(['show', 'long']).status).toBe('working');
  });

  it('a machine whose supervisor does not take the command in time: said so (exit 7), withdrawn, never carried out later', async () => {
    const { a, b } = machines(['a', 'b'], { a: { command_timeout: '500ms' }, b: { lease_ttl: '30s' } });
    b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
    await working(b!, 'long');
    const pid = b!.serverPid()!;
    process.kill(pid, 'SIGSTOP');
    let k: { code: number; stderr: string };
    try {
      k = await cliAsync(a!, ['kill', 'b:long']);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    expect(k.code).toBe(7);
    expect(k.stderr).toMatch(/machine b did not take the command within 500ms \(nothing was done there: the command is withdrawn\)/);
    // b back: it finds nothing to carry out, and its run goes on.
    expect(b!.cli(['stats']).code).toBe(0);
    // What is checked is that nothing happens: a few of b's polls (250 ms apart at most while notices are unknown) go by.
    await new Promise((r) => setTimeout(r, 1000));
    expect(b!.json<PublicRun>(['show', 'long']).status).toBe('working');
  });
});

const poolerNeed = pgBouncerNeed();
describeWhen(poolerNeed, `commands through PgBouncer in transaction mode ${onPg()}`, () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    if (poolerNeed.reason === null) bouncer = await PgBouncer.start(server);
  }, 60_000);
  afterAll(async () => {
    await bouncer?.stop();
  });

  it('kill b:RUN from a arrives by polling (notices are dropped by the pooler), and its agent is gone', async () => {
    const { a, b } = machines(['a', 'b'], { a: { url: bouncer.url }, b: { url: bouncer.url } });
    b!.json(['run', '-n', 'long', '--', 'sh', '-c', 'sleep 600']);
    const run = await working(b!, 'long');
    const k = a!.cli(['kill', 'b:long']);
    expect(k, k.stderr).toMatchObject({ code: 0, stdout: 'b:long killing\n' });
    await until(() => agentPids(run.uuid).length === 0, 'the agent gone from /proc', 10_000);
    await until(
      () => b!.json<{ notifications: string }>(['cluster', 'status']).notifications === 'not arriving' || null,
      'the probe to find notifications not arriving',
      30_000,
      200,
    );
  });
});
