// The throw-away PostgreSQL server the cluster suites start: it must start
// wherever the tests are run from (as root, the server runs as the postgres
// user, who cannot enter a private TMPDIR), say what the server said when it
// does not start, and leave no folder behind either way.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { onPg, PgServer, pgUnavailable } from '../support/pg.js';
import { describeWhen, itWhen } from '../support/skip.js';

const skip = pgUnavailable() ?? (process.env.ORCR_TEST_PG_URL ? 'ORCR_TEST_PG_URL is set: no server is started here' : null);
const asRoot = process.getuid?.() === 0;

const saved = process.env.TMPDIR;
afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

describeWhen({ reason: skip, optional: process.env.ORCR_TEST_PG_URL !== undefined }, `the test PostgreSQL server (${onPg()})`, () => {
  itWhen(
    { reason: asRoot ? null : 'not root: the server runs as the user who runs the tests', optional: true },
    'as root, starts from a TMPDIR the postgres user cannot enter, and leaves nothing behind',
    async () => {
      const priv = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-private-tmp-'));
      fs.chmodSync(priv, 0o700);
      try {
        expect(() => execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-x', priv])).toThrow();
        process.env.TMPDIR = priv;
        const server = await PgServer.start();
        try {
          const pg = (await import('pg')).default;
          const c = new pg.Client(server.url);
          await c.connect();
          expect((await c.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
          await c.end();
        } finally {
          await server.destroy();
        }
        expect(fs.readdirSync(priv)).toEqual([]);
      } finally {
        fs.rmSync(priv, { recursive: true, force: true });
      }
    },
  );

  itWhen(null, 'a server that cannot start says what PostgreSQL said, and its folder is removed', async () => {
    const server = await PgServer.start();
    const dir = server.folder!;
    try {
      await server.pause();
      fs.appendFileSync(path.join(dir, 'data', 'postgresql.conf'), '\nno_such_setting_here = 1\n');
      const err = (await server.resume().catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toMatch(/no_such_setting_here/);
    } finally {
      await server.destroy();
    }
    expect(fs.existsSync(dir)).toBe(false);
  });
});
