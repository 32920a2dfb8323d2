// The operating system's limits met gracefully (issue 26): a supervisor out of
// file descriptors or processes does not crash, does not misrecord an exit,
// and starts what it could not start once it can. Real supervisors under
// real limits (prlimit), real agents, real sockets.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { alive, CLI, NODE, ROOT, until, useHomes, type TestHome } from '../support/harness.js';
import { initRepo } from '../support/git.js';
import { remote, type Remote } from '../support/in-process.js';
import { itWhen } from '../support/skip.js';

const home = useHomes();

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0).reverse()) c();
});

interface Limited {
  child: ChildProcess;
  pid: number;
  /** Everything it wrote to stderr (its log, in the foreground). */
  log: () => string;
  client: Remote;
}

/** `orcr serve` in the foreground under `prefix` (prlimit, setpriv), ready once it answers. */
async function serveUnder(h: TestHome, prefix: string[]): Promise<Limited> {
  const argv = [...prefix, NODE, CLI, 'serve'];
  const child = spawn(argv[0]!, argv.slice(1), { env: h.env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (c: string) => (err += c));
  closers.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const client = remote(h.dir);
  closers.push(() => client.disconnect());
  await until(
    async () => (await client.call('stats')) !== undefined,
    () => `the supervisor to answer: ${err}`,
  );
  return { child, pid: child.pid!, log: () => err, client };
}

const fdCount = (pid: number): number => fs.readdirSync(`/proc/${pid}/fd`).length;

/** Connections that hold the supervisor's descriptors until closed. */
async function flood(socketPath: string, n: number): Promise<net.Socket[]> {
  const socks: net.Socket[] = [];
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve) => {
          const s = net.connect(socketPath);
          s.on('error', () => resolve());
          s.on('connect', () => resolve());
          s.on('close', () => resolve());
          socks.push(s);
        }),
    ),
  );
  closers.push(() => socks.forEach((s) => s.destroy()));
  return socks;
}

describe('out of file descriptors', () => {
  it('records the exit status it could not read at once, starts the run it could not start, and never crashes', async () => {
    const h = home();
    const s = await serveUnder(h, ['prlimit', '--nofile=200:200', '--']);
    const go = path.join(h.dir, 'go');
    const a = await s.client.run(['--name', 'a', '--', '/bin/sh', '-c', 'while [ ! -e "$0" ]; do sleep 0.05; done; echo done', go]);
    await until(async () => (await s.client.show(a.uuid)).status === 'working', 'a working');

    // Every descriptor the supervisor may open taken by idle connections.
    const socks = await flood(path.join(h.dir, 'orcr.sock'), 260);
    await until(
      () => fdCount(s.pid) >= 195,
      () => `the supervisor's descriptors used up (${fdCount(s.pid)})`,
    );
    expect(alive(s.pid)).toBe(true);

    // A run queued now cannot be started (a directory, a pipe, a process: each needs a descriptor).
    const b = await s.client.run(['--name', 'b', '--', '/bin/sh', '-c', 'echo b']);
    // a ends while its status file cannot be opened.
    fs.writeFileSync(go, '');
    await until(
      () => /status of .* unreadable|limit reached/.test(s.log()),
      () => `the supervisor to say it is at a limit: ${s.log()}`,
    );
    expect(alive(s.pid)).toBe(true);
    await until(
      async () => (await s.client.events()).some((e: { type: string }) => e.type === 'resource_limit'),
      () => `the fleet told of the limit: ${s.log()}`,
    );
    const told = await s.client.events();
    expect(told.filter((e: { type: string }) => e.type === 'resource_limit').length).toBe(1);
    expect((await s.client.show(b.uuid)).status).toBe('starting');

    // Descriptors back: a is recorded as it ended, b starts and completes.
    for (const sock of socks) sock.destroy();
    await until(async () => (await s.client.show(a.uuid)).status === 'ended', 'a ended');
    await until(async () => (await s.client.show(b.uuid)).status === 'ended', 'b ended');
    const [ra, rb] = [await s.client.show(a.uuid), await s.client.show(b.uuid)];
    expect([ra.exit_reason, ra.exit_code]).toEqual(['completed', 0]);
    expect([rb.exit_reason, rb.exit_code]).toEqual(['completed', 0]);
    expect(alive(s.pid)).toBe(true);
    expect(s.child.exitCode).toBeNull();
  });

  it('holds no descriptor per idle live run', async () => {
    const h = home({ concurrency: { max: 100 } });
    const s = await serveUnder(h, []);
    const before = fdCount(s.pid);
    const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => s.client.run(['--name', `idle-${i}`, '--', 'sleep', '60'])));
    await until(async () => (await s.client.ps({ status: 'working' })).length === runs.length, 'all working');
    // A few for the spawn helper or a connection, not one per run.
    expect(fdCount(s.pid) - before).toBeLessThan(10);
  });
});

let cgroups = 0;

/** Kill whatever is left in a test's cgroup and remove it (a spawn helper forked under its limit can hang in Node's start-up for ever). */
function dropCgroup(dir: string): void {
  try {
    fs.writeFileSync(path.join(dir, 'pids.max'), 'max');
    const members = (): number[] => fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    for (let i = 0; i < 100 && members().length > 0; i++) {
      // cgroup v1 has no cgroup.kill: each member by its pid.
      for (const pid of members()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
    fs.rmdirSync(dir);
  } catch {
    /* gone already, or not ours */
  }
}
/** A pids cgroup of our own (cgroup v1 here, v2 elsewhere), or why not: the process limit does not bind root, a cgroup's does. */
function pidsCgroup(): { dir: string } | { reason: string } {
  for (const base of ['/sys/fs/cgroup/pids', '/sys/fs/cgroup']) {
    if (!fs.existsSync(path.join(base, 'cgroup.procs'))) continue;
    const dir = path.join(base, `orcr-test-${process.pid}-${Date.now()}-${++cgroups}`);
    try {
      fs.mkdirSync(dir);
      if (fs.existsSync(path.join(dir, 'pids.max'))) return { dir };
      fs.rmdirSync(dir);
    } catch {
      /* not ours to make */
    }
  }
  return { reason: 'no pids cgroup can be made here (needs root and a pids controller)' };
}

/** A test in a pids cgroup of its own (made now, emptied and removed after it), skipped with the reason where none can be made. */
function itInPidsCgroup(title: string, body: (dir: string) => Promise<void>): void {
  const cg = pidsCgroup();
  itWhen({ reason: 'reason' in cg ? cg.reason : null, optional: true }, title, async () => {
    const dir = (cg as { dir: string }).dir;
    closers.push(() => dropCgroup(dir));
    await body(dir);
  });
}

/** The argv prefix that runs a command inside the cgroup `dir`. */
const inCgroup = (dir: string): string[] => ['/bin/sh', '-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'in-cgroup'];

describe('out of processes', () => {
  itInPidsCgroup('a burst past the process limit waits and is retried; every run completes, the supervisor stays up', async (dir) => {
    const h = home({ concurrency: { max: 40 } });
    const s = await serveUnder(h, inCgroup(dir));
    // Room for the supervisor's own threads (they count) and a few runs, not for 40 at once.
    const current = Number(fs.readFileSync(path.join(dir, 'pids.current'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'pids.max'), String(current + 12));
    const res = await s.client.call<{ runs: { uuid: string }[] }>('run.enqueue', {
      specs: Array.from({ length: 40 }, (_, i) => ({ name: `burst-${i}`, command: ['sleep', '0.3'], cwd: h.dir })),
    });
    await until(
      () => /limit reached/.test(s.log()),
      () => `the supervisor to say it is at a limit: ${s.log()}`,
    );
    expect(alive(s.pid)).toBe(true);
    await until(async () => (await s.client.ps({ all: true })).every((r) => r.status === 'ended'), 'every run ended', 60_000, 200);
    const runs = await s.client.ps({ all: true });
    expect(runs.length).toBe(res.runs.length);
    expect(
      runs.filter((r) => r.exit_reason !== 'completed' || r.exit_code !== 0).map((r) => `${r.name} ${r.exit_reason} ${r.exit_code} ${r.exit_detail}`),
    ).toEqual([]);
    expect((await s.client.events()).filter((e: { type: string }) => e.type === 'resource_limit').length).toBeGreaterThanOrEqual(1);
    expect(s.child.exitCode).toBeNull();
    fs.writeFileSync(path.join(dir, 'pids.max'), 'max');
  });

  /**
   * A client in the cgroup `dir`, up with its threads (V8's, libuv's pool) before the cgroup is
   * closed behind it to `room` more tasks; then its first call, which starts a supervisor.
   */
  async function clientUnderLimit(dir: string, h: TestHome, room: number, timeoutMs: number): Promise<{ code: string; message: string } | 'connected'> {
    const script = `
      import fs from 'node:fs';
      const { Client } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/client/client.js'))});
      const { ensureHome } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/config/home.js'))});
      await import(${JSON.stringify(path.join(ROOT, 'dist/src/config/load.js'))});
      await fs.promises.stat('.');
      process.stdout.write('ready\\n');
      process.stdin.once('data', async () => {
        try {
          await Client.connect(ensureHome(process.env.ORCR_HOME), { timeoutMs: ${timeoutMs} });
          process.stdout.write('"connected"\\n');
        } catch (e) {
          process.stdout.write(JSON.stringify({ code: e.code, message: e.message }) + '\\n');
        }
        process.exit(0);
      });`;
    const [sh, ...args] = [...inCgroup(dir), NODE, '--input-type=module', '-e', script];
    const child = spawn(sh, args, { env: h.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(
      () => out.includes('ready'),
      () => `the client to be up: ${err}`,
    );
    const current = Number(fs.readFileSync(path.join(dir, 'pids.current'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'pids.max'), String(current + room));
    child.stdin.end('go\n');
    expect(await closed, err).toBe(0);
    return JSON.parse(out.split('\n')[1]!) as { code: string; message: string } | 'connected';
  }

  itInPidsCgroup('a client that cannot fork a supervisor says the process limit is reached (it threw out with a stack)', async (dir) => {
    const h = home();
    expect(await clientUnderLimit(dir, h, 0, 10_000)).toEqual({
      code: 'unavailable',
      message: 'the supervisor failed to start: could not start its process: the process limit is reached (EAGAIN)',
    });
    expect(fs.existsSync(path.join(h.dir, 'orcr.sock'))).toBe(false);
  });

  itInPidsCgroup(
    "a supervisor that hangs in Node's own start-up (no room for its threads) is stopped by the client that started it, which says why",
    async (dir) => {
      const h = home();
      // Room for the process and one thread: Node's platform then waits for ever for the workers it could not create.
      const said = await clientUnderLimit(dir, h, 2, 5_000);
      expect(said).toMatchObject({ code: 'unavailable' });
      expect((said as { message: string }).message).toMatch(
        /^the supervisor's process \(pid \d+\) never began to run and was stopped: the machine may be out of processes or threads/,
      );
      // Nothing of it left behind (it left a process for ever, holding a slot of the limit it was short of).
      await until(
        () => fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').trim() === '',
        () => `the cgroup to empty: ${fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8')}`,
      );
    },
  );

  itInPidsCgroup('a run whose worktree git cannot make for want of a process waits, and starts in it once there is room', async (dir) => {
    const repo = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-repo-')));
    closers.push(() => fs.rmSync(repo, { recursive: true, force: true }));
    initRepo(repo, { 'f.txt': 'one\n' });
    const h = home({ concurrency: { max: 1 } });
    const s = await serveUnder(h, inCgroup(dir));
    // The slot held, the worktree run queued (its repository checked while there is room).
    await s.client.call('run.enqueue', { specs: [{ name: 'blocker', command: ['sleep', '600'], cwd: h.dir }] });
    await until(async () => (await s.client.show('blocker')).status === 'working', 'the blocker to hold the slot');
    await s.client.call('run.enqueue', { specs: [{ name: 'wt', command: ['sh', '-c', 'cat f.txt > ../wt-saw'], cwd: repo, worktree: true }] });
    // No room for one more process once the blocker is gone (its tasks count now): its kill frees the slot, and git cannot start.
    const blocker = (await s.client.show('blocker')).pid!;
    const tasksOf = (pid: number): number => fs.readdirSync(`/proc/${pid}/task`).length;
    const members = fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    const pgid = (pid: number): number => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
    const blockerTasks = members
      .filter((p) => {
        try {
          return pgid(p) === blocker;
        } catch {
          return false;
        }
      })
      .reduce((n, p) => n + tasksOf(p), 0);
    const current = Number(fs.readFileSync(path.join(dir, 'pids.current'), 'utf8'));
    fs.writeFileSync(path.join(dir, 'pids.max'), String(current - blockerTasks));
    await s.client.call('run.kill', { refs: ['blocker'], force: true, keep_children: false });
    await until(
      () => /limit reached/.test(s.log()),
      () => `the supervisor to say it is at a limit: ${s.log()}`,
    );
    // Before: the run ended errored, "worktree: git worktree: spawn git EAGAIN".
    expect((await s.client.show('wt')).status).toBe('starting');
    fs.writeFileSync(path.join(dir, 'pids.max'), 'max');
    await until(async () => (await s.client.show('wt')).status === 'ended', 'the worktree run to end', 60_000, 200);
    const wt = await s.client.show('wt');
    expect([wt.exit_reason, wt.exit_code, wt.exit_detail]).toEqual(['completed', 0, null]);
    expect(wt.worktree).toMatchObject({ branch: 'orcr/wt' });
    expect(s.child.exitCode).toBeNull();
  });
});
