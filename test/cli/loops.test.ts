// Loops through the real CLI and supervisor: fires on time (a test-only clock
// offset puts a cron boundary seconds away), overlap and max-concurrency,
// fires missed while no supervisor ran, a loop run surviving a SIGKILL of the
// supervisor, --timeout, pause/resume, rm --kill-active.

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, NODE, alive, until, useHomes, type TestHome } from '../support/harness.js';

const home = useHomes();

interface LoopRun {
  uuid: string | null;
  name: string | null;
  status: string;
  exit_code: number | null;
  children: number;
  pid: number | null;
}
interface Ev {
  type: string;
  run: string | null;
  data: Record<string, unknown>;
}

const runs = (h: TestHome, name: string): LoopRun[] => h.json<LoopRun[]>(['loop', 'run', 'ls', name]);
const events = (h: TestHome, name: string): Ev[] => h.json<Ev[]>(['loop', 'logs', name]);
const withOffset = (h: TestHome, ms: number): NodeJS.ProcessEnv => ({ ...h.env, ORCR_TEST_CLOCK_OFFSET_MS: String(ms) });

describe('orcr loop', () => {
  it('--once-at fires once; the run is an orcr run and the agents its command makes are its children', async () => {
    const h = home();
    const made = h.json(['loop', 'create', 'nightly', '--once-at', '1s', '--', 'sh', '-c', `"${NODE}" "${CLI}" run -n kid -- true && echo fired`]);
    expect(made).toMatchObject({ name: 'nightly', cron: null, max_concurrency: 1, overlap: 'queue' });
    const done = await until(() => runs(h, 'nightly').find((r) => r.status === 'ok'), 'the loop run to end ok', 30_000, 200);
    expect(done).toMatchObject({ name: 'nightly.1', exit_code: 0, children: 1 });
    const kid = h.json(['show', 'kid']);
    expect(kid.parent).toBe(done.uuid);
    expect(events(h, 'nightly').map((e) => e.type)).toEqual(['loop_created', 'loop_fired']);
    expect(h.json(['loop', 'ls'])[0]).toMatchObject({ name: 'nightly', next_fire_at: null, last: { status: 'ok' } });
  });

  it('fires a cron schedule on time (clock offset: a minute boundary seconds away)', async () => {
    const h = home();
    const now = Date.now();
    // The supervisor's clock reads hh:mm:52 now: the next whole minute is 8 s away.
    const offset = (52_000 - (now % 60_000) + 60_000) % 60_000;
    const env = withOffset(h, offset);
    const r = h.cli(['loop', 'create', 'tick', '* * * * *', '--json', '--', 'true'], { env });
    expect(r.code, r.stderr).toBe(0);
    const fired = await until(() => events(h, 'tick').find((e) => e.type === 'loop_fired'), 'a scheduled fire', 40_000, 200);
    expect(fired.data.by).toBe('schedule');
    expect(new Date(fired.data.scheduled_at as string).getUTCSeconds()).toBe(0);
  });

  it('at its cap, queue keeps one pending run and coalesces later fires; skip drops them; max-concurrency counts; no agent slot taken', async () => {
    const h = home({ concurrency: { max: 1 } });
    h.json(['loop', 'create', 'q', '--once-at', '1h', '--', 'sleep', '30']);
    expect(h.json(['loop', 'run', 'start', 'q']).action).toBe('started');
    expect(h.json(['loop', 'run', 'start', 'q']).action).toBe('pending');
    expect(h.json(['loop', 'run', 'start', 'q']).action).toBe('coalesced');
    expect(runs(h, 'q').map((r) => r.status)).toEqual(['pending', 'running']);
    // The running one stops; the pending one takes its place.
    h.json(['kill', 'q.1']);
    await until(() => runs(h, 'q').map((r) => r.status).join() === 'running,stopped', 'the pending run to start', 30_000, 200);
    expect(events(h, 'q').map((e) => e.type)).toEqual(['loop_created', 'loop_fired', 'loop_pending', 'loop_coalesced', 'loop_fired']);

    h.json(['loop', 'create', 's', '--once-at', '1h', '--overlap', 'skip', '--max-concurrency', '2', '--', 'sleep', '30']);
    expect(h.json(['loop', 'run', 'start', 's']).action).toBe('started');
    expect(h.json(['loop', 'run', 'start', 's']).action).toBe('started');
    expect(h.json(['loop', 'run', 'start', 's']).action).toBe('skipped');
    expect(events(h, 's').find((e) => e.type === 'loop_skipped')?.data).toMatchObject({ reason: 'overlap', active: 2 });
    // Three loop runs live and concurrency.max 1: an agent still starts (the loop cap is a separate axis).
    h.json(['run', '-n', 'agent', '--', 'true']);
    await until(() => h.json(['show', 'agent']).exit_reason === 'completed', 'the agent to run beside the loop runs', 30_000, 200);
    const stopped = h.json(['loop', 'run', 'stop', 's']);
    expect(stopped.stopped).toHaveLength(2);
    await until(() => runs(h, 's').every((r) => r.status === 'stopped'), 'both runs stopped', 30_000, 200);
  });

  it('fires missed while no supervisor ran are skipped and logged, not replayed', async () => {
    const h = home();
    h.json(['loop', 'create', 'm', '* * * * *', '--', 'true']);
    expect(h.cli(['server', 'stop']).code).toBe(0);
    // Ten minutes later by the supervisor's clock.
    const r = h.cli(['loop', 'logs', 'm', '--json'], { env: withOffset(h, 10 * 60_000) });
    expect(r.code, r.stderr).toBe(0);
    const missed = (JSON.parse(r.stdout) as Ev[]).find((e) => e.type === 'loop_missed');
    expect(missed, r.stdout).toBeDefined();
    expect(missed!.data.count as number).toBeGreaterThanOrEqual(9);
    expect(events(h, 'm').some((e) => e.type === 'loop_fired')).toBe(false);
  });

  it('a loop run survives a SIGKILL of the supervisor: re-adopted, and its end recorded', async () => {
    const h = home();
    const flag = `${h.dir}/go`;
    h.json(['loop', 'create', 'k', '--once-at', '1h', '--', 'sh', '-c', `while [ ! -e "${flag}" ]; do sleep 0.05; done; exit 3`]);
    h.json(['loop', 'run', 'start', 'k']);
    const run = await until(() => runs(h, 'k').find((r) => r.status === 'running' && r.pid !== null), 'the loop run to run');
    const pid = h.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 'the supervisor to die');
    expect(alive(run.pid!)).toBe(true);
    // The next call starts a supervisor, which re-adopts the run.
    expect(runs(h, 'k')[0]!.status).toBe('running');
    fs.writeFileSync(flag, '');
    const ended = await until(() => runs(h, 'k').find((r) => r.status === 'failed'), 'the re-adopted run to end', 30_000, 200);
    expect(ended.exit_code).toBe(3);
  });

  it('--timeout stops the run (status timeout); pause and resume; rm refuses active runs unless --kill-active', async () => {
    const h = home();
    h.json(['loop', 'create', 't', '--once-at', '1h', '--timeout', '1s', '--', 'sleep', '30']);
    h.json(['loop', 'run', 'start', 't']);
    await until(() => runs(h, 't')[0]?.status === 'timeout', 'the run to time out', 30_000, 200);
    expect(events(h, 't').some((e) => e.type === 'loop_timed_out')).toBe(true);

    h.json(['loop', 'create', 'p', '0 9 * * *', '--tz', 'Europe/Berlin', '--', 'sleep', '30']);
    expect(h.json(['loop', 'pause', 'p'])).toMatchObject({ paused: true, next_fire_at: null });
    const resumed = h.json(['loop', 'resume', 'p']);
    expect(resumed.paused).toBe(false);
    expect(resumed.next_fire_at).toMatch(/T0[78]:00:00\.000Z$/);

    h.json(['loop', 'run', 'start', 'p']);
    const refused = h.cli(['loop', 'rm', 'p', '-y']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('has 1 active run');
    const rm = h.json(['loop', 'rm', 'p', '-y', '--kill-active']);
    expect(rm.killed).toHaveLength(1);
    await until(() => h.json(['show', 'p.1']).status === 'ended', 'the killed run to end', 30_000, 200);
    expect(h.json(['loop', 'ls'])).toEqual([expect.objectContaining({ name: 't' })]);
    expect(h.cli(['loop', 'create', 'bad', '0 9 * * * *', '--', 'true']).stderr).toContain('has 6 fields');
  });
});
