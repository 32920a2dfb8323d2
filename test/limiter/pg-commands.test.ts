// Commands between machines as rows of orcr_command (limiter/pg-commands.ts),
// on a real PostgreSQL server: taken once, and only while fresh; what an
// earlier supervisor of a machine took and left unanswered found by the next;
// old rows cleaned — answered ones after the keep, any after a day — and
// nothing else.

import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ClusterDb } from '../../src/limiter/pg-db.js';
import { PgCommands } from '../../src/limiter/pg-commands.js';
import { CLUSTER_SCHEMA } from '../../src/limiter/pg-schema.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';

const need = pgNeed();
let server: PgServer;
let admin: pg.Client;
let db: ClusterDb;

describeWhen(need, `commands between machines, as rows ${onPg()}`, () => {
  beforeAll(async () => {
    if (need.reason !== null) return;
    server = await PgServer.start();
    admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query(CLUSTER_SCHEMA);
    db = new ClusterDb(server.url, Date.now);
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await admin?.end();
    await server?.destroy();
  });

  const send = async (from: PgCommands, to: string, method = 'run.kill'): Promise<string> => {
    const sent = await from.send(to, method, { refs: ['x'] }, () => null);
    if (!('id' in sent)) throw new Error(sent.message);
    return sent.id;
  };
  const ids = async (cluster: string): Promise<string[]> =>
    (await admin.query<{ id: string }>('SELECT id FROM orcr_command WHERE cluster = $1 ORDER BY id', [cluster])).rows.map((r) => String(r.id));
  const age = (id: string, column: 'created_at' | 'done_at', interval: string): Promise<unknown> =>
    admin.query(`UPDATE orcr_command SET ${column} = now() - $2::interval WHERE id = $1`, [id, interval]);

  it('taken once, and only while fresh; an old one is left for its caller to withdraw', async () => {
    const a = new PgCommands(db, 'take', 'a');
    const b = new PgCommands(db, 'take', 'b');
    const fresh = await send(a, 'b');
    const stale = await send(a, 'b');
    await age(stale, 'created_at', '1 minute');
    const [first, second] = await Promise.all([b.take(10_000), b.take(10_000)]);
    expect([...first, ...second].map((c) => c.id)).toEqual([fresh]);
    expect(await a.state(fresh)).toEqual({ taken: true, answer: null });
    expect(await a.withdraw(fresh)).toBe(false);
    expect(await a.withdraw(stale)).toBe(true);
    expect(await a.state(stale)).toBeNull();
  });

  it("what an earlier supervisor took and left unanswered is found by the next, with its age; no other machine's, none untaken or answered", async () => {
    const a = new PgCommands(db, 'orphans', 'a');
    const b = new PgCommands(db, 'orphans', 'b');
    const c = new PgCommands(db, 'orphans', 'c');
    const left = await send(a, 'b', 'run.wait');
    const answered = await send(a, 'b');
    await b.take(10_000);
    await b.answer({ id: answered, from_host: 'a' }, { result: { ok: true } });
    await send(a, 'b');
    const others = await send(a, 'c');
    await c.take(10_000);
    await age(left, 'created_at', '5 seconds');
    const found = await b.orphans();
    expect(found.map((x) => [x.id, x.from_host, x.method])).toEqual([[left, 'a', 'run.wait']]);
    expect(found[0]!.age_ms).toBeGreaterThanOrEqual(5_000);
    expect(found[0]!.age_ms).toBeLessThan(60_000);
    expect((await c.orphans()).map((x) => x.id)).toEqual([others]);
  });

  it('cleaned: answered rows past the keep, any row past a day; waiting, taken and freshly answered ones stay', async () => {
    const a = new PgCommands(db, 'clean', 'a');
    const b = new PgCommands(db, 'clean', 'b');
    const elsewhere = new PgCommands(db, 'other', 'a');
    const oldAnswer = await send(a, 'b');
    const newAnswer = await send(a, 'b');
    const taken = await send(a, 'b');
    await b.take(10_000);
    for (const id of [oldAnswer, newAnswer]) await b.answer({ id, from_host: 'a' }, { result: null });
    await age(oldAnswer, 'done_at', '2 hours');
    const waiting = await send(a, 'b');
    const ancient = await send(a, 'b');
    await age(ancient, 'created_at', '25 hours');
    const otherCluster = await send(elsewhere, 'b');
    await age(otherCluster, 'created_at', '25 hours');
    expect(await a.clean(3_600_000)).toBe(2);
    expect(await ids('clean')).toEqual([newAnswer, taken, waiting].sort((x, y) => Number(x) - Number(y)));
    expect(await ids('other')).toEqual([otherCluster]);
  });
});
