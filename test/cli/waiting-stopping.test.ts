// Waiting and stopping at the edges: a wait with nothing to wait for, and a
// supervisor stopped on purpose while clients wait on it.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alive, lineReader, script, until, useHomes } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';
import type { PublicRun } from '../../src/protocol/views.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, started by the spawned CLI: to kill it, or to see the CLI refuse a config. */
const spawned = useHomes();

/** Its exit code, once its output has been read to the end too ('close', not 'exit'). */
function exited(child: import('node:child_process').ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    if (child.exitCode !== null && child.stdout?.readableEnded !== false) resolve(child.exitCode);
    else child.on('close', (code) => resolve(code ?? -1));
  });
}

describe('wait and stop', () => {
  it('wait --all with nothing active returns at once, exit 0, nothing printed', async () => {
    const h = await home();
    const r = await h.cli(['wait', '--all']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const j = await h.cli(['wait', '--all', '--json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual([]);
  });

  it('a wait after a kill waits for the end, not for the idle the run is still in', async () => {
    const h = await home();
    const gate = `${h.dir}/let-go`;
    // An interactive agent idle after its first turn, which on SIGTERM takes its time: it exits once the gate appears.
    // Its handler comes before it says anything: said after, a TERM that lands between the two (the agent
    // preempted on a loaded machine) killed it at once, and the run read `ended` — the agent's doing, not orcr's.
    const agent = script(
      h,
      'slow-exit.cjs',
      `const fs = require('fs');
process.on('SIGTERM', () => setInterval(() => { if (fs.existsSync(process.argv[2])) process.exit(143); }, 20));
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
say({ type: 'ready' }); say({ type: 'turn_start' }); say({ type: 'turn_end' });
process.stdin.resume();
`,
    );
    await h.run(['-n', 'chat', '--interactive', '--protocol', 'jsonl', '--', process.execPath, agent, gate]);
    expect(await h.wait('chat')).toBe('chat turn_complete');
    expect(await h.kill(['chat'])).toMatchObject([{ name: 'chat', action: 'killing' }]);
    expect((await h.show('chat')).status, 'still idle while it takes its time').toBe('idle');
    const waited = h.wait('chat');
    fs.writeFileSync(gate, '');
    expect(await waited).toBe('chat killed');
  });

  it('wait --all after every run ended returns at once', async () => {
    const h = await home();
    await h.run(['-n', 'quick', '--', 'true']);
    await until(async () => (await h.show('quick')).status === 'ended', 'the run to end');
    const r = await h.cli(['wait', '--all']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('server stop sticks: a running wait, events --follow and logs --follow report it (exit 7) and start no supervisor', async () => {
    const h = spawned();
    h.json(['run', '-n', 'long', '--', 'sh', '-c', 'echo started; exec sleep 300']);
    await until(() => h.json<PublicRun>(['show', 'long']).status === 'working', 'the run to work');
    const first = h.serverPid()!;

    const wait = h.spawn(['wait', 'long']);
    const events = h.spawn(['events', '--follow']);
    const logs = h.spawn(['logs', 'long', '--follow']);
    const waitErr: string[] = [];
    wait.stderr!.on('data', (d: Buffer) => waitErr.push(d.toString()));
    const ev = lineReader(events);
    const lg = lineReader(logs);
    await ev.waitFor((l) => l.some((x) => x.includes('working')), 'events --follow to print the replay');
    await lg.waitFor((l) => l.includes('started'), 'logs --follow to print the output');
    // Three followers, and the status call's own connection.
    await until(() => h.json<{ clients: number }>(['server', 'status']).clients >= 4, 'the wait to connect');

    expect(h.cli(['server', 'stop']).code).toBe(0);
    const codes = await Promise.all([exited(wait), exited(events), exited(logs)]);
    expect(codes).toEqual([7, 7, 7]);
    expect(waitErr.join('')).toMatch(/stopped/);
    // Nobody started a new supervisor behind the user's back.
    await until(() => !alive(first), 'the old supervisor to be gone');
    expect(h.cli(['server', 'status']).code).toBe(7);
  });
});

describe('durations past 2^31 ms (~24.8 days)', () => {
  it('wait --timeout 30d waits, instead of returning pending at once', async () => {
    const h = await home();
    await h.run(['-n', 'long', '--', 'sleep', '300']);
    const wait = h.spawn(['wait', 'long', '--timeout', '30d']);
    const out = lineReader(wait);
    await until(async () => (await h.json<{ clients: number }>(['server', 'status'])).clients >= 2, 'the wait to connect');
    expect((await h.cli(['kill', 'long'])).code).toBe(0);
    expect(await exited(wait)).toBe(5);
    expect(out.lines).toEqual(['long killed']);
  });

  it('a workload max_wait of 30 days neither expires the run nor spins the supervisor', async () => {
    const h = spawned({ concurrency: { max: 1, workloads: { slow: { max_wait: '30d' } } } });
    h.json(['run', '-n', 'holder', '--', 'sleep', '300']);
    h.json(['run', '-n', 'waiter', '-w', 'slow', '--', 'true']);
    const pid = h.serverPid()!;
    const cpu = (): number => {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(f[11]) + Number(f[12]); // utime + stime, in clock ticks (1/100 s)
    };
    // The admission pass after the enqueue armed the waiter's deadline before
    // `show` is answered: a 30-day wait cut short would have expired it by then.
    expect(h.json<PublicRun>(['show', 'waiter']).status).toBe('queued');
    // A spin shows only as CPU time over a stretch of wall time: measure two
    // seconds of it, with nothing else asking the supervisor anything.
    const before = cpu();
    await new Promise((r) => setTimeout(r, 2000));
    // A timer clamped to 1 ms re-arms a thousand times a second (~12% of a core): 24+ ticks in 2 s. Idle is ~0.
    expect(cpu() - before).toBeLessThan(15);
    expect(h.json<PublicRun>(['show', 'waiter']).status).toBe('queued');
  });
});

describe("usage limits in an agent's words", () => {
  it('"try again in 4 days 23 hours 10 minutes" holds the provider for all of it, and a queued run of it says so', async () => {
    const h = spawned();
    const agent = script(
      h,
      'limited.sh',
      `#!/bin/sh
echo '{"type":"thread.started","thread_id":"t1"}'
echo '{"type":"turn.started"}'
echo '{"type":"turn.failed","error":{"message":"You\\u0027ve hit your usage limit. Upgrade to Pro or try again in 4 days 23 hours 10 minutes."}}'
exit 1
`,
    );
    const before = Date.now();
    h.json(['run', '-n', 'first', '-a', 'codex', '--protocol', 'codex', '--', agent]);
    await until(() => h.json<{ status: string }>(['show', 'first']).status === 'ended', 'first to end');
    expect(h.cli(['wait', 'first']).stdout.trim()).toBe('first errored');
    h.json(['run', '-n', 'second', '-a', 'codex', '--protocol', 'codex', '--', agent]);
    const stats = h.json<{ holds: Record<string, number> }>(['stats']);
    const stated = (4 * 24 * 60 + 23 * 60 + 10) * 60_000;
    expect(stats.holds.codex! - before).toBeGreaterThanOrEqual(stated - 1_000);
    expect(stats.holds.codex! - Date.now()).toBeLessThanOrEqual(stated + 1_000);
    const ps = h.cli(['ps']);
    expect(ps.stdout).toMatch(/second .*hold codex 4d23h/);
    expect(h.cli(['provider', 'resume', 'codex']).code).toBe(0);
    // It hits the limit again: blocked for a moment (a wait begun then settles there), then it exits 1.
    await until(() => h.json<{ status: string }>(['show', 'second']).status === 'ended', 'second to end');
    expect(h.cli(['wait', 'second']).stdout.trim()).toBe('second errored');
  });
});
