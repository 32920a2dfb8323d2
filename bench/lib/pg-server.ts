// A real, throw-away PostgreSQL server for the cluster tests and the bench: ORCR_TEST_PG_URL
// when given, else one started here from the machine's PostgreSQL binaries
// (Debian's postgresql package; .ci/run installs it) in a fresh folder under
// the OS temp dir. As root the server runs as the `postgres` user, which must
// own its data folder and reach it: a TMPDIR it cannot enter (a private one
// of root's) gives way to /tmp or /var/tmp. What initdb and the server print
// goes to a file in the folder and is quoted when they fail. It can be
// stopped and started again (the "database went away" tests) and is removed
// at the end, or as soon as it fails to start.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** The binaries of the newest PostgreSQL on this machine, or null. */
export function findPgBin(): string | null {
  const roots = ['/usr/lib/postgresql'];
  for (const root of roots) {
    let versions: string[] = [];
    try {
      versions = fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    } catch {
      continue;
    }
    for (const v of versions) {
      const bin = path.join(root, v, 'bin');
      if (fs.existsSync(path.join(bin, 'initdb')) && fs.existsSync(path.join(bin, 'postgres'))) return bin;
    }
  }
  return null;
}

export const asRoot = (): boolean => process.getuid?.() === 0;

/** Where the server's folder goes: the OS temp dir, or (as root) the first of the usual ones the postgres user can enter. */
export function serverParent(): string | null {
  if (!asRoot()) return os.tmpdir();
  for (const dir of [os.tmpdir(), '/tmp', '/var/tmp']) {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-d', dir, '-a', '-x', dir], { stdio: 'ignore' });
      return dir;
    } catch {
      /* not this one */
    }
  }
  return null;
}

/** Why the cluster tests cannot run here, or null when they can. */
export function pgUnavailable(): string | null {
  if (process.env.ORCR_TEST_PG_URL) return null;
  if (findPgBin() === null) return 'no PostgreSQL here: install Debian\'s postgresql package (.ci/run does) or set ORCR_TEST_PG_URL';
  if (asRoot()) {
    try {
      execFileSync('id', ['postgres'], { stdio: 'ignore' });
    } catch {
      return 'running as root, and there is no postgres user to run the server as';
    }
    if (serverParent() === null) return `running as root, and the postgres user can enter none of ${os.tmpdir()}, /tmp, /var/tmp for the server's folder`;
  }
  return null;
}

/** The last lines a server or initdb wrote to its log file. */
export function logTail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-20).join('\n');
  } catch {
    return '(no output)';
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export class PgServer {
  private child: ChildProcess | null = null;

  private constructor(
    readonly url: string,
    private readonly dir: string | null,
    private readonly bin: string | null,
    private readonly port: number,
  ) {}

  /** The server's folder (data, socket, log), or null for ORCR_TEST_PG_URL's. */
  get folder(): string | null {
    return this.dir;
  }

  private get logFile(): string {
    return path.join(this.dir!, 'server.log');
  }

  /** Start one (or wrap ORCR_TEST_PG_URL). */
  static async start(): Promise<PgServer> {
    if (process.env.ORCR_TEST_PG_URL) return new PgServer(process.env.ORCR_TEST_PG_URL, null, null, 0);
    const bin = findPgBin();
    const parent = serverParent();
    if (!bin || !parent) throw new Error(pgUnavailable() ?? 'no PostgreSQL');
    const dir = fs.mkdtempSync(path.join(parent, 'orcr-pg-'));
    try {
      const root = asRoot();
      if (root) execFileSync('chown', ['postgres:postgres', dir]);
      fs.chmodSync(dir, 0o700);
      const log = path.join(dir, 'initdb.log');
      try {
        runAs(root, path.join(bin, 'initdb'), ['-D', path.join(dir, 'data'), '-U', 'orcr', '--auth=trust', '-E', 'UTF8', '--no-sync'], log);
      } catch (e) {
        throw new Error(`initdb failed (${(e as Error).message.split('\n')[0]}):\n${logTail(log)}`);
      }
      const port = await freePort();
      const server = new PgServer(`postgres://orcr@127.0.0.1:${port}/postgres`, dir, bin, port);
      await server.resume();
      return server;
    } catch (e) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw e;
    }
  }

  /** (Re)start the server on its data folder, and wait until it answers. */
  async resume(): Promise<void> {
    if (!this.dir || this.child) return;
    const root = asRoot();
    const args = ['-D', path.join(this.dir, 'data'), '-p', String(this.port), '-k', this.dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'];
    const cmd = root ? 'runuser' : path.join(this.bin!, 'postgres');
    const argv = root ? ['-u', 'postgres', '--', path.join(this.bin!, 'postgres'), ...args] : args;
    // To a file, not a pipe: the server outlives no reader, and a pipe nobody drains would stall it.
    const out = fs.openSync(this.logFile, 'a');
    this.child = spawn(cmd, argv, { stdio: ['ignore', out, out], detached: true });
    fs.closeSync(out);
    const child = this.child;
    child.on('exit', () => {
      if (this.child === child) this.child = null;
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const c = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('SELECT 1');
        return;
      } catch (e) {
        if (Date.now() > deadline || (this.child === null && child.exitCode !== null)) {
          throw new Error(`PostgreSQL did not accept connections: ${(e as Error).message}; the server said:\n${logTail(this.logFile)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      } finally {
        await c.end().catch(() => undefined);
      }
    }
  }

  /** Stop it (fast shutdown: clients are disconnected), keeping its data. */
  async pause(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      process.kill(-child.pid!, 'SIGINT');
    } catch {
      child.kill('SIGINT');
    }
    await gone;
    this.child = null;
  }

  async destroy(): Promise<void> {
    await this.pause();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Run a PostgreSQL program to its end (as the postgres user when root), its output to `log`. */
function runAs(root: boolean, file: string, args: string[], log: string): void {
  const out = fs.openSync(log, 'a');
  try {
    const opts = { stdio: ['ignore', out, out] as ['ignore', number, number] };
    if (root) execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], opts);
    else execFileSync(file, args, opts);
  } finally {
    fs.closeSync(out);
  }
}
