// Timers that end runs: the stuck-start guard, idle reaping, wall-time
// timeouts; and `logs --follow` streaming a live run.

import { describe, expect, it } from 'vitest';
import { lineReader, MOCK_AGENT, NODE, until } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';

/** Homes whose supervisor runs in this process; what the CLI prints is still the spawned CLI's. */
const home = useLiveHomes();

describe('guards', () => {
  it('ends a run that shows no sign of life within timings.max_starting as failed, and frees its slot', async () => {
    const h = await home({ concurrency: { max: 1 }, timings: { max_starting: '500ms', kill_grace: '1s' } });
    await h.run(['-n', 'mute', '--protocol', 'claude', '--', NODE, MOCK_AGENT, '--format', 'claude', '--scenario', 'never-starts']);
    await h.run(['-n', 'next', '--', 'true']);
    const w = await h.wait('mute', 'next');
    expect(w).toContain('mute failed');
    expect(w).toContain('next completed');
    expect((await h.show('mute')).exit_detail).toMatch(/stuck_start/);
  });

  it('reaps an interactive run left idle past --idle-after as completed (idle_reaped)', async () => {
    const h = await home();
    // Long enough for the second wait below to start while the run is still idle
    // (two CLI starts take ~0.5 s on a busy 2-core box; 300 ms lost that race).
    await h.run([
      '-n',
      'chat',
      '--interactive',
      '--idle-after',
      // Long enough for the second `orcr wait` (a CLI's start: past 1.5 s at load 18) to find it still idle.
      '5s',
      '--protocol',
      'jsonl',
      '--',
      NODE,
      MOCK_AGENT,
      '--format',
      'jsonl',
      '--scenario',
      'interactive',
      '--delay',
      '20',
    ]);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    // Already idle: wait settles at once (the spawned CLI's print); the reaper ends it shortly after.
    const w = await h.cli(['wait', 'chat']);
    expect(w.stdout.trim()).toBe('chat turn_complete');
    const r = await until(async () => {
      const run = await h.show('chat');
      return run.status === 'ended' && run;
    }, 'the reaper to end the run');
    expect(r).toMatchObject({ status: 'ended', exit_reason: 'completed', exit_detail: 'idle_reaped' });
  });

  it('ends a run past its --timeout as timeout', async () => {
    const h = await home({ timings: { kill_grace: '1s' } });
    await h.run(['-n', 'slow', '--timeout', '400ms', '--', 'sleep', '30']);
    expect(await h.wait('slow')).toBe('slow timeout');
    expect(await h.waitCode('slow')).toBe(5);
  });

  it('wait --timeout gives up with exit 3 and says the run is still pending', async () => {
    const h = await home();
    await h.run(['-n', 'long', '--', 'sleep', '30']);
    const w = await h.cli(['wait', 'long', '--timeout', '300ms']);
    expect(w.stdout.trim()).toBe('long pending');
    expect(w.code).toBe(3);
  });

  it('streams a live run with logs --follow', async () => {
    const h = await home();
    await h.run(['-n', 'talker', '--', 'sh', '-c', 'for i in 1 2 3; do echo "line $i"; sleep 0.2; done']);
    const f = h.spawn(['logs', 'talker', '--follow']);
    const r = lineReader(f);
    try {
      await r.waitFor((l) => l.includes('line 3'), 'the third line');
      expect(r.lines.filter((l) => l.startsWith('line'))).toEqual(['line 1', 'line 2', 'line 3']);
    } finally {
      f.kill();
    }
  });
});
