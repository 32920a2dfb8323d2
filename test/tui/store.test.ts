// The store's reducers: snapshot + events → state, without rendering.

import './no-ci.js';
import { describe, expect, it } from 'vitest';
import { applyEvents, applySnapshot } from '../../src/tui/state/runs.js';
import { computeView } from '../../src/tui/state/runs-view.js';
import { describeEvent } from '../../src/tui/state/event-log.js';
import { createTuiStore, initialState, type TuiState } from '../../src/tui/state/store.js';
import { reduceFilter, reduceShowAll, reduceSnapshot, reduceStats, reduceStream } from '../../src/tui/state/reducers.js';
import { reduceList, reduceOpenDetails, reduceCloseDetails, reduceViewport } from '../../src/tui/state/navigation.js';
import { ev, foreignEv, msg, run, statsOf, T0 } from './fixtures.js';
import type { PublicRun } from '../../src/protocol/views.js';

function apply(s: TuiState, patch: Partial<TuiState>): TuiState {
  return { ...s, ...patch };
}

describe('applySnapshot / applyEvents', () => {
  it('a snapshot becomes runs by id with its seq', () => {
    const a = run({ status: 'working' });
    const b = run({ status: 'queued' });
    const data = applySnapshot({ seq: 10, runs: [a, b] });
    expect(Object.keys(data.byId).sort()).toEqual([a.uuid, b.uuid].sort());
    expect(data.seq).toBe(10);
  });

  it('ignores stream events at or below the snapshot seq, applies the rest in order (last view wins)', () => {
    const a = run({ status: 'working', turns: 1 });
    const data = applySnapshot({ seq: 10, runs: [a] });
    const out = applyEvents(data, [
      msg(9, 'usage', { ...a, turns: 0 }),
      msg(10, 'usage', { ...a, turns: 0 }),
      msg(11, 'usage', { ...a, turns: 2 }),
      msg(12, 'idle', { ...a, status: 'idle', turns: 3 }),
    ]);
    expect(out.fresh.map((m) => m.event.seq)).toEqual([11, 12]);
    expect(out.data.seq).toBe(12);
    expect(out.data.byId[a.uuid]!.status).toBe('idle');
    expect(out.data.byId[a.uuid]!.turns).toBe(3);
  });

  it('adds runs it has not seen and reports blocked and ended runs as notable', () => {
    const data = applySnapshot({ seq: 0, runs: [] });
    const a = run({ status: 'queued', name: 'alpha' });
    const out = applyEvents(data, [
      msg(1, 'queued', a),
      msg(2, 'blocked', { ...a, status: 'blocked', blocked_kind: 'limit' }, { kind: 'limit' }),
      msg(3, 'ended', { ...a, status: 'ended', exit_reason: 'killed' }, { reason: 'killed' }),
    ]);
    expect(out.data.byId[a.uuid]!.status).toBe('ended');
    expect(out.notable).toEqual([
      { kind: 'blocked', uuid: a.uuid, name: 'alpha', detail: 'limit' },
      { kind: 'ended', uuid: a.uuid, name: 'alpha', detail: 'killed' },
    ]);
  });

  it("takes each event's row as it comes, even one that goes back on the row before it (the server's row is the truth for its seq)", () => {
    const a = run({ status: 'working', turns: 1 });
    const data = applySnapshot({ seq: 1, runs: [a] });
    const usage = { ...a, turns: 2, tokens: { input: 10, output: 5, cached: 0 }, cost_usd: 0.5 };
    const blocked: PublicRun = { ...usage, status: 'blocked', blocked_kind: 'login' };
    const ended: PublicRun = {
      ...blocked,
      status: 'ended',
      blocked_kind: null,
      exit_reason: 'killed',
      exit_code: 143,
      ended_at: new Date(T0 + 4000).toISOString(),
    };
    const out = applyEvents(data, [
      msg(2, 'usage', usage, { turns: 2 }),
      msg(3, 'blocked', blocked, { from: 'working', kind: 'login' }),
      msg(4, 'ended', ended, { from: 'blocked', reason: 'killed' }),
    ]);
    expect(out.data.byId[a.uuid]).toEqual(ended);
    expect(applyEvents(data, out.fresh.slice(0, 2)).data.byId[a.uuid]).toEqual(blocked);
    expect(applyEvents(data, out.fresh.slice(0, 1)).data.byId[a.uuid]).toEqual(usage);
    // No reconstruction from the event's data: the row says what it says.
    const odd = applyEvents(data, [msg(2, 'ended', { ...a, turns: 0 }, { reason: 'killed' })]).data.byId[a.uuid]!;
    expect(odd).toMatchObject({ status: 'working', turns: 0, exit_reason: null });
  });

  it('an event without a row (a run the server no longer knows) leaves the row as it is, and still tells of it', () => {
    const a = run({ status: 'working', name: 'gone' });
    const data = applySnapshot({ seq: 1, runs: [a] });
    const out = applyEvents(data, [
      { type: 'event', event: ev(2, 'ended', a.uuid, { reason: 'lost' }), run: null },
      msg(3, 'supervisor_started', null, { pid: 1 }),
    ]);
    expect(out.data.byId[a.uuid]).toBe(data.byId[a.uuid]);
    expect(out.data.seq).toBe(3);
    expect(out.fresh).toHaveLength(2);
    expect(out.notable).toEqual([{ kind: 'ended', uuid: a.uuid, name: 'gone', detail: 'lost' }]);
  });

  it('a rows message (a row changed without an event) replaces the row, unless a later event was applied already', () => {
    const a = run({ status: 'working', name: 'talker' });
    const data = applySnapshot({ seq: 4, runs: [a] });
    const said = { ...a, last_tool: 'Bash', last_text: 'done reading' };
    const out = applyEvents(data, [{ type: 'rows', seq: 4, runs: [said] }]);
    expect(out.data.byId[a.uuid]).toEqual(said);
    expect(out.fresh).toEqual([]);
    expect(out.data.seq).toBe(4);
    // Sent before event 5, read after it: event 5's row is the newer one.
    const idle: PublicRun = { ...a, status: 'idle', last_text: 'all done' };
    const late = applyEvents(data, [msg(5, 'idle', idle), { type: 'rows', seq: 4, runs: [said] }]);
    expect(late.data.byId[a.uuid]).toEqual(idle);
    // In order, the rows after the event win.
    const inOrder = applyEvents(data, [msg(5, 'idle', idle), { type: 'rows', seq: 5, runs: [{ ...idle, last_text: 'one more thing' }] }]);
    expect(inOrder.data.byId[a.uuid]!.last_text).toBe('one more thing');
  });

  it('a rows message reaches the screen state through reduceStream, with no log line', () => {
    const a = run({ status: 'working' });
    const s = { ...initialState(), ...reduceSnapshot(initialState(), { seq: 3, runs: [a] }, T0) };
    const { patch } = reduceStream(s, [{ type: 'rows', seq: 3, runs: [{ ...a, last_text: 'hello' }] }]);
    expect(patch.runs?.byId[a.uuid]?.last_text).toBe('hello');
    expect(patch.log).toBeUndefined();
  });

  it('returns the same data object when nothing is new', () => {
    const data = applySnapshot({ seq: 5, runs: [run()] });
    expect(applyEvents(data, [msg(5, 'usage', null)]).data).toBe(data);
  });
});

describe('computeView', () => {
  const blocked = run({ status: 'blocked', blocked_kind: 'login', queue_seq: 50 });
  const idle = run({ status: 'idle', queue_seq: 40 });
  const w2 = run({ status: 'working', queue_seq: 31, name: 'builder' });
  const w1 = run({ status: 'working', queue_seq: 30, provider: 'codex' });
  const q2 = run({ status: 'queued', queue_seq: 61 });
  const q1 = run({ status: 'queued', queue_seq: 60 });
  const ended = run({ status: 'ended', exit_reason: 'completed', queue_seq: 1 });
  const byId = Object.fromEntries([ended, q2, w2, idle, q1, w1, blocked].map((r) => [r.uuid, r]));

  it('sorts by status (blocked, idle, working, starting, queued, ended), then queue order', () => {
    const v = computeView(byId, { filter: '', showAll: true });
    expect(v.ids).toEqual([blocked, idle, w1, w2, q1, q2, ended].map((r) => r.uuid));
    expect(v.counts).toEqual({ queued: 2, starting: 0, working: 2, idle: 1, blocked: 1, ended: 1 });
    expect(v.total).toBe(7);
  });

  it('lists and numbers queued runs by the place the supervisor gives each (queue_position), whatever the filter', () => {
    // A run of a higher-priority workload goes first even though it was queued last: the supervisor says so.
    const urgent = run({ status: 'queued', queue_seq: 62, workload: 'review', queue_position: 1 });
    const told = { ...byId, [q1.uuid]: { ...q1, queue_position: 2 }, [q2.uuid]: { ...q2, queue_position: 3 }, [urgent.uuid]: urgent };
    const v = computeView(told, { filter: 'zzz-no-match', showAll: true });
    expect(v.ids).toEqual([]);
    expect(v.positions).toEqual({ [urgent.uuid]: 1, [q1.uuid]: 2, [q2.uuid]: 3 });
    const all = computeView(told, { filter: '', showAll: true });
    expect(all.ids.filter((id) => told[id]!.status === 'queued')).toEqual([urgent.uuid, q1.uuid, q2.uuid]);
    // A queued run it gave no place has none here either, and goes after those it did.
    const unknown = run({ status: 'queued', queue_seq: 10 });
    const some = computeView({ ...told, [unknown.uuid]: unknown }, { filter: '', showAll: true });
    expect(some.positions[unknown.uuid]).toBeUndefined();
    expect(some.ids.filter((id) => id === unknown.uuid || told[id]?.status === 'queued')).toEqual([urgent.uuid, q1.uuid, q2.uuid, unknown.uuid]);
  });

  it('queue positions the supervisor sends (rows with positions) move the queued runs; stats leave the order alone', () => {
    const a = run({ status: 'queued', queue_seq: 1, workload: 'batch', queue_position: 1 });
    const b = run({
      status: 'queued',
      queue_seq: 2,
      workload: 'review',
      queue_position: 2,
      waiting: { reason: 'global', name: null, active: 1, limit: 1, reserved: null, until: null, position: 2 },
    });
    const w = run({ status: 'working', queue_seq: 0 });
    let s = initialState();
    s = { ...s, ...reduceSnapshot(s, { seq: 1, runs: [w, a, b] }, T0) };
    expect(s.view.positions).toEqual({ [a.uuid]: 1, [b.uuid]: 2 });
    // review's priority went up: b is next now, though no event was about either run.
    s = { ...s, ...reduceStream(s, [{ type: 'rows', seq: 1, runs: [], positions: { [b.uuid]: 1, [a.uuid]: 2, [w.uuid]: null, 'not-a-run-here': 3 } }]).patch };
    expect(s.view.positions).toEqual({ [b.uuid]: 1, [a.uuid]: 2 });
    expect(s.view.ids).toEqual([w.uuid, b.uuid, a.uuid]);
    expect(s.runs.byId[b.uuid]!.waiting?.position).toBe(1);
    expect(s.runs.byId[w.uuid]!.queue_position).toBeNull();
    expect(s.runs.byId['not-a-run-here']).toBeUndefined();
    // Stats tell caps and priorities, not places: the order stays the supervisor's.
    const caps = [
      { cap: 'global', limit: 1, active: 1, holders: [w.uuid], queued: 2, oldest_wait_ms: 0 },
      { cap: 'workload:batch', limit: 1, active: 0, holders: [], queued: 1, oldest_wait_ms: 0, priority: 9 },
      { cap: 'workload:review', limit: 1, active: 0, holders: [], queued: 1, oldest_wait_ms: 0, priority: 0 },
    ];
    const patch = reduceStats(s, statsOf({ caps }));
    expect(Object.keys(patch)).toEqual(['stats']);
    // Unknown to the supervisor now (a cluster whose database is away): no place, as it says.
    s = { ...s, ...reduceStream(s, [{ type: 'rows', seq: 1, runs: [], positions: { [a.uuid]: null } }]).patch };
    expect(s.view.positions).toEqual({ [b.uuid]: 1 });
  });

  it('hides ended runs when showing active runs only', () => {
    expect(computeView(byId, { filter: '', showAll: false }).ids).not.toContain(ended.uuid);
  });

  it('filters on name, provider, status and id, all words must match', () => {
    expect(computeView(byId, { filter: 'build', showAll: true }).ids).toEqual([w2.uuid]);
    expect(computeView(byId, { filter: 'codex', showAll: true }).ids).toEqual([w1.uuid]);
    expect(computeView(byId, { filter: 'LOGIN', showAll: true }).ids).toEqual([blocked.uuid]);
    expect(computeView(byId, { filter: `working ${w1.uuid.slice(0, 8)}`, showAll: true }).ids).toEqual([w1.uuid]);
  });
});

describe('store reducers', () => {
  it('snapshot then stream: rows, order, log and notable changes', () => {
    let s = initialState({ now: T0 });
    const a = run({ status: 'working', name: 'alpha', queue_seq: 1 });
    const b = run({ status: 'queued', name: 'beta', queue_seq: 2 });
    s = apply(
      s,
      reduceSnapshot(
        s,
        { seq: 5, runs: [a, b], events: [ev(4, 'queued', b.uuid, { provider: 'claude', workload: 'default' }), ev(5, 'usage', a.uuid, {})] },
        T0,
      ),
    );
    expect(s.loaded).toBe(true);
    expect(s.view.ids).toEqual([a.uuid, b.uuid]);
    expect(s.selected).toBe(a.uuid);
    expect(s.log.size).toBe(1); // usage events stay out of the log
    const { patch, notable } = reduceStream(s, [
      msg(5, 'working', a),
      msg(6, 'starting', { ...b, status: 'starting' }),
      msg(7, 'ended', { ...a, status: 'ended', exit_reason: 'completed' }, { reason: 'completed' }),
    ]);
    s = apply(s, patch);
    expect(s.runs.byId[a.uuid]!.status).toBe('ended');
    expect(s.view.ids).toEqual([b.uuid, a.uuid]); // starting sorts before ended
    expect(s.selected).toBe(a.uuid); // the selection follows the run, not the row
    expect(s.list.cursor).toBe(1);
    expect(s.log.size).toBe(3);
    expect(s.log.at(2)!.text).toBe('completed');
    expect(notable).toEqual([{ kind: 'ended', uuid: a.uuid, name: 'alpha', detail: 'completed' }]);
  });

  it('a second snapshot replaces every row (reconnect): no duplicates, no leftovers, no repeated log lines', () => {
    let s = initialState();
    const a = run({ status: 'working' });
    const b = run({ status: 'working' });
    s = apply(s, reduceSnapshot(s, { seq: 3, runs: [a, b], events: [ev(2, 'queued', a.uuid), ev(3, 'queued', b.uuid)] }, T0));
    const b2: PublicRun = { ...b, status: 'ended', exit_reason: 'killed' };
    const c = run({ status: 'queued' });
    s = apply(
      s,
      reduceSnapshot(
        s,
        { seq: 9, runs: [b2, c], events: [ev(3, 'queued', b.uuid), ev(8, 'ended', b.uuid, { reason: 'killed' }), ev(9, 'queued', c.uuid)] },
        T0,
      ),
    );
    expect(Object.keys(s.runs.byId).sort()).toEqual([b.uuid, c.uuid].sort());
    expect(s.view.ids).toEqual([c.uuid, b.uuid]);
    expect(s.log.slice(0, s.log.size).map((e) => e.seq)).toEqual([2, 3, 8, 9]);
    // stream events from before the new snapshot are ignored
    const { patch } = reduceStream(s, [msg(8, 'ended', { ...b, status: 'working' })]);
    expect(patch).toEqual({});
  });

  it('moves the selection inside the window and keeps it on screen', () => {
    let s = initialState();
    const runs = Array.from({ length: 30 }, (_, i) => run({ status: 'queued', queue_seq: 100 + i }));
    s = apply(s, reduceSnapshot(s, { seq: 1, runs }, T0));
    s = apply(s, reduceViewport(s, { ...s.viewport, width: 100, runsHeight: 10, limiterHeight: 3, eventsHeight: 3, detailsOutputHeight: 5 }));
    s = apply(s, reduceList(s, { type: 'down', n: 12 }));
    expect(s.list).toEqual({ cursor: 12, offset: 3 });
    expect(s.selected).toBe(runs[12]!.uuid);
    s = apply(s, reduceList(s, { type: 'last' }));
    expect(s.list).toEqual({ cursor: 29, offset: 20 });
    s = apply(s, reduceViewport(s, { ...s.viewport, width: 100, runsHeight: 25, limiterHeight: 3, eventsHeight: 3, detailsOutputHeight: 5 }));
    expect(s.list).toEqual({ cursor: 29, offset: 5 });
  });

  it('filter and active/all recompute the rows and keep a valid selection', () => {
    let s = initialState();
    const a = run({ status: 'working', name: 'alpha' });
    const b = run({ status: 'ended', name: 'beta', exit_reason: 'completed' });
    s = apply(s, reduceSnapshot(s, { seq: 1, runs: [a, b] }, T0));
    s = apply(s, reduceList(s, { type: 'last' }));
    expect(s.selected).toBe(b.uuid);
    s = apply(s, reduceShowAll(s, false));
    expect(s.view.ids).toEqual([a.uuid]);
    expect(s.selected).toBe(a.uuid);
    s = apply(s, reduceFilter(s, 'nomatch'));
    expect(s.view.ids).toEqual([]);
    expect(s.selected).toBe(null);
  });

  it('while details show a run, it stays selected when it leaves the list (ended, active runs only); back in the list the cursor row is selected again', () => {
    let s = initialState();
    const a = run({ status: 'working', name: 'alpha', queue_seq: 1 });
    const b = run({ status: 'working', name: 'beta', queue_seq: 2 });
    s = apply(s, reduceSnapshot(s, { seq: 1, runs: [a, b] }, T0));
    s = apply(s, reduceShowAll(s, false));
    s = apply(s, reduceList(s, { type: 'last' }));
    s = apply(s, reduceOpenDetails(s, b.uuid));
    s = apply(s, reduceStream(s, [msg(2, 'ended', { ...b, status: 'ended', exit_reason: 'completed' }, { reason: 'completed' })]).patch);
    expect(s.view.ids).toEqual([a.uuid]);
    expect(s.selected).toBe(b.uuid);
    s = apply(s, reduceCloseDetails(s));
    expect(s.mode).toBe('list');
    expect(s.selected).toBe(a.uuid);
  });

  it('createTuiStore starts connecting with nothing loaded', () => {
    const st = createTuiStore({ home: '/h' }).getState();
    expect(st.conn.state).toBe('connecting');
    expect(st.loaded).toBe(false);
    expect(st.home).toBe('/h');
  });
});

describe('stats and events text', () => {
  it('takes stats as the supervisor sends them: the meters with a ceiling, every text made safe', () => {
    const st = statsOf({
      caps: [{ cap: 'provider:cl\x1b[2Jaude', limit: 2, active: 1, holders: ['u1'] }],
      active: 1,
      names: { u1: 'build\x1b]0;x\x07-1' },
      holds: { 'cl\x1b[2Jaude': T0 + 60_000 },
      warnings: ['bad \x1b[31mvalue'],
      fleet: {
        exceeded: false,
        window: 'all',
        meters: { tokens: { used: 500, limit: 1000, fraction: 0.5, warn: false }, cost_usd: { used: 1, limit: null, fraction: null, warn: false } },
      },
    });
    expect(st.caps[0]!.cap).toBe('provider:claude');
    expect(st.names).toEqual({ u1: 'build-1' });
    expect(st.holds).toEqual({ claude: T0 + 60_000 });
    expect(st.warnings).toEqual(['bad value']);
    expect(st.fleet).toEqual([{ name: 'tokens', used: 500, limit: 1000, fraction: 0.5 }]);
    expect(statsOf({}).fleet).toEqual([]);
  });

  it('describes events in words', () => {
    expect(describeEvent(ev(1, 'ended', 'u', { reason: 'killed', detail: null, exit_code: 143 }))).toBe('killed, exit 143');
    expect(describeEvent(ev(1, 'blocked', 'u', { kind: 'limit', from: 'working', retry_after_s: 30 }))).toBe('limit, retry after 30s (from working)');
    expect(describeEvent(ev(1, 'loop_detected', 'u', { by: 'tool', action: 'warn' }))).toBe('by tool, action warn');
    expect(describeEvent(foreignEv(1, 'something_new', null, { a: 1, b: 'x' }))).toBe('a=1 b=x');
  });
});
