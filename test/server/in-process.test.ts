// The in-process harness itself: supervisors started in the test's own
// process, several at once on separate homes, each with real agents, and
// nothing of one leaking into the other or outliving its test.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, MOCK_AGENT, NODE, until } from '../support/harness.js';
import { LiveHome, useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

describe('in-process supervisors', () => {
  it('two homes in one process, started at once: each runs its own agents and journal', async () => {
    const [a, b] = await Promise.all([home({ concurrency: { max: 1 } }), home()]);
    await Promise.all([a.stats(), b.stats()]);
    expect(fs.statSync(path.join(a.dir, 'orcr.sock')).mode & 0o777).toBe(0o600);
    // The umask set for the socket was put back: files made here keep their mode.
    expect(process.umask()).not.toBe(0o177);
    const ra = await a.run(['-n', 'one', '--', NODE, MOCK_AGENT, '--format', 'jsonl', '--turns', '1', '--delay', '5']);
    const rb = await b.run(['-n', 'two', '--', 'sh', '-c', 'echo hi']);
    expect(await a.wait('one')).toBe('one completed');
    expect(await b.wait('two')).toBe('two completed');
    expect((await a.ps({ all: true })).map((r) => r.uuid)).toEqual([ra.uuid]);
    expect((await b.ps({ all: true })).map((r) => r.uuid)).toEqual([rb.uuid]);
    expect(fs.readFileSync(path.join(b.runDir(rb.uuid), 'out'), 'utf8')).toBe('hi\n');
  });

  it('the spawned CLI talks to a supervisor started here', async () => {
    const h = await home();
    const r = await h.cli(['server', 'status', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).pid).toBe(process.pid);
    // `server stop` over the socket stops it here too, without ending this process.
    expect((await h.cli(['server', 'stop'])).code).toBe(0);
    await until(() => !h.running, 'the supervisor to stop');
    expect(fs.existsSync(path.join(h.dir, 'orcr.sock'))).toBe(false);
  });

  it('a restart re-adopts a live agent; cleanup kills what is left', async () => {
    const h = await LiveHome.start();
    try {
      const r = await h.run(['-n', 'sleeper', '--', 'sleep', '30']);
      const pid = await until(async () => (await h.show('sleeper')).pid, 'the agent to start');
      await h.restart();
      expect(alive(pid)).toBe(true);
      expect((await h.show(r.uuid)).status).toBe('working');
      await h.cleanup();
      await until(() => !alive(pid), 'the agent to be killed');
      expect(fs.existsSync(h.dir)).toBe(false);
    } finally {
      await h.cleanup();
    }
  });
});
