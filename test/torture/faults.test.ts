// Faults: a journal that cannot be written, stale sockets, a second
// supervisor, and a system clock that jumps.

import Database from 'better-sqlite3';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, CLI, NODE, until, useHomes } from '../support/harness.js';
import { itWhen } from '../support/skip.js';
import { wallClockArgs } from '../support/wall-clock.js';
import type { PublicRun } from '../../src/protocol/views.js';

const home = useHomes();

function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-mnt-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
  if (r.status === 0) spawnSync('umount', [probe]);
  fs.rmdirSync(probe);
  return r.status === 0;
}

const FAKETIME_LIB = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1'].find((f) =>
  fs.existsSync(f),
);

/** What `PRAGMA integrity_check` says of a journal, read with the project's own SQLite (no sqlite3 shell needed). */
function integrity(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('\n');
  } finally {
    db.close();
  }
}

/**
 * Two ways to move the supervisor's wall clock: a preload of Node's own
 * (always here), and libfaketime under it (an extra, where installed: libc's
 * clock itself, under everything Node does).
 */
const CLOCKS = [
  {
    how: 'a preloaded wall clock (node --import)',
    need: { reason: null },
    args: wallClockArgs(),
    env: (file: string) => ({ ORCR_TEST_WALL_CLOCK_FILE: file }),
  },
  {
    how: 'libfaketime',
    need: { reason: FAKETIME_LIB ? null : 'no libfaketime (apt-get install faketime): the preloaded clock covers the same test', optional: true },
    args: [] as string[],
    env: (file: string) => ({ LD_PRELOAD: FAKETIME_LIB ?? '', FAKETIME_TIMESTAMP_FILE: file, FAKETIME_NO_CACHE: '1', DONT_FAKE_MONOTONIC: '1' }),
  },
];

describe('faults', () => {
  itWhen(
    { reason: canMountTmpfs() ? null : 'cannot mount a tmpfs here (needs root)', optional: true },
    'on a full disk the supervisor fails closed, says why, and resumes when space returns',
    async () => {
      const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-full-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs', mnt]);
      try {
        const dir = path.join(mnt, 'home');
        fs.mkdirSync(dir, { mode: 0o700 });
        const env = { ...process.env, ORCR_HOME: dir, NO_COLOR: '1' };
        const orcr = (args: string[]) => spawnSync(NODE, [CLI, ...args], { env, encoding: 'utf8' });
        orcr(['run', '-n', 'before', '--', 'true']);
        expect(orcr(['wait', 'before']).stdout.trim()).toBe('before completed');

        // Fill the disk.
        const filler = path.join(mnt, 'filler');
        spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
        const refused = orcr(['run', '-n', 'during', '--', 'true']);
        expect(refused.status).toBe(7);
        expect(refused.stderr).toMatch(/journal cannot be written .*(SQLITE_FULL|disk)/i);
        const st = orcr(['server', 'status']);
        expect(st.stdout).toMatch(/DEGRADED: the journal cannot be written/);
        // Reads still work.
        expect(JSON.parse(orcr(['ps', '--all', '--json']).stdout).map((r: { name: string }) => r.name)).toEqual(['before']);

        fs.rmSync(filler);
        await until(() => orcr(['run', '-n', 'after', '--', 'true']).status === 0, 'the supervisor to resume', 15_000, 200);
        expect(orcr(['wait', 'after']).stdout.trim()).toBe('after completed');
        // The store is intact.
        expect(integrity(path.join(dir, 'orcr.db'))).toBe('ok');
        orcr(['server', 'stop']);
      } finally {
        spawnSync('umount', ['-l', mnt]);
        fs.rmSync(mnt, { recursive: true, force: true });
      }
    },
  );

  it('recovers a stale socket left by a dead supervisor, and refuses a second supervisor for the same home', async () => {
    const h = home();
    h.cli(['ps']);
    const pid = h.serverPid()!;
    // 60 s as every CLI line's: in a full run of the suite it once took over 20 s to answer.
    const second = spawnSync(NODE, [CLI, 'serve'], { env: h.env, encoding: 'utf8', timeout: 60_000 });
    expect(second.status).toBe(7);
    expect(second.stderr).toMatch(/already running/);
    expect(h.serverPid()).toBe(pid);

    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 'the supervisor to die');
    expect(fs.existsSync(path.join(h.dir, 'orcr.sock'))).toBe(true); // stale
    const r = h.cli(['run', '-n', 'x', '--', 'true']);
    expect(r.code).toBe(0);
    expect(h.serverPid()).not.toBe(pid);
  });

  it('20 racing starters end with exactly one supervisor, and the log has no line for the 19 that lost', async () => {
    const h = home();
    const results = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<number>((resolve) => {
            const c = h.spawn(['stats', '--json']);
            c.on('exit', (code) => resolve(code ?? -1));
          }),
      ),
    );
    expect(results).toEqual(Array(20).fill(0));
    const serves = fs
      .readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          const argv = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
          const env = fs.readFileSync(`/proc/${p}/environ`, 'utf8');
          return argv.includes('serve') && env.includes(`ORCR_HOME=${h.dir}`);
        } catch {
          return false;
        }
      });
    await until(() => serves.filter((p) => alive(Number(p))).length === 1, 'one supervisor');
    const log = fs.readFileSync(path.join(h.dir, 'server.log'), 'utf8');
    expect(log.match(/supervisor ready/g)).toHaveLength(1);
    expect(log).not.toMatch(/already running|error/i);
  });

  for (const clk of CLOCKS)
    itWhen(
      clk.need,
      `a system clock that jumps neither expires queued runs early nor extends timeouts (${clk.how})`,
      async () => {
        // quick never gets a slot (max 0): its run can only wait, and then expire; the
        // blocker and the other runs have the two slots.
        const h = home({ concurrency: { max: 2, workloads: { quick: { max: 0, max_wait: '10s' } } }, timings: { kill_grace: '500ms' } });
        const clock = path.join(h.dir, 'faketime');
        fs.writeFileSync(clock, '+0');
        // The supervisor runs with a fake wall clock that the test moves; its monotonic clock is real.
        const sup = spawn(NODE, [...clk.args, CLI, 'serve'], { env: { ...h.env, ...clk.env(clock) }, stdio: 'ignore' });
        try {
          await until(() => h.serverPid() === sup.pid, 'the supervisor to be ready');
          h.json(['run', '-n', 'blocker', '--', 'sleep', '30']);
          const t0 = Date.now();
          h.json(['run', '-n', 'waiter', '-w', 'quick', '--', 'true']);
          // The wall clock leaps an hour ahead: the 10 s max_wait must not be over (10 s, not less: on a loaded machine the CLI calls below take seconds).
          fs.writeFileSync(clock, '+3600');
          // Another run, started and finished under the new wall time: the admission
          // pass that started it first looked for expired waiters.
          h.json(['run', '-n', 'trigger', '--', 'true']);
          expect(h.cli(['wait', 'trigger', '--timeout', '20s']).stdout.trim()).toBe('trigger completed');
          expect(h.json<PublicRun>(['show', 'waiter']).status, `${Date.now() - t0} ms after it was queued`).toBe('queued');
          expect(h.cli(['wait', 'waiter', '--timeout', '30s']).stdout.trim()).toBe('waiter expired');
          expect(Date.now() - t0).toBeGreaterThanOrEqual(9900);

          // Now it falls two hours back while a 2 s timeout runs: it must still end at ~2 s.
          h.cli(['kill', 'blocker']);
          expect(h.cli(['wait', 'blocker']).stdout.trim()).toBe('blocker killed');
          h.json(['run', '-n', 'timed', '--timeout', '2s', '--', 'sleep', '30']);
          await until(() => h.json<PublicRun>(['show', 'timed']).status === 'working', 'timed to work');
          const t1 = Date.now();
          fs.writeFileSync(clock, '-3600');
          expect(h.cli(['wait', 'timed', '--timeout', '20s']).stdout.trim()).toBe('timed timeout');
          expect(Date.now() - t1).toBeLessThan(10_000);
        } finally {
          sup.kill('SIGTERM');
          await new Promise((r) => sup.once('exit', r));
        }
      },
      120_000,
    ); // a 10 s wait, a 2 s timeout and a dozen CLI calls: over a minute at load 25
});
