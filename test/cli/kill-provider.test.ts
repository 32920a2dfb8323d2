// kill says what it did to each target, including one already ended or not
// found; provider resume of a provider not on hold says so and fails.

import { describe, expect, it } from 'vitest';
import { until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

describe('kill, target by target', () => {
  it('kills, cancels, reports an ended run and names an unknown one while still acting on the rest (exit 6)', async () => {
    const h = await home({ concurrency: { max: 1 }, timings: { kill_grace: '2s' } });
    const live = await h.run(['-n', 'live', '--', 'sleep', '30']);
    const queued = await h.run(['-n', 'queued', '--', 'true']);
    await until(async () => (await h.show('live')).status === 'working', 'the live run to work');

    const r = await h.cli(['kill', 'live', 'nope', 'queued', '--json']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stdout)).toEqual([
      { ref: 'live', name: 'live', uuid: live.uuid, action: 'killing', status: 'working', exit_reason: null },
      { ref: 'nope', name: null, uuid: null, action: 'not_found', status: null, exit_reason: null },
      { ref: 'queued', name: 'queued', uuid: queued.uuid, action: 'canceled', status: 'ended', exit_reason: 'canceled' },
    ]);
    expect(await h.wait('live')).toBe('live killed');

    const again = await h.cli(['kill', 'live', 'missing', queued.uuid.slice(0, 8)]);
    expect(again.code).toBe(6);
    expect(again.stdout).toBe('live already ended (killed)\nqueued already ended (canceled)\n');
    expect(again.stderr).toBe('orcr: no run "missing"\n');

    // Every target known: exit 0.
    const ok = await h.cli(['kill', 'live']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe('live already ended (killed)\n');
    // None known: one error, as before.
    const none = await h.cli(['kill', 'a', 'b', '--json']);
    expect(none.code).toBe(6);
    expect(JSON.parse(none.stdout)).toEqual({ error: { code: 'not_found', message: 'no run "a", "b"' } });
  });
});

describe('provider resume', () => {
  it('of a provider not on hold exits 4, saying so', async () => {
    const h = await home();
    const r = await h.cli(['provider', 'resume', 'claude']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('orcr: claude is not on hold\n');
    expect(r.stdout).toBe('');
    const j = await h.cli(['provider', 'resume', 'claude', '--json']);
    expect(j.code).toBe(4);
    expect(JSON.parse(j.stdout)).toEqual({ error: { code: 'not_on_hold', message: 'claude is not on hold' } });
  });
});
