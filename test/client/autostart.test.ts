// The client's start of a supervisor when none answers, against the one
// race a stop leaves: `orcr server stop` returns when its connection closes,
// and the old supervisor lets go of the home's lock a moment later. A start
// in that moment loses (exit 7, "already running") to a supervisor that is
// going, and must start again once no socket answers, not wait out its
// deadline (commit 9a67cf6: `server stop --kill-agents` right after `server
// stop` waited 15 s and said "not running").

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { ensureHome } from '../../src/config/home.js';
import { lockFile } from '../../src/journal/home-lock.js';
import { killRunGroups, until } from '../support/harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) {
    killRunGroups(d);
    fs.rmSync(d, { recursive: true, force: true });
  }
});

/** The pids of `orcr serve` processes started for this home (read from /proc). */
function servesOf(dir: string): number[] {
  const pids: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      if (!cmd.includes('serve')) continue;
      if (fs.readFileSync(`/proc/${e}/environ`, 'utf8').split('\0').includes(`ORCR_HOME=${dir}`)) pids.push(Number(e));
    } catch {
      /* gone, or not ours */
    }
  }
  return pids;
}

describe('starting a supervisor', () => {
  it('a start that lost to a supervisor on its way out (no socket, the lock still held) starts again once the lock is let go', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-t-'));
    dirs.push(dir);
    fs.chmodSync(dir, 0o700);
    const home = ensureHome(dir);
    // The supervisor on its way out: its socket is gone, its lock not yet released.
    const going = lockFile(home.lock)!;
    expect(going).not.toBeNull();
    const connecting = Client.connect(home, { timeoutMs: 20_000 }).then(
      (c) => c,
      (e: unknown) => e as Error,
    );
    // A starter came and lost to the lock (exit 7): only then does the old supervisor let go.
    const seen = new Set<number>();
    await until(
      () => {
        const now = servesOf(home.dir);
        for (const p of now) seen.add(p);
        return seen.size > 0 && [...seen].some((p) => !now.includes(p));
      },
      'a start to lose to the held lock',
      20_000,
      5,
    );
    going.close();
    const client = await connecting;
    expect(client, String(client)).toBeInstanceOf(Client);
    const c = client as Client;
    try {
      const status = await c.call('server.status', {});
      expect(seen.has(status.pid)).toBe(false);
    } finally {
      await c.call('server.stop', {}).catch(() => undefined);
      c.close();
    }
    await until(() => servesOf(home.dir).length === 0, 'the supervisor to stop');
  });
});
