// The keys that ask first — x, K, C, and x on tagged runs — and the ones
// beside them that do not (X, U, w, s and R on tagged runs): the question,
// what y carries out and on what, what n leaves, what they refuse.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { reduceSnapshot, reduceStream } from '../../src/tui/state/reducers.js';
import { setupApp as setup } from './app-fixture.js';
import { msg, run, T0 } from './fixtures.js';
import { KEY, press, until } from './helpers.js';

afterEach(() => cleanup());

describe('keys that ask first', () => {
  it('x asks to confirm, y kills; n declines; X kills without asking', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'j', 'x');
    await until(inst, (x) => x.includes('kill worker-a? y/n'));
    expect(calls).toEqual([]);
    await press(inst, 'y');
    await until(inst, (x) => !x.includes('kill worker-a?'));
    const uuid = store.getState().selected;
    expect(calls).toEqual([{ action: 'kill', args: [uuid, false] }]);
    await press(inst, 'x');
    await until(inst, (x) => x.includes('kill worker-a? y/n'));
    await press(inst, 'n');
    await until(inst, (x) => x.includes('kill canceled: worker-a keeps running'));
    expect(calls).toHaveLength(1);
    await press(inst, 'X');
    expect(calls).toHaveLength(2);
    await press(inst, 'G', 'x');
    await until(inst, (x) => x.includes('✗ done-d has already ended (completed): nothing to kill'));
    await press(inst, 'X');
    await until(inst, (x) => x.includes('✗ done-d has already ended (completed): nothing to kill'));
    expect(calls).toHaveLength(2);
  });

  it('K asks to force-kill, y sends SIGKILL at once; n declines; an ended run refuses', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'j', 'K');
    await until(inst, (x) => x.includes('force-kill worker-a? y/n'));
    expect(calls).toEqual([]);
    await press(inst, 'n');
    await until(inst, (x) => x.includes('kill canceled: worker-a keeps running'));
    await press(inst, 'K', 'y');
    await until(inst, (x) => !x.includes('force-kill worker-a?'));
    expect(calls).toEqual([{ action: 'kill', args: [store.getState().selected, true] }]);
    await press(inst, 'G', 'K');
    await until(inst, (x) => x.includes('✗ done-d has already ended (completed): nothing to kill'));
    expect(calls).toHaveLength(1);
  });

  it('after x y the cursor keeps its row while the killed run ends and sorts away; the next x asks about the run now in that row', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'j', 'x', 'y');
    await until(inst, (x) => !x.includes('kill worker-a?'));
    const killed = calls[0]!.args[0] as string;
    expect(store.getState().runs.byId[killed]!.name).toBe('worker-a');
    // The supervisor ends it: it moves to the bottom among the ended runs.
    const r = store.getState().runs.byId[killed]!;
    store.setState(
      (s) =>
        reduceStream(s, [msg(11, 'ended', { ...r, status: 'ended', exit_reason: 'killed', ended_at: new Date(T0 + 6000).toISOString() }, { reason: 'killed' })])
          .patch,
    );
    const f = await until(inst, (x) => /■ ended\s+killed\s+worker-a/.test(x));
    expect(f).toMatch(/› ○ queued\s+global 2\/2\s+waiter-c/); // the row the cursor was on
    expect(store.getState().list.cursor).toBe(1);
    await press(inst, 'x');
    await until(inst, (x) => x.includes('kill waiter-c? y/n'));
    await press(inst, 'n');
    // Without a kill the selection follows its run as before.
    const w = store.getState().runs.byId[store.getState().selected!]!;
    store.setState((s) => reduceStream(s, [msg(12, 'starting', { ...w, status: 'starting' })]).patch);
    await until(inst, (x) => /› ◐ starting\s+waiter-c/.test(x));
  });

  it('space tags runs (and moves on), * tags every listed one; x asks once naming the count and kills the live ones; s sends to the idle ones; R reruns the ended ones; esc untags', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    const id = (name: string): string => Object.values(store.getState().runs.byId).find((r) => r.name === name)!.uuid;
    // idler-b, then worker-a: the cursor moves down as it tags.
    await press(inst, ' ', ' ');
    await until(inst, (x) => x.includes('2 runs tagged: x, w, s and R act on them (esc untags)') && x.includes('2 tagged'));
    expect(Object.keys(store.getState().tagged).sort()).toEqual([id('idler-b'), id('worker-a')].sort());
    await until(inst, (x) => /\+ ◇ idle\s+awaiting input\s+idler-b/.test(x) && /\+ ● working\s+worker-a/.test(x));
    await press(inst, 'x');
    await until(inst, (x) => x.includes('kill 2 tagged runs? y/n'));
    await press(inst, 'y');
    await until(inst, () => calls.some((c) => c.action === 'killMany'));
    expect(calls.find((c) => c.action === 'killMany')!.args).toEqual([[id('idler-b'), id('worker-a')], false]);
    expect(store.getState().tagged).toEqual({});
    // Every listed run; s goes only to the idle one, R only to the ended one, each saying what it skipped.
    await press(inst, '*');
    await until(inst, (x) => x.includes('4 listed runs tagged'));
    await press(inst, 's');
    await until(inst, (x) => x.includes('1 tagged run (3 skipped: not idle)'));
    for (const ch of 'go on') await press(inst, ch);
    await press(inst, KEY.enter);
    expect(calls.filter((c) => c.action === 'send')).toEqual([{ action: 'send', args: [id('idler-b'), 'go on'] }]);
    await press(inst, 'R');
    await until(inst, (x) => x.includes('rerunning 1 tagged run (3 skipped: not ended)'));
    expect(calls.filter((c) => c.action === 'rerun')).toEqual([{ action: 'rerun', args: [id('done-d')] }]);
    await press(inst, '*', KEY.esc);
    await until(inst, (x) => x.includes('no runs tagged') && !x.includes('tagged ·'));
  });

  it('U resumes a held provider now, C asks once and cancels its queued runs; both refuse where nothing is held', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'U');
    await until(inst, (x) => x.includes('no provider on hold here'));
    const held = run({ name: 'held-q', status: 'queued', provider: 'codex', queue_seq: 20 });
    store.setState((s) => ({
      ...reduceSnapshot(s, { seq: 12, runs: [...Object.values(s.runs.byId), held] }, s.now),
      stats: { ...s.stats!, holds: { codex: s.now + 3_600_000 } },
    }));
    await press(inst, 'G', 'k');
    await until(inst, (x) => /› ○ queued .*held-q/.test(x));
    await press(inst, 'U');
    expect(calls.at(-1)).toEqual({ action: 'resumeProvider', args: ['codex'] });
    await press(inst, 'C');
    await until(inst, (x) => x.includes('cancel 1 queued run of codex (held)? y/n'));
    await press(inst, 'y');
    expect(calls.at(-1)).toEqual({ action: 'killMany', args: [[held.uuid], false] });
  });
});
