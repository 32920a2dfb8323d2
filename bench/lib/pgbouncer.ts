// A real PgBouncer in front of a test PostgreSQL server, for the cluster's
// pooler tests and bench figures: a `pgbouncer` binary (no npm package ships
// one: Debian's pgbouncer package, which .ci/run installs, or one on the PATH), started here
// in transaction mode (how many teams reach PostgreSQL), trusting the one
// role the test server has. As root it runs as the postgres user (PgBouncer
// refuses to run as root), so its folder is one that user can reach.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { asRoot, freePort, logTail, PG_USER, sbin, serverParent, type PgServer } from './pg-server.js';

function findPgBouncer(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/sbin', '/usr/bin'];
  return dirs.map((d) => path.join(d, 'pgbouncer')).find(executable) ?? null;
}

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Why a PgBouncer cannot be started here, or null when it can. */
export function pgBouncerUnavailable(): string | null {
  if (findPgBouncer() === null)
    return "no pgbouncer binary on the PATH or in /usr/sbin (npm has none to offer): install your system's pgbouncer package (.ci/run does: apt-get install pgbouncer)";
  if (asRoot() && serverParent() === null) return 'running as root, and the postgres user can reach no temp folder for PgBouncer';
  return null;
}

export class PgBouncer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
    /** The upstream URL with host and port replaced by the pooler's. */
    readonly url: string,
  ) {}

  /** Pool `server`'s databases in `mode` (transaction by default). */
  static async start(server: PgServer, mode: 'transaction' | 'session' = 'transaction'): Promise<PgBouncer> {
    const bin = findPgBouncer();
    const parent = serverParent();
    if (!bin || !parent) throw new Error(pgBouncerUnavailable() ?? 'no PgBouncer');
    const up = new URL(server.url);
    const dir = fs.mkdtempSync(path.join(parent, 'orcr-pgbouncer-'));
    try {
      const port = await freePort();
      const user = decodeURIComponent(up.username);
      fs.writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
      fs.writeFileSync(
        path.join(dir, 'pgbouncer.ini'),
        [
          '[databases]',
          `* = host=${up.hostname} port=${up.port}`,
          '[pgbouncer]',
          'listen_addr = 127.0.0.1',
          `listen_port = ${port}`,
          `unix_socket_dir = ${dir}`,
          'auth_type = trust',
          `auth_file = ${path.join(dir, 'users.txt')}`,
          `pool_mode = ${mode}`,
          'default_pool_size = 20',
          'max_client_conn = 500',
          // pg sends extra_float_digits at start-up; PgBouncer refuses startup parameters it does not know unless told to ignore them.
          'ignore_startup_parameters = extra_float_digits',
          'server_reset_query =',
          '',
        ].join('\n'),
      );
      if (asRoot()) execFileSync('chown', ['-R', `${PG_USER}:`, dir]);
      const log = path.join(dir, 'pgbouncer.log');
      const out = fs.openSync(log, 'a');
      const argv = [bin, path.join(dir, 'pgbouncer.ini')];
      const child = asRoot()
        ? spawn(sbin('runuser'), ['-u', PG_USER, '--', ...argv], { stdio: ['ignore', out, out], detached: true })
        : spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', out, out], detached: true });
      fs.closeSync(out);
      const url = new URL(server.url);
      url.port = String(port);
      const bouncer = new PgBouncer(child, dir, port, url.toString());
      const deadline = Date.now() + 20_000;
      for (;;) {
        const c = new pg.Client({ connectionString: bouncer.url, connectionTimeoutMillis: 1000 });
        try {
          await c.connect();
          await c.query('SELECT 1');
          return bouncer;
        } catch (e) {
          if (Date.now() > deadline || child.exitCode !== null) {
            await bouncer.stop();
            throw new Error(`PgBouncer did not accept connections: ${(e as Error).message}; it said:\n${logTail(log)}`);
          }
          await new Promise((r) => setTimeout(r, 50));
        } finally {
          await c.end().catch(() => undefined);
        }
      }
    } catch (e) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** What PgBouncer logged (e.g. `got packet 'A' from server when not linked`). */
  log(): string {
    try {
      return fs.readFileSync(path.join(this.dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      try {
        process.kill(-child.pid!, 'SIGINT');
      } catch {
        child.kill('SIGINT');
      }
      await gone;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
