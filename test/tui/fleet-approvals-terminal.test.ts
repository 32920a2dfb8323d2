// Issue 43's acceptance for the TUI, in a real terminal (a pseudo-terminal
// read by a terminal emulator, test/support/terminal.ts), 80x24 and
// NO_COLOR: an agent on machine b asks before its tool; machine a's TUI, in
// cluster scope (`m`), lists the request in its approvals queue as `b:ID`;
// `y` answers it (approval.answer with that id, forwarded through the
// cluster's database to b's supervisor), and the agent on b goes on and
// completes. And a viewer (cluster.viewer, a role that can only SELECT):
// `orcr-tui --cluster` opens on the fleet, and a kill from it is refused,
// saying why. Real supervisors, a real PostgreSQL server, no mocks.

import './no-ci.js';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ClusterRunsReply } from '../../src/protocol/results.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { askingAgent } from '../support/asking-agent.js';
import { ROOT, until } from '../support/harness.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';
import { Home } from './home.js';
import { Term } from './term.js';

const need = pgNeed();
let server: PgServer;
let homes: Home[] = [];
let term: Term | null = null;

if (!need.reason) {
  beforeAll(async () => {
    server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });
}

afterEach(() => {
  term?.kill();
  term = null;
  for (const h of homes) h.cleanup();
  homes = [];
});

describeWhen(need, `the approvals queue in cluster scope, in a real terminal ${onPg()}`, () => {
  it("a request pending on b is answered from a's TUI (m, !, y) and b's agent goes on", async () => {
    const name = `tuiq${process.pid}`;
    const [a, b] = ['a', 'b'].map((host) => new Home({ cluster: { url: server.url, name, host, lease_ttl: '1500ms', stale_after: '3s' } }));
    homes.push(a!, b!);
    for (const m of [a!, b!]) expect(m.cli(['stats']).code).toBe(0);
    const agent = askingAgent(b!, 'asker', { asks: [{ tool: 'Bash', input: { command: 'npm test' } }] });
    b!.run(['-n', 'asker', '--protocol', 'claude', '-p', 'go', '--', ...agent.argv]);
    const onA = (): ClusterRunsReply => a!.json<ClusterRunsReply>(['ps', '--cluster', '--all']);
    const face = await until(
      () => onA().runs.find((r) => r.ref === 'b:asker' && r.status === 'blocked' && r.approvals.length === 1),
      'a to see b:asker blocked on its request',
      30_000,
      100,
    );
    const id = face.approvals[0]!.id;

    term = new Term(a!, 80, 24);
    term.start('a');
    const t = term;
    await t.waitFor((x) => x.includes('Runs · this machine'), "a's TUI");
    t.keys('m');
    await t.waitFor((x) => /Runs · cluster \S+ \(2 machines\)/.test(x) && x.includes('b:asker'), 'cluster scope');
    const counted = await t.waitFor((x) => x.includes('⚑ 1 to approve'), "the header counting b's request");
    expect(counted).toMatch(/^. b\s+▲ blocked\s+.*b:asker/m);
    t.keys('!');
    const q = await t.waitFor((x) => x.includes('Approvals · 1 waiting'), 'the queue');
    // The request is named as another machine's: its id b:ID, its run b:asker, its machine said.
    expect(q).toMatch(new RegExp(`^› b:${id}\\s+b:asker\\s+\\S+\\s+\\S.*Bash: npm test`, 'm'));
    expect(q).toMatch(new RegExp(`b:${id} · Bash · on b`));
    expect(q.split('\n').every((l) => l.length <= 80)).toBe(true);

    t.keys('y');
    await t.waitFor((x) => x.includes('Approvals · none waiting'), 'the request answered');
    await until(() => b!.json<PublicRun>(['show', 'asker']).status === 'ended', 'the run on b to end', 30_000, 100);
    expect(b!.json<PublicRun>(['show', 'asker'])).toMatchObject({ status: 'ended', exit_reason: 'completed' });
    expect(agent.answers()[0]).toMatchObject({ response: { response: { behavior: 'allow' } } });
    // b recorded who answered: a's TUI, through the cluster.
    const decided = b!.json<{ id: number; state: string; by: { via: string; who: string } }[]>(['approvals', '--all', '--json']).find((r) => r.id === id);
    expect(decided).toMatchObject({ state: 'allowed', by: { via: 'tui' } });
    expect(decided!.by.who).toMatch(/ on a \(via cluster\)$/);
  });

  it('a viewer with a role that can only SELECT: orcr-tui --cluster opens on the fleet; x on a run is refused, saying why', async () => {
    const name = `tuiv${process.pid}`;
    const a = new Home({ cluster: { url: server.url, name, host: 'a', lease_ttl: '1500ms', stale_after: '3s' } });
    homes.push(a);
    expect(a.cli(['stats']).code).toBe(0);
    a.run(['-n', 'seen', '--', 'sh', '-c', `while [ ! -f ${path.join(a.dir, 'go')} ]; do sleep 0.05; done`]);
    const pg = (await import('pg')).default;
    const admin = new pg.Client(server.url);
    await admin.connect();
    const role = `tui_viewer_${process.pid}`;
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      // The grants the README gives a viewer, and no more.
      const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
      await admin.query(readme.match(/```sql\n(GRANT SELECT ON [^`]*TO orcr_viewer;\n)```/)![1]!.replaceAll('orcr_viewer', role));
      const viewer = new Home({ cluster: { url: server.url.replace(/orcr@/, `${role}@`), name, host: 'desk', viewer: true } });
      homes.push(viewer);
      expect(viewer.cli(['stats']).code).toBe(0);

      term = new Term(viewer, 80, 24);
      term.start('viewer', ['--cluster']);
      const t = term;
      const f = await t.waitFor((x) => /Runs · cluster \S+ \(1 machine\)/.test(x) && /^. a\s+● working\s+a:seen/m.test(x), 'the fleet, at once');
      expect(f).toMatch(/MACHINE\s+STATUS/);
      t.keys('x');
      await t.waitFor((x) => x.includes('kill a:seen?'), 'the question');
      t.keys('y');
      await t.waitFor((x) => /✗ kill a:seen: this home reads cluster "\S+" and is not one of/.test(x), 'the refusal in the footer (cut at 80 columns)');
      expect(a.json<PublicRun>(['show', 'seen']).status).toBe('working');
    } finally {
      await admin.query(`REASSIGN OWNED BY ${role} TO orcr; DROP OWNED BY ${role}`).catch(() => undefined);
      await admin.end();
    }
  });
});
