// An answer while the journal cannot be written (its disk full) is refused,
// and nothing is lost: the request is still pending, its agent still waits,
// and once there is room again the answer goes through and the run goes
// on. A real supervisor on a real full file system (a small tmpfs: needs
// root to mount).

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { askingAgent } from '../support/asking-agent.js';
import { CLI, killRunGroups, NODE, until } from '../support/harness.js';
import { remote } from '../support/in-process.js';
import { itWhen } from '../support/skip.js';

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

describe('an answer while the supervisor is degraded', () => {
  itWhen({ ...mountable(), optional: true }, 'is refused; the request stays pending; with room again it is answered and the run goes on', async () => {
    const mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-full-'));
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]).status).toBe(0);
    closers.push(() => {
      spawnSync('umount', ['-l', mnt]);
      fs.rmSync(mnt, { recursive: true, force: true });
    });
    const dir = path.join(mnt, 'home');
    fs.mkdirSync(dir, { mode: 0o700 });
    const env = { ...process.env, ORCR_HOME: dir, NO_COLOR: '1' };
    const serve = spawn(NODE, [CLI, 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    serve.stderr.on('data', (c) => (log += c));
    const h = remote(dir);
    closers.push(() => {
      h.disconnect();
      serve.kill('SIGKILL');
      killRunGroups(dir);
    });
    await until(
      () => h.call('server.status').catch(() => null),
      () => `the supervisor up: ${log}`,
    );
    const a = askingAgent({ dir }, 'full', { asks: [{ tool: 'Bash', input: { command: 'npm test' } }] });
    await h.run(['-n', 'full', '--protocol', 'claude', '-p', 'go', '--', ...a.argv]);
    const asked = await until(async () => (await h.call<{ approvals: { id: number }[] }>('approval.list', {})).approvals[0], 'the request');

    const fill = path.join(mnt, 'fill');
    spawnSync('dd', ['if=/dev/zero', `of=${fill}`, 'bs=64k'], { stdio: 'ignore' });
    const answer = () => h.call('approval.answer', { targets: [String(asked.id)], verdict: 'allow', via: 'cli' });
    // The first write that fails degrades the supervisor, and this answer with it; the next is refused at once.
    expect(await answer().catch((e: unknown) => e)).toMatchObject({ code: 'unavailable' });
    expect(await answer().catch((e: unknown) => e)).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/journal cannot be written/) });
    expect((await h.call<{ approvals: { id: number; state: string }[] }>('approval.list', {})).approvals).toEqual([
      expect.objectContaining({ id: asked.id, state: 'pending' }),
    ]);
    expect(a.answers()).toEqual([]);

    fs.rmSync(fill);
    await until(async () => (await h.call<{ degraded: string | null }>('server.status')).degraded === null, 'resumed');
    await answer();
    await until(async () => (await h.show('full')).status === 'ended', 'the run to end');
    expect(await h.show('full')).toMatchObject({ exit_reason: 'completed' });
    expect(a.answers()).toHaveLength(1);
    expect(spawnSync(NODE, [CLI, 'server', 'stop'], { env }).status).toBe(0);
  });
});
