// `orcr cluster status` on a supervisor whose config.json gained (or lost) a
// "cluster" while it runs: it says what is so — the cluster takes effect at
// the next start, and how to get there — not that config.json has none. A
// real supervisor; config.json written while it runs, its reload waited for.
// (Joining for real after the restart: test/cluster/deployment.test.ts.)

import { describe, expect, it } from 'vitest';
import { until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

/** A cluster nobody runs: the supervisor never connects to it while it runs (a cluster edit waits for a restart). */
const CLUSTER = { url: 'postgres://orcr@127.0.0.1:1/none', name: 'later', host: 'here' };

describe('cluster status while config.json says otherwise', () => {
  it('a "cluster" added while the supervisor runs takes effect at its next start, and cluster status says so and how', async () => {
    const h = await home({ concurrency: { max: 2 } });
    await h.startSupervisor();
    const before = await h.cli(['cluster', 'status']);
    expect(before.code).toBe(2);
    expect(before.stderr).toMatch(/^orcr: this supervisor is not in a cluster \(config\.json has no "cluster"\)$/m);

    h.writeConfig({ concurrency: { max: 2 }, cluster: CLUSTER });
    await until(
      async () => (await h.call<{ config_error: { message: string } | null }>('stats')).config_error,
      'the edit to be read (and refused while running)',
    );
    const added = await h.cli(['cluster', 'status']);
    expect(added.code).toBe(2);
    expect(added.stdout).toBe('');
    expect(added.stderr).toMatch(
      /^orcr: this supervisor is not in a cluster yet: config\.json's "cluster" was added after it started, and takes effect at its next start \(orcr server stop, then any verb starts it again, in the cluster\)$/m,
    );
    expect(added.stderr).not.toMatch(/has no "cluster"/);
    const json = await h.cli(['cluster', 'status', '--json']);
    expect(JSON.parse(json.stdout).error.message).toMatch(/takes effect at its next start \(orcr server stop/);
    // cluster forget says the same: it is the same question.
    expect((await h.cli(['cluster', 'forget', 'm9'])).stderr).toMatch(/not in a cluster yet: .* takes effect at its next start/);
    // Nothing else changed meanwhile: the running supervisor is still alone.
    expect((await h.call<{ cluster: unknown }>('server.status')).cluster).toBeNull();

    // The "cluster" taken out again: config.json has none, and it says so again.
    h.writeConfig({ concurrency: { max: 2 } });
    await until(async () => (await h.call<{ config_error: unknown }>('stats')).config_error === null, 'the edit back to be applied');
    expect((await h.cli(['cluster', 'status'])).stderr).toMatch(/^orcr: this supervisor is not in a cluster \(config\.json has no "cluster"\)$/m);
  });

  it('with a later edit of config.json refused for another reason, it does not claim to know what config.json holds', async () => {
    const h = await home({ concurrency: { max: 2 } });
    await h.startSupervisor();
    h.writeConfig('{"concurrency": {"max": "two"}}');
    await until(async () => (await h.call<{ config_error: unknown }>('stats')).config_error, 'the bad edit to be refused');
    const r = await h.cli(['cluster', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^orcr: this supervisor is not in a cluster \(it started without "cluster" in config\.json; the last edit of config\.json was refused: .*concurrency\.max/m,
    );
  });
});
