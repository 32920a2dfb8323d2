// The whole App with a fake controller: keys go through the one router and
// show up as frames (prompts, confirmations, help, details) and as actions.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTuiStore, error } from '../../src/tui/state/store.js';
import { reduceSnapshot, reduceStream } from '../../src/tui/state/reducers.js';
import { readAll } from '../../src/client/run-output.js';
import { TranscriptDoc } from '../../src/tui/state/transcript-doc.js';
import { limiterItems } from '../../src/tui/model/limiter-items.js';
import { foreignMsg, msg, offType, run, statsOf, T0 } from './fixtures.js';
import { setupApp as setup, themes } from './app-fixture.js';
import { fakeActions, KEY, lines, press, tick, until } from './helpers.js';

afterEach(() => cleanup());

describe('App', () => {
  it('fills rows - 1 with header, runs, limiter, events and footer', async () => {
    const { inst } = setup(30);
    const f = await until(inst, (x) => x.includes('Limiter'));
    const ls = lines(f);
    expect(ls).toHaveLength(29);
    expect(ls[0]).toContain('orcr /tmp/h');
    expect(ls[2]).toContain('Runs 4/4');
    expect(f).toMatch(/global\s+█+ 2\/2\s+waiting 1 \(oldest 4\.0s\): waiter-c/);
    expect(f).toContain('Events 0');
    expect(ls[28]).toContain('x kill');
    // selection starts on the first row (idle sorts before working)
    expect(f).toMatch(/› ◇ idle\s+awaiting input\s+idler-b/);
  });

  it('j/k and arrows move the selection; g/G jump', async () => {
    const { inst, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'j');
    await until(inst, (x) => /› ● working\s+worker-a/.test(x));
    await press(inst, KEY.down, 'G');
    await until(inst, (x) => /› ■ ended\s+completed\s+done-d/.test(x));
    await press(inst, 'k');
    await until(inst, (x) => /› ○ queued\s+global 2\/2\s+waiter-c/.test(x));
    await press(inst, 'g');
    await until(inst, (x) => /› ◇ idle\s+awaiting input\s+idler-b/.test(x));
    expect(store.getState().list.cursor).toBe(0);
  });

  it('s sends a line to an idle run, refuses a busy one', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'j', 's');
    await until(inst, (x) => x.includes('✗ worker-a is working: input goes only to an idle run'));
    await press(inst, 'k', 's');
    await until(inst, (x) => x.includes('send to idler-b> ▏'));
    await press(inst, 'go', ' on');
    await until(inst, (x) => x.includes('send to idler-b> go on▏'));
    await press(inst, KEY.backspace, 'N', KEY.enter);
    await until(inst, (x) => !x.includes('send to idler-b>'));
    expect(calls).toEqual([{ action: 'send', args: [store.getState().selected, 'go oN'] }]);
  });

  it('n opens a one-line prompt for a new run; keys typed there are text, not commands', async () => {
    const { inst, calls } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'n');
    await until(inst, (x) => x.includes('new run> ▏'));
    inst.stdin.write(`-n q-x -- sh -c 'echo hi'`);
    await until(inst, (x) => x.includes(`new run> -n q-x -- sh -c 'echo hi'▏`));
    await press(inst, 'q'); // typed, not quit
    await press(inst, KEY.backspace, KEY.enter);
    await until(inst, (x) => !x.includes('new run>'));
    expect(calls).toEqual([{ action: 'enqueue', args: [`-n q-x -- sh -c 'echo hi'`] }]);
  });

  it('esc cancels a prompt without acting', async () => {
    const { inst, calls } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'n', 'abc', KEY.esc);
    await until(inst, (x) => !x.includes('new run>'));
    expect(calls).toEqual([]);
  });

  it('/ filters as you type; esc clears; a toggles active/all', async () => {
    const { inst } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, '/', 'wait');
    await until(inst, (x) => x.includes('Runs 1/4') && x.includes('filter "wait"') && x.includes('filter> wait▏'));
    await press(inst, KEY.enter);
    await until(inst, (x) => !x.includes('filter> '));
    expect(inst.lastFrame()).toContain('Runs 1/4');
    await press(inst, KEY.esc);
    await until(inst, (x) => x.includes('Runs 4/4'));
    await press(inst, 'a');
    await until(inst, (x) => x.includes('Runs 3/4') && x.includes('active only'));
    expect(inst.lastFrame()).not.toContain('done-d');
    await press(inst, 'a');
    await until(inst, (x) => x.includes('Runs 4/4'));
  });

  it('tab to the limiter: j/k select a holder or waiter, enter opens its run, x and w act on it; the footer says so', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, KEY.tab);
    // Focused, each cap lists its holders and waiters one per line; the first holder is selected.
    let f = await until(inst, (x) => x.includes('holds  idler-b') || x.includes('holds  worker-a'));
    const hints = lines(f).at(-1)!;
    expect(hints).toContain('j/k select');
    expect(hints).toContain('enter details');
    expect(hints).toContain('esc runs');
    expect(hints).not.toContain('n new');
    expect(hints).not.toContain('/ filter');
    const selectedLine = (x: string): string =>
      lines(x).find((l) => /^\s+(holds|waits)/.test(l) && store.getState().limiterKey !== null && l.includes(selectedName()))!;
    const selectedName = (): string => {
      const s = store.getState();
      const it = limiterItems(s.stats!.caps)[s.limiterList.cursor]!;
      return s.runs.byId[it.uuid!]!.name;
    };
    expect(selectedLine(f)).toBeDefined();
    await press(inst, 'j', 'j');
    expect(selectedName()).toBe('waiter-c');
    f = await until(inst, (x) => x.includes('waits  #1 waiter-c'));
    await press(inst, 'j'); // nothing below: stays
    expect(selectedName()).toBe('waiter-c');
    await press(inst, 'w');
    const waiter = Object.values(store.getState().runs.byId).find((r) => r.name === 'waiter-c')!;
    expect(calls.at(-1)).toEqual({ action: 'wait', args: [waiter.uuid] });
    await press(inst, 'x');
    await until(inst, (x) => x.includes('kill waiter-c? y/n'));
    await press(inst, KEY.esc);
    await press(inst, KEY.enter);
    await until(inst, (x) => x.includes('Details: waiter-c'));
    expect(store.getState().selected).toBe(waiter.uuid);
    await press(inst, KEY.esc);
    await until(inst, (x) => x.includes('waits  #1 waiter-c') && !x.includes('Details:'));
    expect(store.getState().pane).toBe('limiter');
    await press(inst, KEY.esc);
    await until(inst, (x) => x.includes('j/k move'));
    expect(store.getState().pane).toBe('runs');
  });

  it('tab to the event log: j/k select an event, enter opens its run, G follows the log again', async () => {
    const { inst, store } = setup();
    const byName = (n: string) => Object.values(store.getState().runs.byId).find((r) => r.name === n)!;
    store.setState(
      (s) =>
        reduceStream(s, [
          msg(11, 'working', byName('worker-a'), { from: 'starting' }),
          foreignMsg(12, 'something_new', null, { what: 'no run' }),
          msg(13, 'idle', byName('idler-b'), { from: 'working', turn: 1 }),
        ]).patch,
    );
    await until(inst, (x) => x.includes('Events 3'));
    await press(inst, KEY.tab, KEY.tab);
    let f = await until(inst, (x) => lines(x).at(-1)!.includes('G follow'));
    expect(lines(f).at(-1)).toContain('j/k select');
    expect(store.getState().logCursor).toBe(0); // the newest
    await press(inst, 'k');
    await until(inst, (x) => x.includes('1 up selected · G follows'));
    await press(inst, KEY.enter);
    await until(inst, (x) => x.includes('this event is not about a run'));
    await press(inst, 'k', KEY.enter);
    f = await until(inst, (x) => x.includes('Details: worker-a'));
    await press(inst, KEY.esc);
    await until(inst, (x) => x.includes('Events 3') && !x.includes('Details:'));
    // New events while an older line is selected keep the selection on it.
    store.setState((s) => reduceStream(s, [msg(14, 'working', byName('idler-b'), { from: 'idle' })]).patch);
    await until(inst, (x) => x.includes('Events 4'));
    expect(store.getState().logCursor).toBe(3);
    await press(inst, 'G');
    expect(store.getState().logCursor).toBe(0);
    expect(store.getState().logScroll).toBe(0);
    await until(inst, (x) => /─ Events 4 ─+ following ─/.test(x));
  });

  it('/ shows the old filter selected: typing replaces it, an arrow keeps it to edit, backspace clears it', async () => {
    const { inst } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, '/', 'wait', KEY.enter);
    await until(inst, (x) => x.includes('Runs 1/4') && !x.includes('filter> '));
    await press(inst, '/');
    await until(inst, (x) => x.includes('filter> wait▏  typing replaces it'));
    await press(inst, 'idl');
    await until(inst, (x) => x.includes('filter> idl▏') && x.includes('idler-b') && x.includes('Runs 1/4'));
    await press(inst, KEY.enter, '/', '\x1b[C', 'er');
    await until(inst, (x) => x.includes('filter> idler▏') && x.includes('Runs 1/4'));
    await press(inst, KEY.enter, '/', KEY.backspace);
    await until(inst, (x) => x.includes('filter> ▏text to match') && x.includes('Runs 4/4'));
  });

  it('enter shows details, esc returns; w waits on the selected run', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, KEY.enter);
    await until(inst, (x) => x.includes('Details: idler-b'));
    expect(calls.map((c) => c.action)).toEqual(['detailsOpened']);
    await press(inst, 'w');
    expect(calls.at(-1)).toEqual({ action: 'wait', args: [store.getState().selected] });
    await press(inst, KEY.esc);
    await until(inst, (x) => x.includes('Limiter') && !x.includes('Details:'));
  });

  it('tab cycles panes, e toggles the event log, t cycles and remembers the theme, ? shows help, q quits', async () => {
    const { inst, calls, store, exits } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, KEY.tab);
    expect(store.getState().pane).toBe('limiter');
    await press(inst, KEY.tab);
    expect(store.getState().pane).toBe('events');
    await press(inst, KEY.tab);
    expect(store.getState().pane).toBe('runs');
    await press(inst, 'e');
    await until(inst, (x) => !x.includes('Events 0'));
    await press(inst, 'e');
    await until(inst, (x) => x.includes('Events 0'));
    await press(inst, 't');
    expect(store.getState().theme).toBe('light');
    expect(calls.at(-1)).toEqual({ action: 'themeChanged', args: ['light'] });
    await press(inst, '?');
    await until(inst, (x) => x.includes('Help — keys') && x.includes('kill without asking'));
    await press(inst, '?');
    await until(inst, (x) => !x.includes('Help — keys'));
    await press(inst, 'q');
    expect(exits).toEqual([1]);
  });

  it('nothing an agent printed reaches the terminal as a control sequence: rows, limiter, events, notices, details and output', async () => {
    // An OSC 52 clipboard write, a title change, a CSI clear screen, an 8-bit C1 CSI and a newline.
    const NASTY = 'A\x1b]52;c;b3JjcjogcHduZWQ=\x07B\x1b]0;x\x07C\x1b[2J\x1b[HD\u009b31mE\nF';
    const SAFE = 'ABCDE F';
    const bad = run({
      name: `n-${NASTY}`,
      status: 'ended',
      provider: `p-${NASTY}`,
      workload: `w-${NASTY}`,
      exit_reason: 'errored',
      exit_detail: `d-${NASTY}`,
      exit_code: 1,
      command: ['sh', '-c', `echo ${NASTY}`],
      cwd: `/tmp/${NASTY}`,
      last_tool: `t-${NASTY}`,
      last_text: `x-${NASTY}`,
      queue_seq: 1,
    });
    const waiting = run({ name: `q-${NASTY}`, status: 'queued', queue_seq: 2 });
    const store = createTuiStore({ home: '/tmp/h', now: T0 + 5000, theme: 'dark' });
    store.setState((s) =>
      reduceSnapshot(
        s,
        {
          seq: 10,
          runs: [bad, waiting],
          events: [
            { seq: 8, ts: T0, run: bad.uuid, type: 'ended', data: { reason: `r-${NASTY}`, detail: `d-${NASTY}`, exit_code: 1 } },
            { seq: 9, ts: T0, run: null, type: `e-${NASTY}`, data: { what: NASTY } },
            { seq: 10, ts: T0, run: null, type: 'hold', data: { provider: NASTY, until: T0 + 60_000 } },
          ].map(offType),
        },
        T0 + 5000,
      ),
    );
    store.setState({
      conn: { state: 'up', pid: 99, startedAt: T0, error: null, since: T0, starting: false },
      stats: statsOf({
        caps: [{ cap: `provider:${NASTY}`, limit: 1, active: 0, holders: [], queued: 1, oldest_wait_ms: 1, waiting: ['not-in-the-store'] }],
        names: { 'not-in-the-store': `s-${NASTY}` },
        holds: { [NASTY]: T0 + 60_000 },
        warnings: [`warn-${NASTY}`],
        config_error: { at: T0, message: `cfg-${NASTY}` },
      }),
      ...error(`server says ${NASTY}`, T0),
    });
    const inst = render(<App store={store} actions={fakeActions([])} themes={themes} onExit={() => undefined} size={{ columns: 120, rows: 40 }} />);
    const clean = (f: string): void => {
      expect(f).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      for (const leak of ['b3JjcjogcHduZWQ=', ']0;x', '[2J', '31m']) expect(f).not.toContain(leak);
      expect(lines(f)).toHaveLength(39);
    };
    let f = await until(inst, (x) => x.includes('Limiter') && x.includes(`s-${SAFE}`));
    clean(f);
    expect(f).toMatch(new RegExp(`■ ended\\s+errored \\(exit \\d+\\)\\s+n-${SAFE}`));
    expect(f).toContain(`server says ${SAFE}`);
    expect(f).toContain(`e-${SAFE}`);
    expect(f).toContain(`cfg-${SAFE}`);
    expect(f).toContain(`warn-${SAFE}`);
    expect(f).toContain(`s-${SAFE}`);
    // The errored run needs you: it leads the list.
    await press(inst, 'g', KEY.enter);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-nasty-'));
    fs.writeFileSync(path.join(dir, 'out'), `out-${NASTY}\r\nlast\n`);
    // The output as details show it: the transcript document the connection would feed.
    const doc = new TranscriptDoc(bad.uuid, 'jsonl');
    doc.push(readAll(path.join(dir, 'out')).lines);
    store.setState({ details: { uuid: bad.uuid, cpu: null, rssBytes: null, pids: [], scroll: 0 }, outputDoc: doc, outputVersion: 1 });
    fs.rmSync(dir, { recursive: true, force: true });
    f = await until(inst, (x) => x.includes(`Details: n-${SAFE}`) && x.includes('─ Transcript (r: raw lines)') && x.includes('last'));
    clean(f);
    // In the output a newline is a new line, as the agent meant it.
    for (const t of [`d-${SAFE}`, `t-${SAFE}`, `x-${SAFE}`, `/tmp/${SAFE}`, 'out-ABCDE\nF\nlast']) expect(f).toContain(t);
  });

  it('R reruns an ended run and refuses a live one; P pauses the queue, and resumes it once stats say it is paused', async () => {
    const { inst, calls, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'R');
    await until(inst, (x) => x.includes('idler-b is idle: rerun takes an ended run (x kills it first)'));
    expect(calls).toEqual([]);
    await press(inst, 'G', 'R');
    const ended = Object.values(store.getState().runs.byId).find((r) => r.name === 'done-d')!;
    await until(inst, () => calls.length === 1);
    expect(calls).toEqual([{ action: 'rerun', args: [ended.uuid] }]);
    await press(inst, 'P');
    expect(calls.at(-1)).toEqual({ action: 'pauseQueue', args: [true] });
    store.setState((s) => ({ stats: { ...s.stats!, paused: true } }));
    await until(inst, (x) => x.includes('queue paused'));
    await press(inst, 'P');
    expect(calls.at(-1)).toEqual({ action: 'pauseQueue', args: [false] });
  });

  it('S sorts by the next column and says so in the title; - reverses; the choice is handed on to be remembered', async () => {
    const { inst, calls } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'S');
    await until(inst, (x) => x.includes('by elapsed, longest first') && x.includes('sorted by elapsed, longest first (S: next column, -: reverse, b: group)'));
    await press(inst, 'S', 'S', 'S');
    let f = await until(inst, (x) => x.includes('by name, A→Z'));
    const rows = (frame: string): string[] => ['done-d', 'idler-b', 'waiter-c', 'worker-a'].sort((a, b) => frame.indexOf(a) - frame.indexOf(b));
    // The idle interactive run needs you: it leads whatever the order of the rest.
    expect(rows(f)).toEqual(['idler-b', 'done-d', 'waiter-c', 'worker-a']);
    await press(inst, '-');
    f = await until(inst, (x) => x.includes('by name, Z→A'));
    expect(rows(f)).toEqual(['idler-b', 'worker-a', 'waiter-c', 'done-d']);
    expect(calls.filter((c) => c.action === 'sortChanged').map((c) => c.args[0])).toEqual([
      { key: 'elapsed', reverse: false, group: null },
      { key: 'cost', reverse: false, group: null },
      { key: 'tokens', reverse: false, group: null },
      { key: 'name', reverse: false, group: null },
      { key: 'name', reverse: true, group: null },
    ]);
  });

  it('J jumps to the next run that needs you and says why; the title counts them; opening an ended one lets it go', async () => {
    const { inst, store } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    // Only the interactive idle run needs anyone so far.
    await until(inst, (x) => x.includes('1 needs you'));
    await press(inst, 'G', 'J');
    await until(inst, (x) => x.includes('idler-b: awaiting input (1 needs you)') && /› ◇ idle\s+awaiting input\s+idler-b/.test(x));
    const failed = run({ name: 'broke-e', status: 'ended', exit_reason: 'errored', exit_code: 3, queue_seq: 9, status_at: new Date(T0 + 6000).toISOString() });
    store.setState((s) => reduceSnapshot(s, { seq: 11, runs: [...Object.values(s.runs.byId), failed] }, T0 + 6000));
    await until(inst, (x) => x.includes('2 need you') && /! ■ ended\s+errored \(exit 3\)\s+broke-e/.test(x));
    // The newest leads; J from the top goes to the next, and round again.
    await press(inst, 'g', 'J');
    await until(inst, (x) => x.includes('idler-b: awaiting input (2 need you)'));
    await press(inst, 'J');
    await until(inst, (x) => x.includes('broke-e: errored (exit 3) (2 need you)'));
    await press(inst, KEY.enter, KEY.esc);
    await until(inst, (x) => x.includes('1 needs you') && /■ ended\s+errored\s+broke-e/.test(x));
  });

  it('b groups the runs by provider, then workload, then not at all; the title says so and the choice is handed on', async () => {
    const { inst, calls } = setup();
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, 'b');
    await until(inst, (x) => x.includes('by status, grouped by provider'));
    await press(inst, 'b');
    await until(inst, (x) => x.includes('by status, grouped by workload'));
    await press(inst, 'b');
    await until(inst, (x) => !x.includes('grouped by'));
    expect(calls.filter((c) => c.action === 'sortChanged').map((c) => (c.args[0] as { group: unknown }).group)).toEqual(['provider', 'workload', null]);
  });

  it('? on a small terminal scrolls: j/k and G reach the last line, g the first; the title says where', async () => {
    const { inst } = setup(20);
    await until(inst, (x) => x.includes('Limiter'));
    await press(inst, '?');
    let f = await until(inst, (x) => /Help — keys.*1-\d+ of \d+ · j\/k scroll · esc or \? closes/.test(x));
    expect(f).not.toContain('new run: -a PROVIDER');
    await press(inst, 'G');
    f = await until(inst, (x) => x.includes('new run: -a PROVIDER'));
    expect(f).toContain('pause/resume the queue');
    await press(inst, 'g');
    await until(inst, (x) => /1-\d+ of/.test(x) && !x.includes('new run: -a PROVIDER'));
  });

  it('re-flows to the terminal size: 80x24 keeps the essentials', async () => {
    const { store } = setup();
    cleanup();
    const inst = render(<App store={store} actions={fakeActions([])} themes={themes} onExit={() => undefined} size={{ columns: 80, rows: 24 }} />);
    const f = await until(inst, (x) => x.includes('Limiter'));
    expect(lines(f)).toHaveLength(23);
    expect(f).toContain('worker-a');
    expect(f).toContain('Events 0');
    await tick();
  });
});
