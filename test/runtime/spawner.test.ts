// The spawn helper: a real helper process starting real wrappers, its idle
// retirement, and what its users see when it goes away.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLaunch, prepareRunDirAsync, readRunStatus, signalGroup, wrapperArgs, type LaunchSpec } from '../../src/runtime/launcher.js';
import { SpawnHelper, SpawnHelperGone } from '../../src/runtime/spawner.js';
import { alive, ROOT, until } from '../support/harness.js';

// The helper runs as its own Node process, so from the compiled build.
const SCRIPT = path.join(ROOT, 'dist/src/runtime/spawn-helper.js');

const dirs: string[] = [];
const helpers: SpawnHelper[] = [];
afterEach(() => {
  for (const h of helpers.splice(0)) h.close();
  // A test that failed half-way may leave its wrapper running: take the whole group down.
  for (const d of dirs.splice(0)) {
    const pid = readRunStatus(path.join(d, 'run')).pid;
    if (pid !== null) signalGroup(pid, 'SIGKILL');
    fs.rmSync(d, { recursive: true, force: true });
  }
});

function helper(idleMs?: number): SpawnHelper {
  const h = new SpawnHelper(idleMs, SCRIPT);
  helpers.push(h);
  return h;
}

async function runSpec(argv: string[]): Promise<{ spec: LaunchSpec; program: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-spawner-'));
  dirs.push(home);
  const spec: LaunchSpec = { dir: path.join(home, 'run'), argv, cwd: home, env: { ...process.env }, stdinFifo: false };
  await prepareRunDirAsync(spec.dir);
  return { spec, program: checkLaunch(spec) };
}

describe('SpawnHelper', () => {
  it('is not up until warmed, then starts a wrapper in its own session with the extra environment', async () => {
    const h = helper();
    expect(h.up).toBe(false);
    await expect(h.spawn('/bin/true', [], os.tmpdir(), {})).rejects.toBeInstanceOf(SpawnHelperGone);
    expect(await h.warm()).toBe(true);
    expect(h.up).toBe(true);
    const { spec, program } = await runSpec(['/bin/sh', '-c', 'echo "$ORCR_PROBE $(ps -o sid= -p $$)"']);
    const pid = await h.spawn('/bin/sh', wrapperArgs(spec, program), spec.cwd, { ORCR_PROBE: 'probe-42' });
    expect(await until(() => readRunStatus(spec.dir).exit === 0, 'the wrapper to finish')).toBe(true);
    expect(readRunStatus(spec.dir).pid).toBe(pid);
    // The agent's session is the wrapper's own: detached from the helper.
    const [probe, sid] = fs.readFileSync(path.join(spec.dir, 'out'), 'utf8').trim().split(/\s+/);
    expect(probe).toBe('probe-42');
    expect(Number(sid)).toBe(pid);
  });

  it("starts a run with its maker's environment in place of the helper's own, sent once and then named by its id", async () => {
    const h = helper();
    expect(await h.warm()).toBe(true);
    const base = { id: 'env-1', env: { PATH: process.env.PATH!, MAKER: 'caller' } };
    const outs: string[] = [];
    for (const extra of ['one', 'two']) {
      const { spec, program } = await runSpec(['/bin/sh', '-c', 'echo "$MAKER $EXTRA ${HOME:-nohome}"']);
      await h.spawn('/bin/sh', wrapperArgs(spec, program), spec.cwd, { EXTRA: extra }, base);
      await until(() => readRunStatus(spec.dir).exit === 0, 'the wrapper to finish');
      outs.push(fs.readFileSync(path.join(spec.dir, 'out'), 'utf8').trim());
    }
    // HOME is the helper's (the supervisor's), not the maker's: it is not there.
    expect(outs).toEqual(['caller one nohome', 'caller two nohome']);
  });

  it('retires after a quiet spell, and what it started runs on', async () => {
    const h = helper(300);
    expect(await h.warm()).toBe(true);
    const helperPid = h.pid!;
    const { spec, program } = await runSpec(['/bin/sh', '-c', 'sleep 1; exit 5']);
    const pid = await h.spawn('/bin/sh', wrapperArgs(spec, program), spec.cwd, {});
    await until(() => !alive(helperPid), 'the idle helper to exit');
    expect(h.up).toBe(false);
    expect(alive(pid)).toBe(true);
    expect(await until(() => readRunStatus(spec.dir).exit, 'the orphaned wrapper to record its exit')).toBe(5);
  });

  it('a helper that dies fails what is pending with SpawnHelperGone, and can be warmed again', async () => {
    const h = helper();
    expect(await h.warm()).toBe(true);
    const pending = h.spawn('/bin/sleep', ['5'], os.tmpdir(), {});
    process.kill(h.pid!, 'SIGKILL');
    // Either the request got out first (a pid) or it died with the helper: never a hang.
    const outcome = await pending.then(
      (pid) => ({ pid }),
      (e: unknown) => ({ e }),
    );
    if ('pid' in outcome) process.kill(-outcome.pid, 'SIGKILL');
    else expect(outcome.e).toBeInstanceOf(SpawnHelperGone);
    await until(() => !h.up, 'the helper to be seen gone');
    expect(await h.warm()).toBe(true);
  });

  it('counts its quiet spell from when it answers: a start slower than the spell does not retire it unused', async () => {
    // 1 ms is shorter than any fork of Node: counted from warm(), the helper
    // was closed before it could say it was ready, and never used.
    const { spec, program } = await runSpec(['/bin/sh', '-c', 'exit 3']);
    const h = helper(1);
    expect(await h.warm()).toBe(true);
    await h.spawn('/bin/sh', wrapperArgs(spec, program), spec.cwd, {});
    expect(await until(() => readRunStatus(spec.dir).exit, 'the wrapper to record its exit')).toBe(3);
  });

  it('one that never answers is given up after its start deadline, not kept forever', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-spawner-'));
    dirs.push(dir);
    const mute = path.join(dir, 'mute.js');
    fs.writeFileSync(mute, 'setInterval(() => {}, 1000);\n');
    const h = new SpawnHelper(50, mute, 300);
    helpers.push(h);
    expect(await h.warm()).toBe(false);
    expect(h.up).toBe(false);
    expect(h.pid).toBeNull();
  });
});
