// A supervisor started while its disk is full (issue 26): it starts
// degraded instead of exiting 1 (SQLITE_FULL, and even `orcr ps` failed),
// serves reads, says why in `server status` and in the stats the TUI shows,
// and resumes once there is room. A real supervisor on a real full file
// system (a small tmpfs: needs root to mount).

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { CLI, killRunGroups, NODE, until } from '../support/harness.js';
import { itWhen } from '../support/skip.js';

/** A tmpfs of our own, or why not. */
function mountable(): { reason: string | null } {
  if (process.getuid?.() !== 0) return { reason: 'not root: a small file system to fill cannot be mounted' };
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-mnt-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
  if (r.status === 0) spawnSync('umount', [probe]);
  fs.rmdirSync(probe);
  return { reason: r.status === 0 ? null : `tmpfs cannot be mounted here: ${String(r.stderr).trim()}` };
}

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0).reverse()) c();
});

describe('a full disk at start', () => {
  itWhen({ ...mountable(), optional: true }, 'starts degraded, serves reads, says why, and resumes once there is room', async () => {
    const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-full-'));
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mnt]).status).toBe(0);
    closers.push(() => {
      spawnSync('umount', ['-l', mnt]);
      fs.rmSync(mnt, { recursive: true, force: true });
    });
    const dir = path.join(mnt, 'home');
    fs.mkdirSync(dir, { mode: 0o700 });
    const env = { ...process.env, ORCR_HOME: dir, NO_COLOR: '1' };
    const orcr = (args: string[]) => spawnSync(NODE, [CLI, ...args], { env, encoding: 'utf8', timeout: 30_000 });
    closers.push(() => {
      orcr(['server', 'stop']);
      killRunGroups(dir);
    });
    // A home with a run in it, then stopped; then the disk fills.
    expect(orcr(['run', '--name', 'before', '--', 'true']).status).toBe(0);
    expect(orcr(['wait', 'before']).status).toBe(0);
    expect(orcr(['server', 'stop']).status).toBe(0);
    const fill = path.join(mnt, 'fill');
    spawnSync('dd', ['if=/dev/zero', `of=${fill}`, 'bs=64k'], { stdio: 'ignore' });

    const serve = spawn(NODE, [CLI, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    serve.stderr.on('data', (c) => (log += c));
    closers.push(() => void serve.kill('SIGKILL'));
    const status = await until(
      () => {
        const r = orcr(['server', 'status', '--json']);
        return r.status === 0 ? (JSON.parse(r.stdout) as { pid: number; degraded: string | null }) : null;
      },
      () => `the supervisor up: ${log}`,
    );
    expect(status.pid).toBe(serve.pid);
    expect(status.degraded).toMatch(/SQLITE_/);
    expect(orcr(['server', 'status']).stdout).toMatch(/DEGRADED: the journal cannot be written/);
    // Reads are served; writes refused with the reason.
    const ps = orcr(['ps', '--all', '--json']);
    expect(ps.status).toBe(0);
    expect((JSON.parse(ps.stdout) as { name: string }[]).map((r) => r.name)).toEqual(['before']);
    const refused = orcr(['run', '--', 'true']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/journal cannot be written/);
    // What the TUI shows: the stats say why.
    const stats = JSON.parse(orcr(['stats', '--json']).stdout) as { degraded: string | null };
    expect(stats.degraded).toMatch(/SQLITE_/);

    fs.rmSync(fill);
    await until(() => (JSON.parse(orcr(['server', 'status', '--json']).stdout) as { degraded: string | null }).degraded === null, 'resumed');
    expect(orcr(['run', '--name', 'after', '--', 'true']).status).toBe(0);
    expect(orcr(['wait', 'after']).status).toBe(0);
    expect(serve.exitCode).toBeNull();
  });

  itWhen(
    { ...mountable(), optional: true },
    'while the disk is full, wait --all still waits for the active runs (exit 3 at its timeout, not 0) and server status counts them',
    async () => {
      const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-full-'));
      expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]).status).toBe(0);
      closers.push(() => {
        spawnSync('umount', ['-l', mnt]);
        fs.rmSync(mnt, { recursive: true, force: true });
      });
      const dir = path.join(mnt, 'home');
      fs.mkdirSync(dir, { mode: 0o700 });
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ concurrency: { max: 2 } }));
      const env = { ...process.env, ORCR_HOME: dir, NO_COLOR: '1' };
      const orcr = (args: string[]) => spawnSync(NODE, [CLI, ...args], { env, encoding: 'utf8', timeout: 30_000 });
      closers.push(() => {
        orcr(['server', 'stop', '--kill-agents']);
        killRunGroups(dir);
      });
      for (const name of ['a', 'b', 'c']) expect(orcr(['run', '--name', name, '--', 'sleep', '300']).status).toBe(0);
      await until(() => (JSON.parse(orcr(['server', 'status', '--json']).stdout) as { active: number }).active === 2, 'two runs active');
      const fill = path.join(mnt, 'fill');
      spawnSync('dd', ['if=/dev/zero', `of=${fill}`, 'bs=64k'], { stdio: 'ignore' });
      // A write the journal refuses degrades the supervisor.
      expect(orcr(['run', '--name', 'd', '--', 'true']).status).not.toBe(0);
      const status = JSON.parse(orcr(['server', 'status', '--json']).stdout) as { degraded: string | null; active: number; queued: number };
      expect(status.degraded).toMatch(/SQLITE_/);
      expect([status.active, status.queued]).toEqual([2, 1]);
      expect(orcr(['server', 'status']).stdout).toMatch(/2 active runs?, 1 queued/);
      const waited = orcr(['wait', '--all', '--timeout', '1s', '--json']);
      expect(waited.status, waited.stderr).toBe(3);
      expect((JSON.parse(waited.stdout) as { name: string; token: string }[]).map((r) => `${r.name} ${r.token}`).sort()).toEqual([
        'a pending',
        'b pending',
        'c pending',
      ]);
      fs.rmSync(fill);
      // Resumed: the same runs, re-adopted.
      await until(() => {
        const r = JSON.parse(orcr(['server', 'status', '--json']).stdout) as { degraded: string | null; active: number; queued: number };
        return r.degraded === null && r.active === 2 && r.queued === 1;
      }, 'resumed with the same runs');
    },
  );
});
