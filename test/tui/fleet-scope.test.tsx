// The TUI's cluster scope (`m`, issue 43) on real supervisors joined to one
// cluster of a real PostgreSQL server: machine a's TUI lists machine b's runs
// with their machine, opens their details (from the list and from the
// limiter's holders) from what b published, and kills one on b (the command
// travels through the database); a machine SIGKILLed has its rows dimmed and
// said stale, and the database away says since when the view is stale; a
// home in no cluster is told so and stays on its own runs. Colours are on
// (color-on.js): a stale row's dimming is read from the frame's escapes.

import './no-ci.js';
import './color-on.js';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ClusterRunsReply } from '../../src/protocol/results.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { askingAgent } from '../support/asking-agent.js';
import { alive, until } from '../support/harness.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';
import { Home, MOCK_AGENT } from './home.js';
import { liveApp, type LiveApp } from './live-app.js';

const need = pgNeed();
let server: PgServer;
let clusters = 0;
let homes: Home[] = [];
let apps: LiveApp[] = [];

if (!need.reason) {
  beforeAll(async () => {
    server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });
}

afterEach(() => {
  for (const a of apps) a.close();
  apps = [];
  for (const h of homes) h.cleanup();
  homes = [];
});

const DIM = '\x1b[2m';
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

/** Machines a and b (by default) in one new cluster: stale 2 s after their last heartbeat. */
function machines(hosts: string[] = ['a', 'b']): [Home, Home, ...Home[]] {
  const name = `tui${process.pid}-${++clusters}`;
  const ms = hosts.map(
    (host) => new Home({ timings: { kill_grace: '1s' }, cluster: { url: server.url, name, host, lease_ttl: '1500ms', stale_after: '2s', gone_after: '60s' } }),
  );
  homes.push(...ms);
  // Each supervisor started (any verb starts one): it joins, and publishes.
  for (const m of ms) expect(m.cli(['stats']).code).toBe(0);
  return ms as [Home, Home, ...Home[]];
}

/** A run that works until its file `go-NAME` appears in the machine's home. */
function worker(m: Home, name: string): PublicRun {
  const go = path.join(m.dir, `go-${name}`);
  return m.run(['-n', name, '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.02; done`]);
}

const fleet = (m: Home): ClusterRunsReply => m.json<ClusterRunsReply>(['ps', '--cluster', '--all']);

function open(h: Home, opts: { plain?: boolean } = { plain: true }): LiveApp {
  const app = liveApp(h, { columns: 120, rows: 40 }, opts);
  apps.push(app);
  return app;
}

/** esc, then Ink's wait for the rest of an escape sequence (20 ms) run out, so the next key is a key of its own. */
async function esc(app: LiveApp): Promise<void> {
  await app.press('\x1b');
  await new Promise((r) => setTimeout(r, 30));
}

describeWhen(need, `the TUI's cluster scope ${onPg()}`, () => {
  it("m lists every machine's runs with their machine, this machine's first; enter and the limiter's holder open b's run; x kills it on b", async () => {
    const [a, b] = machines();
    worker(a, 'w-a');
    const wb = worker(b, 'w-b');
    await until(() => fleet(a).runs.some((r) => r.ref === 'b:w-b' && r.status === 'working'), 'a to see b:w-b working', 15_000, 100);
    const app = open(a);
    const mine = await app.until((f) => f.includes('Runs · this machine (m: cluster) 1/1') && f.includes('w-a'), "a's TUI on its own runs");
    // The limiter names b's holder (b:w-b); the list has this machine's runs only.
    expect(mine.split('─ Limiter')[0]).not.toContain('b:w-b');

    await app.press('m');
    const f = await app.until((x) => /Runs · cluster \S+ \(2 machines\) 2\/2/.test(x) && x.includes('b:w-b'), "the cluster's runs");
    const ls = f.split('\n');
    expect(ls.find((l) => l.includes('MACHINE'))).toMatch(/^ {2}MACHINE\s+STATUS\s+WHY\s+NAME/);
    const rowA = ls.findIndex((l) => /^. a\s+● working\s+w-a\s/.test(l));
    const rowB = ls.findIndex((l) => /^. b\s+● working\s+b:w-b\s/.test(l));
    expect(rowA, f).toBeGreaterThan(0);
    expect(rowB, f).toBe(rowA + 1);

    // enter on b's row: its details, from the face b published (its command and output stay on b).
    await app.press('j', '\r');
    const d = await app.until((x) => x.includes('Details: b:w-b'), "b:w-b's details");
    expect(d).toMatch(/machine\s+b · published \d\d:\d\d:\d\d/);
    expect(d).toMatch(/status\s+● working/);
    expect(d).toContain(wb.uuid);
    expect(d).toContain('command, directory and output stay on b · orcr logs b:w-b');
    await esc(app);
    await app.until((x) => x.includes('Runs · cluster'), 'back to the list');

    // The limiter names b's holder b:w-b: selected there, enter opens the same details.
    await app.press('\t');
    for (let i = 0; i < 8 && !app.store.getState().limiterKey?.includes(wb.uuid); i++) await app.press('j');
    expect(app.store.getState().limiterKey).toContain(wb.uuid);
    await app.press('\r');
    await app.until((x) => x.includes('Details: b:w-b') && /machine\s+b/.test(x), "b:w-b's details from the limiter");

    // x, y: the kill goes to b (forwarded through the database); its agent leaves /proc.
    const pid = b.json<PublicRun>(['show', 'w-b']).pid!;
    expect(alive(pid)).toBe(true);
    // w: a wait on b's run (run.wait, forwarded), settled by the kill below.
    await app.press('w');
    await app.untilDrawn((x) => x.includes('waiting on b:w-b until it is idle or ended'), 'the wait on b:w-b');
    await app.press('x');
    await app.until((x) => /kill b:w-b\?/.test(x), 'the question naming b:w-b');
    await app.press('y');
    await until(() => b.json<PublicRun>(['show', 'w-b']).status === 'ended', 'w-b ended on b', 15_000, 100);
    expect(b.json<PublicRun>(['show', 'w-b']).exit_reason).toBe('killed');
    await until(() => !alive(pid), "w-b's agent gone from /proc", 10_000);
    await app.until((x) => /b:w-b/.test(x) && /■ ended/.test(x), 'b:w-b ended in a TUI');
    await app.untilDrawn((x) => /wait on b:w-b: killed/.test(x), 'the wait settled as a local one does (killed)');
  });

  it('runs of two machines tagged (*) are killed together with x: one call per machine, both end', async () => {
    const [a, b] = machines();
    worker(a, 't-a');
    worker(b, 't-b');
    await until(() => fleet(a).runs.filter((r) => r.status === 'working').length === 2, 'a to see both working', 15_000, 100);
    const app = open(a);
    await app.until((x) => x.includes('Runs · this machine'), "a's TUI");
    await app.press('m');
    await app.until((x) => /b:t-b/.test(x.split('─ Limiter')[0]!), "the cluster's runs");
    await app.press('*', 'x');
    await app.until((x) => /kill 2 .*runs\?/.test(x), 'the question naming two runs');
    await app.press('y');
    await until(
      () => a.json<PublicRun>(['show', 't-a']).status === 'ended' && b.json<PublicRun>(['show', 't-b']).status === 'ended',
      'both ended',
      15_000,
      100,
    );
    await app.untilDrawn((x) => x.includes('2 runs: kill sent to 2'), 'the footer counting both (a later notice may replace it)');
  });

  it("s sends a line to b's idle run through b: the agent takes it as its next turn", async () => {
    const [a, b] = machines();
    b.run([
      '-n',
      'chat',
      '--protocol',
      'jsonl',
      '--interactive',
      '--',
      process.execPath,
      MOCK_AGENT,
      '--format',
      'jsonl',
      '--scenario',
      'interactive',
      '--delay',
      '20',
    ]);
    await until(() => fleet(a).runs.some((r) => r.ref === 'b:chat' && r.status === 'idle'), 'a to see b:chat idle', 30_000, 100);
    const app = open(a);
    await app.until((x) => x.includes('Runs · this machine'), "a's TUI");
    await app.press('m');
    await app.until((x) => /^. b\s+◇ idle\s+.*b:chat/m.test(x), 'b:chat idle in the list');
    await app.press('s');
    await app.until((x) => /send .*b:chat/.test(x), 'the prompt naming b:chat');
    await app.press(...'one more thing'.split(''), '\r');
    await app.untilDrawn((x) => x.includes('sent to b:chat (input #1)'), 'sent, as a local send says');
    await until(() => b.json<PublicRun>(['show', 'chat']).input_seq === 1, 'b to have taken the input', 15_000, 100);
    await until(() => b.json<PublicRun>(['show', 'chat']).status === 'idle', "the agent's turn to end", 15_000, 100);
  });

  it('a machine SIGKILLed: its rows dimmed and said stale; the database away: the view says since when it is stale', async () => {
    const [a, b] = machines();
    worker(b, 'w-b');
    await until(() => fleet(a).runs.some((r) => r.ref === 'b:w-b' && r.status === 'working'), 'a to see b:w-b working', 15_000, 100);
    const app = open(a, { plain: false });
    await app.until((x) => plain(x).includes('Runs · this machine'), "a's TUI");
    await app.press('m');
    const live = await app.until((x) => /^. b\s+● working\s+b:w-b/m.test(plain(x)), "b's run, fresh");
    const rowOf = (frame: string): string => frame.split('\n').find((l) => plain(l).includes('b:w-b'))!;
    expect(rowOf(live)).not.toContain(DIM);

    const sup = b.serverPid()!;
    const pid = b.json<PublicRun>(['show', 'w-b']).pid!;
    process.kill(sup, 'SIGKILL');
    process.kill(-pid, 'SIGKILL');
    await until(() => !alive(sup), "b's supervisor gone");
    const stale = await app.until((x) => /^. b \(stale\)\s+● working\s+b:w-b/m.test(plain(x)), 'b:w-b said stale');
    // The word says it without colour; the row is dimmed as well.
    expect(rowOf(stale)).toContain(DIM);

    await server.pause();
    try {
      await app.until((x) => /fleet view stale since \d\d:\d\d:\d\d/.test(plain(x)), 'the view said stale since when');
    } finally {
      await server.resume();
    }
    await app.until((x) => !plain(x).includes('fleet view stale since'), 'the view current again');
  });

  it("in cluster scope the queue answers b's requests by b:ID: A with the rule b's agent offers, then n with words", async () => {
    const [a, b] = machines();
    const rule = [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test' }], behavior: 'allow', destination: 'localSettings' }];
    const agent = askingAgent(b, 'asker', {
      asks: [
        { tool: 'Bash', input: { command: 'npm test' }, offers: rule },
        { tool: 'Bash', input: { command: 'rm -rf build' } },
      ],
    });
    b.run(['-n', 'asker', '--protocol', 'claude', '-p', 'go', '--', ...agent.argv]);
    const app = open(a);
    await app.until((x) => x.includes('Runs · this machine'), "a's TUI");
    await app.press('m');
    await app.until((x) => x.includes('⚑ 1 to approve'), "b's request counted");
    await app.press('!');
    let f = await app.until((x) => /^› b:\d+\s+b:asker\s.*Bash: npm test/m.test(x), "b's request in the queue");
    expect(f).toMatch(/b's rule, if it offers one: A allows its like for the rest of the run/);
    await app.press('A');
    f = await app.until((x) => /^› b:\d+\s+b:asker\s.*Bash: rm -rf build/m.test(x), "b's next request");
    const onB = (): { state: string; always_added?: boolean; message: string | null; by: { who: string } }[] => b.json(['approvals', '--all', '--json']);
    expect(onB()[0]).toMatchObject({ state: 'allowed', always_added: true });
    await app.press('n');
    await app.until((x) => /deny b:\d+/.test(x), 'the prompt for the denial, naming b:ID');
    await app.press(...'not on the build box'.split(''), '\r');
    await until(() => b.json<PublicRun>(['show', 'asker']).status === 'ended', 'the run on b to end', 30_000, 100);
    expect(onB()[1]).toMatchObject({ state: 'denied', message: 'not on the build box' });
    expect(agent.answers()[1]).toMatchObject({ response: { response: { behavior: 'deny', message: 'not on the build box' } } });
    await app.until((x) => x.includes('Approvals · none waiting'), 'the queue empty');
  });

  it('a home in no cluster: m says so in the footer and the list stays on its runs', async () => {
    const h = new Home();
    homes.push(h);
    worker(h, 'solo');
    const app = open(h);
    await app.until((x) => x.includes('Runs 1/1') && x.includes('solo'), 'the TUI on its runs');
    await app.press('m');
    const f = await app.until((x) => x.includes('no cluster scope: this supervisor is not in a cluster'), 'the refusal in the footer');
    expect(f).toContain('Runs 1/1');
    expect(f).not.toContain('MACHINE');
    expect(app.store.getState().scope).toBe('machine');
  });
});
