// Bursts of launches go through the spawn helper, so the supervisor is not
// the wrappers' parent: their ends must still be heard at once (from the
// run's status file), and each run end with its own exit code.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { procStat, readRunStatus } from '../../src/runtime/launcher.js';
import type { PublicRun } from '../../src/protocol/views.js';
import { until, useHomes } from '../support/harness.js';

const home = useHomes();

function parentOf(pid: number): number | null {
  const f = procStat(pid);
  return f ? Number(f[1]) : null;
}

describe('spawn helper', () => {
  it('starts the wrappers of a burst, and every run ends with its own code', async () => {
    const h = home({ concurrency: { max: 4 } });
    // Each run long enough that the helper, which starts with the burst, is up before the last waves
    // (at 0.4 s a loaded machine could end all four waves first, every one launched directly, and a
    // run working through the helper was there to see only for a poll's blink).
    const lines = Array.from({ length: 16 }, (_, i) => JSON.stringify({ name: `job-${i}`, command: ['sh', '-c', `sleep 1.5; exit ${i % 3}`] })).join('\n');
    expect(h.cli(['run', '--from', '-'], { input: lines + '\n' }).code).toBe(0);
    const server = h.serverPid()!;
    // Later waves go through the helper once it is up: a working run whose wrapper is not the supervisor's child.
    await until(() => {
      const runs = h.json<PublicRun[]>(['ps', '--all']);
      return runs.some((r) => r.status === 'working' && r.pid !== null && parentOf(r.pid) !== null && parentOf(r.pid) !== server);
    }, 'a run started by the spawn helper');
    const t0 = Date.now();
    // 5: some targets ended other than completed (the ones that exit 1 and 2). By name, not
    // --all: --all takes the runs active when asked, and on a loaded machine the last wave
    // can have ended while the poll above looked for a helper-started run.
    expect(h.cli(['wait', ...Array.from({ length: 16 }, (_, i) => `job-${i}`)]).code).toBe(5);
    // 16 runs of 1.5 s through 4 slots: 4 waves, at most 4.5 s after the first helper-started one.
    // Ends heard late (a poll instead of the status file) would show here.
    expect(Date.now() - t0).toBeLessThan(20_000);
    const runs = h.json<PublicRun[]>(['ps', '--all']);
    expect(runs).toHaveLength(16);
    for (const r of runs) {
      const i = Number(r.name.split('-')[1]);
      expect([r.name, r.exit_code]).toEqual([`job-${i}`, i % 3]);
      expect(r.exit_reason).toBe(i % 3 === 0 ? 'completed' : 'errored');
    }
    // Each run's status file has its wrapper's pid and its exit line.
    const dirs = fs.readdirSync(path.join(h.dir, 'runs'));
    expect(dirs).toHaveLength(16);
    for (const d of dirs) expect(readRunStatus(path.join(h.dir, 'runs', d))).toMatchObject({ pid: expect.any(Number), exit: expect.any(Number) });
  });
});
