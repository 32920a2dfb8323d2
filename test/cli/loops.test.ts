// Loops through the real CLI and supervisor: fires on time (the supervisor's
// loop clock, moved, puts a cron boundary seconds away), overlap and max-concurrency,
// fires missed while no supervisor ran, a loop run surviving a SIGKILL of the
// supervisor, --timeout, pause/resume, rm --kill-active.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, NODE, alive, until } from '../support/harness.js';
import { useLiveHomes, useServedHomes, type ServedHome } from '../support/in-process.js';
import { connect, type Orcr } from '../../src/sdk/index.js';

/** Homes whose supervisor runs in this process (most tests); `loop create` and what the CLI prints stay the spawned CLI's. */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, to SIGKILL it. */
const served = useServedHomes();

/** The SDK's loops on a home (what the CLI's loop verbs print with --json), connected once per home. */
const sdks = new Map<string, Orcr>();
afterEach(() => {
  for (const o of sdks.values()) o.close();
  sdks.clear();
});
async function loopsOf(h: { dir: string }): Promise<Orcr['loops']> {
  let o = sdks.get(h.dir);
  if (!o) sdks.set(h.dir, (o = await connect({ home: h.dir, autoStart: false })));
  return o.loops;
}

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

/** `orcr loop run ls NAME --json`. */
const runs = async (h: { dir: string }, name: string): Promise<LoopRun[]> => await (await loopsOf(h)).runs(name);
/** `orcr loop logs NAME --json`. */
const events = async (h: { dir: string }, name: string): Promise<Ev[]> => await (await loopsOf(h)).events(name);
/** `orcr loop run start NAME --json`. */
const start = async (h: { dir: string }, name: string): Promise<{ action: string }> => (await loopsOf(h)).start(name);

describe('orcr loop', () => {
  it('--once-at fires once; the run is an orcr run and the agents its command makes are its children', async () => {
    const h = await home();
    const made = await h.json(['loop', 'create', 'nightly', '--once-at', '1s', '--', 'sh', '-c', `"${NODE}" "${CLI}" run -n kid -- true && echo fired`]);
    expect(made).toMatchObject({ name: 'nightly', cron: null, max_concurrency: 1, overlap: 'queue' });
    const done = await until(async () => (await runs(h, 'nightly')).find((r) => r.status === 'ok'), 'the loop run to end ok');
    expect(done).toMatchObject({ name: 'nightly.1', exit_code: 0, children: 1 });
    const kid = await h.show('kid');
    expect(kid.parent).toBe(done.uuid);
    expect((await events(h, 'nightly')).map((e) => e.type)).toEqual(['loop_created', 'loop_fired']);
    expect((await h.json(['loop', 'ls']))[0]).toMatchObject({ name: 'nightly', next_fire_at: null, last: { status: 'ok' } });
  });

  it('fires a cron schedule on time (clock offset: a minute boundary seconds away)', async () => {
    const h = await home();
    const now = Date.now();
    // The supervisor's loop clock reads hh:mm:52 now: the next whole minute is 8 s away.
    h.loopClockOffsetMs = (52_000 - (now % 60_000) + 60_000) % 60_000;
    const r = await h.cli(['loop', 'create', 'tick', '* * * * *', '--json', '--', 'true']);
    expect(r.code, r.stderr).toBe(0);
    const fired = await until(async () => (await events(h, 'tick')).find((e) => e.type === 'loop_fired'), 'a scheduled fire', 40_000, 200);
    expect(fired.data.by).toBe('schedule');
    expect(new Date(fired.data.scheduled_at as string).getUTCSeconds()).toBe(0);
  });

  it('at its cap, queue keeps one pending run and coalesces later fires; skip drops them; max-concurrency counts; no agent slot taken', async () => {
    const h = await home({ concurrency: { max: 1 } });
    await h.json(['loop', 'create', 'q', '--once-at', '1h', '--', 'sleep', '30']);
    expect((await h.json(['loop', 'run', 'start', 'q'])).action).toBe('started');
    expect((await start(h, 'q')).action).toBe('pending');
    expect((await start(h, 'q')).action).toBe('coalesced');
    expect((await runs(h, 'q')).map((r) => r.status)).toEqual(['pending', 'running']);
    // The running one stops; the pending one takes its place. Killed once it works: a kill while it is still
    // starting may end it before its agent ran (canceled), which the suite once saw.
    await until(async () => (await h.show('q.1')).status === 'working', 'q.1 to work');
    await h.kill(['q.1']);
    await until(async () => (await runs(h, 'q')).map((r) => r.status).join() === 'running,stopped', 'the pending run to start');
    expect((await events(h, 'q')).map((e) => e.type)).toEqual(['loop_created', 'loop_fired', 'loop_pending', 'loop_coalesced', 'loop_fired']);

    await h.json(['loop', 'create', 's', '--once-at', '1h', '--overlap', 'skip', '--max-concurrency', '2', '--', 'sleep', '30']);
    expect((await start(h, 's')).action).toBe('started');
    expect((await start(h, 's')).action).toBe('started');
    expect((await start(h, 's')).action).toBe('skipped');
    expect((await events(h, 's')).find((e) => e.type === 'loop_skipped')?.data).toMatchObject({ reason: 'overlap', active: 2 });
    // Three loop runs live and concurrency.max 1: an agent still starts (the loop cap is a separate axis).
    await h.run(['-n', 'agent', '--', 'true']);
    await until(async () => (await h.show('agent')).exit_reason === 'completed', 'the agent to run beside the loop runs');
    const stopped = await h.json(['loop', 'run', 'stop', 's']);
    expect(stopped.stopped).toHaveLength(2);
    await until(async () => (await runs(h, 's')).every((r) => r.status === 'stopped'), 'both runs stopped');
  });

  it('fires missed while no supervisor ran are skipped and logged, not replayed', async () => {
    const h = await home();
    await h.json(['loop', 'create', 'm', '* * * * *', '--', 'true']);
    // A minute boundary may pass while this first supervisor runs, and its fire is real: only what
    // comes after the restart must not be a replay.
    const before = (await events(h, 'm')).length;
    expect((await h.cli(['server', 'stop'])).code).toBe(0);
    await until(() => !h.running, 'the supervisor to stop');
    sdks.get(h.dir)?.close();
    sdks.delete(h.dir);
    // Ten minutes later by the next supervisor's clock.
    h.loopClockOffsetMs = 10 * 60_000;
    await h.startSupervisor();
    const r = await h.cli(['loop', 'logs', 'm', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const missed = (JSON.parse(r.stdout) as Ev[]).find((e) => e.type === 'loop_missed');
    expect(missed, r.stdout).toBeDefined();
    expect(missed!.data.count as number).toBeGreaterThanOrEqual(9);
    // A replay would be a fire scheduled inside the missed window. A fire of a minute that passed
    // before the stop, or of one that passes after the restart, is real (the CI caught the second).
    const first = Date.parse(missed!.data.first as string);
    const next = Date.parse(missed!.data.next_fire_at as string);
    const replays = (await events(h, 'm')).slice(before).filter((e) => {
      if (e.type !== 'loop_fired' || typeof e.data.scheduled_at !== 'string') return false;
      const at = Date.parse(e.data.scheduled_at);
      return at >= first && at < next;
    });
    expect(replays).toEqual([]);
  });

  it('a loop run survives a SIGKILL of the supervisor: re-adopted, and its end recorded', async () => {
    const h: ServedHome = served();
    await h.start();
    const flag = `${h.dir}/go`;
    expect((await h.cli(['loop', 'create', 'k', '--once-at', '1h', '--', 'sh', '-c', `while [ ! -e "${flag}" ]; do sleep 0.05; done; exit 3`])).code).toBe(0);
    await start(h, 'k');
    const run = await until(async () => (await runs(h, 'k')).find((r) => r.status === 'running' && r.pid !== null), 'the loop run to run');
    await h.killSupervisor();
    sdks.get(h.dir)?.close();
    sdks.delete(h.dir);
    expect(alive(run.pid!)).toBe(true);
    // The next supervisor re-adopts the run.
    await h.start();
    expect((await runs(h, 'k'))[0]!.status).toBe('running');
    fs.writeFileSync(flag, '');
    const ended = await until(async () => (await runs(h, 'k')).find((r) => r.status === 'failed'), 'the re-adopted run to end');
    expect(ended.exit_code).toBe(3);
  });

  it('--timeout stops the run (status timeout); pause and resume; rm refuses active runs unless --kill-active', async () => {
    const h = await home();
    await h.json(['loop', 'create', 't', '--once-at', '1h', '--timeout', '1s', '--', 'sleep', '30']);
    await start(h, 't');
    await until(async () => (await runs(h, 't'))[0]?.status === 'timeout', 'the run to time out');
    expect((await events(h, 't')).some((e) => e.type === 'loop_timed_out')).toBe(true);

    await h.json(['loop', 'create', 'p', '0 9 * * *', '--tz', 'Europe/Berlin', '--', 'sleep', '30']);
    expect(await h.json(['loop', 'pause', 'p'])).toMatchObject({ paused: true, next_fire_at: null });
    const resumed = await h.json(['loop', 'resume', 'p']);
    expect(resumed.paused).toBe(false);
    expect(resumed.next_fire_at).toMatch(/T0[78]:00:00\.000Z$/);

    await start(h, 'p');
    const refused = await h.cli(['loop', 'rm', 'p', '-y']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('has 1 active run');
    const rm = await h.json(['loop', 'rm', 'p', '-y', '--kill-active']);
    expect(rm.killed).toHaveLength(1);
    await until(async () => (await h.show('p.1')).status === 'ended', 'the killed run to end');
    expect(await h.json(['loop', 'ls'])).toEqual([expect.objectContaining({ name: 't' })]);
    expect((await h.cli(['loop', 'create', 'bad', '0 9 * * * *', '--', 'true'])).stderr).toContain('has 6 fields');
  });
});
