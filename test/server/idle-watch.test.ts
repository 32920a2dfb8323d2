// Watching live runs costs what they do, not what they are (issue 26): a
// supervisor with hundreds of idle re-adopted runs is near idle itself,
// while output and exits of re-adopted runs are still heard — a wrapper that
// died without a word within a couple of seconds. Real supervisors, real
// agents.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRunStatus } from '../../src/runtime/launcher.js';
import { until, useHomes } from '../support/harness.js';
import { remote } from '../support/in-process.js';

const home = useHomes();
/** utime + stime of a process, in clock ticks (100 a second on Linux). */
const ticks = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
};

describe('re-adopted live runs', () => {
  it('cost an idle supervisor next to nothing, and their output and deaths are still heard', async () => {
    const N = 300;
    const h = home({ concurrency: { max: N + 10 } });
    const c = remote(h.dir);
    try {
      expect(h.cli(['ps']).code).toBe(0);
      const specs = Array.from({ length: N }, (_, i) => ({ name: `idle-${i}`, command: ['sleep', '3600'], cwd: h.dir }));
      // Waits, without a process of its own polling, for a word on a FIFO (opened only once it is written to).
      const fifo = `${h.dir}/talk`;
      expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
      const talker = {
        name: 'talker',
        protocol: 'jsonl',
        command: ['/bin/sh', '-c', 'echo \'{"type":"ready"}\'; read x < "$0"; echo "{\\"type\\":\\"text\\",\\"text\\":\\"said $x\\"}"; exec sleep 3600', fifo],
        cwd: h.dir,
      };
      const mute = { name: 'mute', command: ['sleep', '3600'], cwd: h.dir };
      await c.call('run.enqueue', { specs: [...specs, talker, mute] });
      const up = async (): Promise<number> => (await c.ps()).filter((r) => r.status === 'working' || r.status === 'idle').length;
      await until(async () => (await up()) === N + 2, 'all working', 60_000, 200);
      c.disconnect();
      // A new supervisor: every run re-adopted (none is its child).
      expect(h.cli(['server', 'stop']).code).toBe(0);
      expect(h.cli(['ps']).code).toBe(0);
      const pid = h.serverPid()!;
      await until(async () => (await up()) === N + 2, 'all re-adopted', 60_000, 200);
      c.disconnect();

      // Idle: CPU over three seconds, from the kernel's own count.
      const t0 = ticks(pid);
      const w0 = Date.now();
      await new Promise((r) => setTimeout(r, 3000));
      const pct = ((ticks(pid) - t0) / 100 / ((Date.now() - w0) / 1000)) * 100;
      // Before, the sweep read every run's /proc/PID/stat 4 times a second and its output once: ~6% of a core for 300.
      expect(pct).toBeLessThan(2.5);

      // Output after the re-adoption comes through the directory watch.
      fs.writeFileSync(fifo, 'hello\n');
      await until(async () => (await c.show('talker')).last_text === 'said hello', 'the output after re-adoption', 10_000, 50);
      // A wrapper killed without writing its exit: found gone within a couple of seconds.
      const m = await c.show('mute');
      const wrapper = readRunStatus(h.runDir(m.uuid)).pid!;
      const killedAt = Date.now();
      process.kill(-wrapper, 'SIGKILL');
      await until(async () => (await c.show('mute')).status === 'ended', 'the dead wrapper noticed', 10_000, 50);
      expect(Date.now() - killedAt).toBeLessThan(3500);
    } finally {
      c.disconnect();
    }
  });
});
