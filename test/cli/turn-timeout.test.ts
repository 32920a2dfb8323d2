// The per-turn deadline: a turn silent for --turn-timeout (budgets.run.turn_timeout)
// is a stall — ended `timeout`/`stall`, or with on_stall warn flagged until
// its next output.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, script, until, useHomes } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';
import type { PublicRun } from '../../src/protocol/views.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, started by the spawned CLI: to kill it, or to see the CLI refuse a config. */
const spawned = useHomes();

describe('turn timeout', () => {
  it('ends a run whose turn goes silent past --turn-timeout as timeout, detail stall, and journals the stall', async () => {
    const h = await home({ timings: { kill_grace: '1s' } });
    const agent = script(
      h,
      'silent.sh',
      `#!/bin/sh\necho '{"type":"ready"}'\necho '{"type":"turn_start"}'\necho '{"type":"text","text":"thinking"}'\nexec sleep 30\n`,
    );
    const r = await h.run(['-n', 'mute', '--protocol', 'jsonl', '--turn-timeout', '600ms', '--', agent]);
    const w = await h.cli(['wait', 'mute']);
    expect(w.stdout.trim()).toBe('mute timeout');
    expect(w.code).toBe(5);
    expect(await h.show('mute')).toMatchObject({ exit_reason: 'timeout', exit_detail: 'stall' });
    const stall = (await h.events()).filter((e) => e.run === r.uuid && e.type === 'stall');
    expect(stall).toHaveLength(1);
    expect(stall[0]!.data).toMatchObject({ action: 'terminate', turn_timeout_ms: 600 });
    expect(stall[0]!.data.silent_ms as number).toBeGreaterThanOrEqual(600);
  });

  it('a stall is retried under --retries, and the retry that completes ends completed (the stall was its first attempt’s)', async () => {
    const h = await home({ timings: { kill_grace: '1s' } });
    const mark = path.join(h.dir, 'first');
    // Its first attempt goes silent; the next one finishes its turn.
    const agent = script(
      h,
      'once-silent.sh',
      `#!/bin/sh\necho '{"type":"ready"}'\necho '{"type":"turn_start"}'\nif [ ! -e '${mark}' ]; then touch '${mark}'; exec sleep 30; fi\necho '{"type":"text","text":"done"}'\necho '{"type":"turn_end"}'\n`,
    );
    await h.run(['-n', 'again', '--protocol', 'jsonl', '--turn-timeout', '600ms', '--retries', '1', '--', agent]);
    const w = await h.cli(['wait', 'again', '--timeout', '60s']);
    expect(w.stdout.trim()).toBe('again completed');
    expect(await h.show('again')).toMatchObject({ exit_reason: 'completed', attempts: [{ n: 1, kind: 'retry', reason: 'timeout', detail: 'stall' }] });
  });

  it('leaves alone a turn that keeps printing, however long it runs', async () => {
    const h = await home();
    // 2 s of work, a line every 100 ms, against a 700 ms turn timeout.
    const agent = script(
      h,
      'chatty.sh',
      `#!/bin/sh\necho '{"type":"ready"}'\necho '{"type":"turn_start"}'\ni=0\nwhile [ $i -lt 20 ]; do echo '{"type":"text","text":"step"}'; sleep 0.1; i=$((i+1)); done\necho '{"type":"turn_end"}'\n`,
    );
    const r = await h.run(['-n', 'chatty', '--protocol', 'jsonl', '--turn-timeout', '700ms', '--', agent]);
    const w = await h.cli(['wait', 'chatty']);
    expect(w.stdout.trim()).toBe('chatty completed');
    expect((await h.events()).filter((e) => e.run === r.uuid && e.type.startsWith('stall'))).toEqual([]);
  });

  it('with on_stall warn (from config) flags the run until it prints again, and does not end it', async () => {
    const h = await home({ budgets: { run: { turn_timeout: '600ms', on_stall: 'warn' } } });
    const go = path.join(h.dir, 'go');
    // Silent until the test lets it go, then it finishes its turn.
    const agent = script(
      h,
      'pause.sh',
      `#!/bin/sh\necho '{"type":"ready"}'\necho '{"type":"turn_start"}'\nwhile [ ! -f '${go}' ]; do sleep 0.05; done\necho '{"type":"text","text":"back"}'\necho '{"type":"turn_end"}'\n`,
    );
    const r = await h.run(['-n', 'pause', '--protocol', 'jsonl', '--', agent]);
    const stalled = await until(async () => {
      const run = await h.show('pause');
      return run.stalled_since !== null && run;
    }, 'the run to be flagged stalled');
    expect(stalled.status).toBe('working');
    expect(Date.parse(stalled.stalled_since!)).toBeLessThanOrEqual(Date.now() - 600);
    const warned = (await h.events()).filter((e) => e.run === r.uuid && e.type === 'stall');
    expect(warned.map((e) => e.data.action)).toEqual(['warn']);
    fs.writeFileSync(go, '');
    expect(await h.wait('pause')).toBe('pause completed');
    const done = await h.show('pause');
    expect(done).toMatchObject({ exit_reason: 'completed', stalled_since: null });
    const types = (await h.events()).filter((e) => e.run === r.uuid && e.type.startsWith('stall')).map((e) => e.type);
    // Warned once for the one silence, and the output after it ended it.
    expect(types).toEqual(['stall', 'stall_ended']);
  });

  it('a silent turn re-adopted after a SIGKILL of the supervisor still stalls, its clock counted from the re-adoption', async () => {
    const h = spawned({ timings: { kill_grace: '1s' } });
    const agent = script(h, 'silent.sh', `#!/bin/sh\necho '{"type":"ready"}'\necho '{"type":"turn_start"}'\nexec sleep 30\n`);
    h.json(['run', '-n', 'mute', '--protocol', 'jsonl', '--turn-timeout', '1500ms', '--', agent]);
    await until(() => h.json<PublicRun>(['show', 'mute']).status === 'working', 'the run to be in its turn');
    const pid = h.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 'the supervisor to die');
    // The next call starts a supervisor, which re-adopts the silent run.
    const readopted = Date.now();
    const w = h.cli(['wait', 'mute']);
    expect(w.stdout.trim()).toBe('mute timeout');
    expect(h.json<PublicRun>(['show', 'mute'])).toMatchObject({ exit_reason: 'timeout', exit_detail: 'stall' });
    expect(Date.now() - readopted).toBeGreaterThanOrEqual(1500);
  });

  it('refuses a bad --turn-timeout or --on-stall (exit 2, naming the flag), and a bad config key', async () => {
    const h = await home();
    const bad = await h.cli(['run', '--turn-timeout', '30', '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--turn-timeout must be a duration such as .*, got "30"/);
    // Well written but past a year: the limit is what the person needs to hear.
    const long = await h.cli(['run', '--turn-timeout', '366d', '--', 'true']);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/--turn-timeout must be at most 365d \(a year\), got "366d"/);
    const action = await h.cli(['run', '--turn-timeout', '5m', '--on-stall', 'shout', '--', 'true']);
    expect(action.code).toBe(2);
    expect(action.stderr).toMatch(/--on-stall must be one of warn, terminate, got "shout"/);
    expect(await h.ps({ all: true })).toEqual([]);

    const cfg = spawned({ budgets: { run: { turn_timeout: 'soon' } } });
    const r = cfg.cli(['stats']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/budgets\.run\.turn_timeout/);
    const cfg2 = spawned({ budgets: { run: { on_stall: 'off' } } });
    const r2 = cfg2.cli(['stats']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toMatch(/budgets\.run\.on_stall: must be one of warn, terminate/);
  });

  it('a --from line takes turn_timeout and on_stall', async () => {
    const h = await home();
    const file = path.join(h.dir, 'runs.jsonl');
    fs.writeFileSync(
      file,
      `${JSON.stringify({ name: 'a', command: ['true'], turn_timeout: '2m', on_stall: 'warn' })}\n${JSON.stringify({ name: 'b', command: ['true'], turn_timeout: 'x' })}\n`,
    );
    const r = await h.cli(['run', '--from', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/runs\.jsonl:2: "turn_timeout" must be a duration/);
  });
});
