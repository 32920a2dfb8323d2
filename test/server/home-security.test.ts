// The home against other local users: the single-instance lock cannot be
// squatted, the journal, the log and the lock file are 0600 whatever the
// umask, and a home reached through a link is resolved once and used by that
// path, through links no one else controls. Real supervisors, real
// processes, a real other user when root.

import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { itWhen } from '../support/skip.js';
import { Journal } from '../../src/journal/journal.js';
import { lockFile } from '../../src/journal/home-lock.js';
import { alive, CLI, lineReader, NODE, ROOT, until, useHomes } from '../support/harness.js';

const home = useHomes();
const isRoot = process.getuid?.() === 0;
/** Another user's files need root to make. */
const ROOT_NEED = { reason: isRoot ? null : "not root: another user's file cannot be made", optional: true };
const NOBODY = 65_534;

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

const mode = (file: string): number => fs.statSync(file).mode & 0o777;

/** `orcr serve` processes for this home, still running. */
function supervisors(dir: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => {
      try {
        const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv.includes('serve') && fs.readFileSync(`/proc/${pid}/environ`, 'utf8').includes(`ORCR_HOME=${dir}\0`) && alive(pid);
      } catch {
        return false;
      }
    });
}

describe('the single-instance lock', () => {
  it('starts even when another user has bound the lock name older versions used', async () => {
    const h = home();
    // What anyone who knows the home's path could do: hash it and bind the name first.
    const old = '\0orcr-lock-' + crypto.createHash('sha256').update(h.dir).digest('hex').slice(0, 32);
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(old, resolve));
    closers.push(() => squatter.close());
    const r = h.cli(['ps']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(h.serverPid()).not.toBeNull();
  });

  itWhen(ROOT_NEED, 'another user cannot open the lock file, so cannot hold the lock', () => {
    const h = home();
    h.cli(['ps']);
    const lock = path.join(h.dir, 'server.lock');
    expect(mode(lock)).toBe(0o600);
    // Really another user: nobody tries to open it for reading and for writing (a read lock would do to block us).
    // Through /bin/sh, not this Node.js: a Node under /root (CI's Node 24) is one nobody cannot even start.
    for (const redirect of ['<', '<>']) {
      const r = spawnSync('/bin/sh', ['-c', `: ${redirect} "$1"`, 'sh', lock], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
      expect(r.error).toBeUndefined();
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/Permission denied/);
    }
  });

  it('racing starters end with exactly one supervisor; the others exit 7', async () => {
    const h = home();
    const codes = await Promise.all(
      Array.from({ length: 5 }, () => {
        const c = spawn(NODE, [CLI, 'serve'], { env: h.env, stdio: ['ignore', 'ignore', 'pipe'] });
        return new Promise<number | null>((resolve) => {
          // The winner keeps running: it counts as "still running" once the losers have all exited.
          c.on('exit', (code) => resolve(code));
          c.stderr.on('data', (d: Buffer) => {
            if (d.toString().includes('supervisor ready')) resolve(null);
          });
        });
      }),
    );
    expect(codes.filter((c) => c === null)).toHaveLength(1);
    expect(codes.filter((c) => c === 7)).toHaveLength(4);
    await until(() => supervisors(h.dir).length === 1, 'exactly one supervisor');
  });

  it('a killed supervisor leaves no lock behind', async () => {
    const h = home();
    h.cli(['ps']);
    const pid = h.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 'the supervisor to die');
    expect(h.cli(['ps']).code).toBe(0);
    expect(h.serverPid()).not.toBe(pid);
  });

  it('lockFile: held until closed, refused while held, and not through a link', () => {
    const h = home();
    const file = path.join(h.dir, 'x.lock');
    const a = lockFile(file);
    expect(a).not.toBeNull();
    expect(lockFile(file)).toBeNull();
    a!.close();
    const b = lockFile(file);
    expect(b).not.toBeNull();
    b!.close();
    expect(fs.statSync(file).size).toBe(0); // nothing written, no journal file beside it
    expect(fs.readdirSync(h.dir).filter((f) => f.startsWith('x.lock'))).toEqual(['x.lock']);
    const link = path.join(h.dir, 'link.lock');
    fs.symlinkSync(file, link);
    expect(() => lockFile(link)).toThrow(`cannot open the lock file ${link}: ELOOP`);
  });
});

describe('file modes', () => {
  it('orcr.db (and its -wal, -shm), server.log and server.lock are 0600 under umask 000, and looser ones are tightened', async () => {
    const h = home();
    // Files an older orcr, or a loose umask, left readable by everyone.
    for (const f of ['server.log', 'orcr.db', 'server.lock']) {
      fs.writeFileSync(path.join(h.dir, f), '', { mode: 0o666 });
      fs.chmodSync(path.join(h.dir, f), 0o666);
    }
    const r = spawnSync('/bin/sh', ['-c', 'umask 000; exec "$@"', 'sh', NODE, CLI, 'run', '-n', 'x', '--', 'true'], { env: h.env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    // Made while the supervisor runs: the WAL files exist only while the journal is open.
    for (const f of ['orcr.db', 'orcr.db-wal', 'orcr.db-shm', 'server.log', 'server.lock', 'orcr.sock']) {
      expect(mode(path.join(h.dir, f)), f).toBe(0o600);
    }
  });

  it("a run's own files (out, err, status) are 0600 under umask 000, and its agent gets the supervisor's umask for what it makes", async () => {
    const h = home();
    const umask0 = (args: string[]) => spawnSync('/bin/sh', ['-c', 'umask 000; exec "$@"', 'sh', NODE, CLI, ...args], { env: h.env, encoding: 'utf8' });
    const r = umask0(['run', '-n', 'm', '--json', '--cwd', h.dir, '--', 'sh', '-c', 'echo out; echo err >&2; touch made; umask']);
    expect(r.status, r.stderr).toBe(0);
    const { uuid, cwd } = JSON.parse(r.stdout) as { uuid: string; cwd: string };
    expect(umask0(['wait', 'm']).status).toBe(0);
    const dir = path.join(h.dir, 'runs', uuid);
    for (const f of ['out', 'err', 'status']) expect(mode(path.join(dir, f)), f).toBe(0o600);
    expect(fs.readFileSync(path.join(dir, 'out'), 'utf8')).toBe('out\n0000\n');
    expect(mode(path.join(cwd, 'made'))).toBe(0o666);
  });

  it('a fresh journal under umask 000 makes its files 0600', () => {
    const h = home();
    const file = path.join(h.dir, 'fresh.db');
    const mod = JSON.stringify(path.join(ROOT, 'dist/src/journal/journal.js'));
    const code = `import { Journal } from ${mod}; new Journal(${JSON.stringify(file)}).appendEvent(null, { type: 'x' }); process.stdout.write('ok');`;
    // Still open when the check runs? No: checked after exit, so the WAL files are gone; the database keeps its mode.
    const r = spawnSync('/bin/sh', ['-c', 'umask 000; exec "$@"', 'sh', NODE, '--input-type=module', '-e', code], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok');
    expect(mode(file)).toBe(0o600);
  });

  it('the journal tightens a looser database, WAL and shared-memory file it opens', () => {
    const h = home();
    const file = path.join(h.dir, 'loose.db');
    new Journal(file).close();
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      fs.writeFileSync(f, fs.existsSync(f) ? fs.readFileSync(f) : Buffer.alloc(0));
      fs.chmodSync(f, 0o644);
    }
    const j = new Journal(file);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f), f).toBe(0o600);
    j.close();
  });
});

describe('a home reached through links', () => {
  /** A link at `at` pointing to `to`, replacing whatever is there. */
  const link = (to: string, at: string): void => {
    fs.rmSync(at, { force: true });
    fs.symlinkSync(to, at);
  };

  it('is resolved once: the supervisor, its socket, its runs and its log live at the real path', async () => {
    const h = home();
    const shared = fs.mkdtempSync(path.join(path.dirname(h.dir), 'orcr-shared-'));
    closers.push(() => fs.rmSync(shared, { recursive: true, force: true }));
    const via = path.join(shared, 'home');
    link(h.dir, via);
    const env = { ...h.env, ORCR_HOME: via };
    const r = h.cli(['run', '-n', 'where', '--', 'sh', '-c', 'echo "$ORCR_HOME"'], { env });
    expect(r.stderr).toBe('');
    expect(h.cli(['wait', 'where'], { env }).stdout).toBe('where completed\n');
    expect(h.cli(['logs', 'where'], { env }).stdout).toBe(`${h.dir}\n`);
    const st = JSON.parse(h.cli(['server', 'status', '--json'], { env }).stdout) as { pid: number; home: string };
    expect(st.home).toBe(h.dir);
    // The supervisor was started with the real path, so it never looks at the link again.
    expect(fs.readFileSync(`/proc/${st.pid}/environ`, 'utf8').split('\0')).toContain(`ORCR_HOME=${h.dir}`);
    expect(fs.existsSync(path.join(h.dir, 'orcr.sock'))).toBe(true);
  });

  it('a client that reconnects goes back to the home it resolved, not to where the link points now', async () => {
    const a = home();
    const b = home();
    const shared = fs.mkdtempSync(path.join(path.dirname(a.dir), 'orcr-shared-'));
    closers.push(() => fs.rmSync(shared, { recursive: true, force: true }));
    const via = path.join(shared, 'home');
    link(a.dir, via);
    const go = path.join(a.dir, 'go');
    expect(a.cli(['run', '-n', 'gate', '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.05; done`], { env: { ...a.env, ORCR_HOME: via } }).code).toBe(0);
    const waiter = spawn(NODE, [CLI, 'wait', 'gate'], { env: { ...a.env, ORCR_HOME: via }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = lineReader(waiter);
    // 'close', not 'exit': its last line may still be in the pipe when it exits.
    const exited = new Promise<number | null>((r) => waiter.on('close', (code) => r(code)));
    // Connected: the supervisor counts the waiter among its clients (this status call is the other).
    await until(() => (JSON.parse(a.cli(['server', 'status', '--json']).stdout) as { clients: number }).clients >= 2, 'the waiter to connect');
    // The link now points at another home with its own supervisor, and a's supervisor dies.
    expect(b.cli(['ps']).code).toBe(0);
    link(b.dir, via);
    const pid = a.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), "a's supervisor to die");
    expect(a.cli(['ps']).code).toBe(0);
    fs.writeFileSync(go, '');
    expect(await exited).toBe(0);
    expect(out.lines).toEqual(['gate completed']);
  });

  itWhen(ROOT_NEED, 'refuses a home reached through a link someone else owns, anywhere on the way (as root: the link is chowned to nobody)', () => {
    const h = home();
    const shared = fs.mkdtempSync(path.join(path.dirname(h.dir), 'orcr-shared-'));
    closers.push(() => fs.rmSync(shared, { recursive: true, force: true }));
    const theirs = path.join(shared, 'theirs');
    link(h.dir, theirs);
    fs.lchownSync(theirs, NOBODY, NOBODY);
    const refused = (dir: string, through: string): void => {
      const r = h.cli(['ps'], { env: { ...h.env, ORCR_HOME: dir } });
      expect(r.code, dir).toBe(2);
      expect(r.stderr).toBe(
        `orcr: ORCR_HOME ${dir} is reached through the link ${through}, owned by uid ${NOBODY} (not you, uid 0, or root): its owner can point it anywhere; give the path it leads to\n`,
      );
    };
    // The home itself, a folder above it, and a link of ours that leads through theirs.
    refused(theirs, theirs);
    const parentLink = path.join(shared, 'up');
    link(path.dirname(h.dir), parentLink);
    fs.lchownSync(parentLink, NOBODY, NOBODY);
    refused(path.join(parentLink, path.basename(h.dir)), parentLink);
    const ours = path.join(shared, 'ours');
    link(theirs, ours);
    refused(ours, theirs);
    expect(h.serverPid()).toBeNull();
    // A link root or we own is fine.
    const fine = path.join(shared, 'fine');
    link(h.dir, fine);
    expect(h.cli(['ps'], { env: { ...h.env, ORCR_HOME: fine } }).code).toBe(0);
  });
});
