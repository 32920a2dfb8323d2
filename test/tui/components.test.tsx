// Every pane rendered with ink-testing-library (100 columns), asserted on
// the text a person would read.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { hasConfigNotice, Header } from '../../components/Header.js';
import { RunsTable } from '../../components/RunsTable.js';
import { LimiterPane } from '../../components/LimiterPane.js';
import { EventLog } from '../../components/EventLog.js';
import { Details } from '../../components/Details.js';
import { Footer } from '../../components/Footer.js';
import { Help } from '../../components/Help.js';
import { createTuiStore, type TuiState, type TuiStore } from '../../src/tui/state/store.js';
import { reduceList, reduceViewport } from '../../src/tui/state/navigation.js';
import { reduceSnapshot, reduceStats, reduceStream } from '../../src/tui/state/reducers.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { ev, msg, run, statsOf, T0 } from './fixtures.js';
import { displayWidth } from '../../src/text/display-width.js';
import { TranscriptDoc } from '../../src/tui/state/transcript-doc.js';
import { lines, renderPane, until } from './helpers.js';

afterEach(() => cleanup());

const NOW = T0 + 120_000;

function storeWith(runs: ReturnType<typeof run>[], over: Partial<TuiState> = {}, events: ReturnType<typeof ev>[] = []): TuiStore {
  const store = createTuiStore({ home: '/tmp/orcr-home', now: NOW, ...over });
  store.setState((s) => reduceSnapshot(s, { seq: 100, runs, events }, NOW));
  store.setState({ conn: { state: 'up', pid: 4321, startedAt: T0, error: null, since: T0, starting: false } });
  return store;
}

const fleet = () => {
  const working = run({
    name: 'build-api',
    status: 'working',
    provider: 'claude',
    workload: 'batch',
    turns: 3,
    tokens: { input: 12_000, output: 3_400, cached: 0 },
    cost_usd: 0.42,
    queue_seq: 1,
  });
  const idle = run({ name: 'chat-ui', status: 'idle', provider: 'jsonl', interactive: true, queue_seq: 2 });
  const blocked = run({ name: 'fix-login', status: 'blocked', blocked_kind: 'limit', queue_seq: 3 });
  // Their places as the supervisor gives them.
  const queued = run({ name: 'later-1', status: 'queued', queue_seq: 10, queue_position: 1, created_at: new Date(T0).toISOString() });
  const queued2 = run({
    name: 'later-2',
    status: 'queued',
    queue_seq: 11,
    queue_position: 2,
    created_at: new Date(T0).toISOString(),
    held_until: new Date(NOW + 60_000).toISOString(),
  });
  const ended = run({ name: 'old-job', status: 'ended', exit_reason: 'killed', exit_code: 143, queue_seq: 0 });
  const looping = run({ name: 'spinner', status: 'working', loop: { detected: true, warned: true, repetitions: 4 }, queue_seq: 4 });
  return { working, idle, blocked, queued, queued2, ended, looping, all: [working, idle, blocked, queued, queued2, ended, looping] };
};

describe('Header', () => {
  it('shows home, supervisor, counts by status and holds', () => {
    const f = fleet();
    const store = storeWith(f.all);
    store.setState({ stats: statsOf({ caps: [], queued: 2, active: 4, holds: { claude: NOW + 90_000, gone: NOW - 1 } }) });
    const inst = renderPane(store, <Header width={100} />);
    const [l1, l2] = lines(inst.lastFrame()!);
    expect(l1).toContain('orcr /tmp/orcr-home');
    expect(l1).toMatch(/supervisor pid 4321 · up 2m(\s|$)/);
    expect(l2).toContain('2 queued');
    expect(l2).toContain('2 working');
    expect(l2).toContain('1 blocked');
    expect(l2).toContain('1 ended');
    expect(l2).toContain('hold claude 1m30s');
    expect(l2).not.toContain('gone');
  });

  it('shows fleet budget meters when stats has them, and omits them otherwise', () => {
    const store = storeWith([]);
    const inst = renderPane(store, <Header width={100} />);
    expect(inst.lastFrame()).not.toContain('fleet');
    store.setState({
      stats: statsOf({ caps: [], fleet: { exceeded: false, window: 'all', meters: { cost_usd: { used: 4.5, limit: 10, fraction: 0.45, warn: false } } } }),
    });
    return until(inst, (f) => f.includes('fleet cost') && f.includes('$4.50/$10.00 45%'));
  });

  it('a third line tells of a refused config.json and of clamped values, so no one has to read server.log', async () => {
    const store = storeWith([]);
    store.setState({
      stats: statsOf({
        caps: [],
        warnings: ['concurrency.max 5000 is above 1000: using 1000'],
        config_error: { at: T0 + 60_000, message: 'concurrency.max: expected a number, got "eight"' },
      }),
    });
    const inst = renderPane(store, <Header width={200} height={3} />);
    const ls = lines(inst.lastFrame()!);
    expect(ls).toHaveLength(3);
    expect(ls[2]).toContain('✗ config.json refused at ');
    expect(ls[2]).toContain('concurrency.max: expected a number, got "eight" — the previous config stays in force');
    expect(ls[2]).toContain('⚠ config: concurrency.max 5000 is above 1000: using 1000');
    expect(hasConfigNotice(store.getState().stats)).toBe(true);
    expect(hasConfigNotice(statsOf({ caps: [], warnings: [], config_error: null }))).toBe(false);
  });

  it('names the cluster with its machines up and its database state, and a paused queue', async () => {
    const store = storeWith([]);
    const machines = [
      { host: 'a', heartbeat: '', alive: true, leases: 1, waiters: 0 },
      { host: 'b', heartbeat: '', alive: true, leases: 0, waiters: 2 },
      { host: 'c', heartbeat: '', alive: false, leases: 0, waiters: 0 },
    ];
    store.setState({
      stats: statsOf({ caps: [], paused: true, cluster: { name: 'prod', host: 'a', available: true, since: NOW - 60_000, error: null, machines } }),
    });
    const inst = renderPane(store, <Header width={140} />);
    const [l1, l2] = lines(inst.lastFrame()!);
    expect(l1).toContain('cluster prod · 2/3 machines up · db ok');
    expect(l2).toContain('⏸ queue paused: nothing starts (P resumes)');
    expect(l1).not.toContain('notifications');
    // Behind a transaction-mode pooler: notices from other machines do not arrive, and it polls.
    store.setState({
      stats: statsOf({
        caps: [],
        cluster: { name: 'prod', host: 'a', available: true, since: NOW - 60_000, error: null, notifications: 'not arriving', machines },
      }),
    });
    await until(inst, (f) => lines(f)[0]!.includes('cluster prod · 2/3 machines up · db ok · no notifications: polling'));
    // Before its first heartbeat has read the machines: none said, not "0/0 up".
    store.setState({ stats: statsOf({ caps: [], cluster: { name: 'prod', host: 'a', available: true, since: NOW, error: null, machines: [] } }) });
    await until(inst, (f) => lines(f)[0]!.includes('cluster prod · db ok') && !f.includes('0/0'));
    store.setState({
      stats: statsOf({ caps: [], cluster: { name: 'prod', host: 'a', available: false, since: NOW - 12_000, error: 'connect ECONNREFUSED', machines } }),
    });
    await until(inst, (f) => lines(f)[0]!.includes('cluster prod ✗ database unavailable 12s: admitting nothing') && !f.includes('queue paused'));
    // On its own: no cluster word at all.
    store.setState({ stats: statsOf({ caps: [] }) });
    await until(inst, (f) => !f.includes('cluster'));
  });

  it('says when the supervisor is starting, and when it went away', async () => {
    const store = createTuiStore({ home: '/h', now: NOW });
    store.setState({ conn: { state: 'connecting', pid: null, startedAt: null, error: null, since: NOW, starting: true } });
    const inst = renderPane(store, <Header width={100} />);
    expect(inst.lastFrame()).toContain('not running — starting…');
    store.setState((s) => ({ ...reduceSnapshot(s, { seq: 1, runs: [] }, NOW), conn: { ...s.conn, state: 'down', since: NOW - 5000 } }));
    await until(inst, (f) => f.includes('supervisor gone') && f.includes('(5.0s; r starts one)'));
  });
});

describe('RunsTable', () => {
  it('one row per run: status word, why, name, id, provider/workload, queue position and wait, turn, tokens, cost, loop', () => {
    const f = fleet();
    const store = storeWith(f.all);
    const inst = renderPane(store, <RunsTable width={160} body={10} />);
    const ls = lines(inst.lastFrame()!);
    expect(ls[0]).toMatch(/^─ Runs 7\/7 ─+ 3 need you · all ─$/);
    expect(ls[1]).toContain('STATUS');
    expect(ls[1]).toContain('NAME');
    const row = (name: string): string => ls.find((l) => l.includes(name))!;
    // Runs that need you are flagged (!) and say why.
    expect(row('fix-login')).toMatch(/^! ▲ blocked\s+usage limit\s+fix-login/);
    expect(row('chat-ui')).toMatch(/^› ◇ idle\s+awaiting input\s+chat-ui/);
    expect(row('spinner')).toMatch(/^! ● working\s+loop detected\s+spinner/);
    expect(row('build-api')).toMatch(/● working\s+build-api\s+\S+\s+claude\/batch\s+3\s+1m59s\s+15k\s+\$0\.42/);
    expect(row('later-1')).toMatch(/○ queued\s+later-1 .*#1 2m(\s|$)/);
    expect(row('later-2')).toMatch(/#2 2m(\s|$)/);
    expect(row('later-2')).toMatch(/○ queued\s+held\s+later-2/); // its provider is on hold
    expect(row('old-job')).toMatch(/■ ended\s+killed\s+old-job/);
    expect(row('spinner')).toMatch(/⟳$/);
    // Those that need you first (newest first), then by status: working…, queued…, ended; the first row is selected
    const order = ls.slice(2, 9).map((l) => l.match(/(fix-login|chat-ui|build-api|spinner|later-1|later-2|old-job)/)![1]);
    expect(order).toEqual(['chat-ui', 'fix-login', 'spinner', 'build-api', 'later-1', 'later-2', 'old-job']);
    expect(ls[2]!.startsWith('› ')).toBe(true);
    expect(row('build-api').startsWith('  ')).toBe(true);
  });

  it('lines up names in any script: CJK and emoji count two columns, every row starts each column at the same place', () => {
    const names = ['世界-1', '🚀-agent', 'abc'];
    const runs = names.map((name, i) => run({ name, status: 'working', provider: 'claude', workload: 'batch', turns: 7, queue_seq: i + 1 }));
    const store = storeWith(runs);
    for (const width of [140, 100, 80]) {
      const inst = renderPane(store, <RunsTable width={width} body={5} />);
      const ls = lines(inst.lastFrame()!);
      const rows = names.map((n) => ls.find((l) => l.includes(n))!);
      // The column where the provider/workload cell starts, in terminal columns.
      const starts = rows.map((l) => displayWidth(l.slice(0, l.indexOf('claude/batch'))));
      expect(new Set(starts).size, `${width} columns:\n${rows.join('\n')}`).toBe(1);
      for (const l of rows) expect(displayWidth(l)).toBeLessThanOrEqual(width);
      cleanup();
    }
  });

  it('WHY says what holds each queued run, and stays true as stats change between run events (a hold counts down)', async () => {
    const q = (name: string, provider: string, workload: string, seq: number) =>
      run({ name, status: 'queued', provider, workload, queue_seq: seq, queue_position: seq, created_at: new Date(T0).toISOString() });
    const runs = [
      q('held-1', 'codex', 'default', 1),
      q('prov-2', 'claude', 'default', 2),
      q('wl-3', 'gemini', 'batch', 3),
      q('g-4', 'jsonl', 'default', 4),
      q('g-5', 'jsonl', 'default', 5),
      q('g-6', 'jsonl', 'default', 6),
    ];
    const store = storeWith(runs);
    const hold = NOW + ((4 * 24 + 23) * 3600 + 30) * 1000;
    const cap = (cap: string, limit: number, active: number, extra: Record<string, unknown> = {}) => ({
      cap,
      limit,
      active,
      holders: [],
      queued: 0,
      oldest_wait_ms: 0,
      ...extra,
    });
    const stats = (global: number, dflt: number, jsonl: number, fleetExceeded = false) =>
      statsOf({
        caps: [
          cap('global', 8, global, { reserved: 2 }),
          cap('provider:claude', 3, 3),
          cap('provider:codex', 2, 1, { held_until: hold }),
          cap('provider:gemini', 2, 1),
          cap('provider:jsonl', 8, jsonl),
          cap('workload:batch', 3, 3, { priority: 0 }),
          cap('workload:default', 8, dflt, { priority: 0 }),
          cap('workload:review', 8, 0, { reserved: 2, priority: 5 }),
        ],
        fleet: { exceeded: fleetExceeded, window: 'all', meters: {} },
      });
    store.setState((s) => reduceStats(s, stats(8, 5, 3)));
    const inst = renderPane(store, <RunsTable width={160} body={8} />);
    const why = (f: string, name: string): string => {
      const l = lines(f).find((x) => x.includes(` ${name} `))!;
      return l.slice(l.indexOf('○ queued') + '○ queued'.length, l.indexOf(` ${name} `)).trim();
    };
    let f = inst.lastFrame()!;
    expect(lines(f)[1]).toMatch(/STATUS\s+WHY\s+NAME/);
    expect(why(f, 'held-1')).toBe('hold codex 4d23h');
    expect(why(f, 'prov-2')).toBe('provider claude 3/3');
    expect(why(f, 'wl-3')).toBe('workload batch 3/3');
    expect(why(f, 'g-4')).toBe('global 8/8');
    // Two slots free up, but review keeps them: no run event, the next stats say so.
    store.setState((s) => reduceStats(s, stats(6, 3, 1)));
    f = await until(inst, (x) => why(x, 'g-4') === 'global 6/8 (2 reserved)');
    expect(why(f, 'g-6')).toBe('global 6/8 (2 reserved)');
    // One more: nothing holds them but their turn.
    store.setState((s) => reduceStats(s, stats(5, 2, 0)));
    f = await until(inst, (x) => why(x, 'g-6') === 'queue #6');
    expect(f).toMatch(/g-6\s+\S+\s+jsonl\/default\s+#6 2m/);
    // The clock moves: the hold counts down.
    store.setState({ now: NOW + 3600_000 });
    f = await until(inst, (x) => why(x, 'held-1') === 'hold codex 4d22h');
    store.setState((s) => reduceStats(s, stats(5, 2, 0, true)));
    f = await until(inst, (x) => why(x, 'g-4') === 'fleet budget');
    expect(why(f, 'prov-2')).toBe('fleet budget');
    expect(why(f, 'held-1')).toBe('hold codex 4d22h');
  });

  it('before any stats, WHY is what the server said with the run', () => {
    const r = run({
      name: 'told',
      status: 'queued',
      waiting: { reason: 'provider', name: 'claude', active: 3, limit: 3, reserved: null, until: null, position: 2 },
    });
    const f = renderPane(storeWith([r]), <RunsTable width={120} body={3} />).lastFrame()!;
    expect(f).toMatch(/○ queued\s+provider claude 3\/3\s+told/);
  });

  it('renders only the visible window of 1,000 runs and follows the selection', async () => {
    const runs = Array.from({ length: 1000 }, (_, i) => run({ name: `job-${String(i).padStart(4, '0')}`, status: 'queued', queue_seq: 1000 + i }));
    const store = storeWith(runs);
    store.setState((s) => reduceViewport(s, { ...s.viewport, width: 100, runsHeight: 8, limiterHeight: 2, eventsHeight: 2, detailsOutputHeight: 4 }));
    const inst = renderPane(store, <RunsTable width={100} body={8} />);
    let ls = lines(inst.lastFrame()!);
    expect(ls).toHaveLength(10);
    expect(ls[0]).toContain('1-8 of 1000');
    expect(ls[2]).toContain('› ○ queued');
    expect(ls[2]).toContain('job-0000');
    expect(ls[9]).toContain('job-0007');
    store.setState((s) => reduceList(s, { type: 'down', n: 10 }));
    const f = await until(inst, (fr) => fr.includes('4-11 of 1000'));
    ls = lines(f);
    expect(ls[9]).toContain('› ○ queued');
    expect(ls[9]).toContain('job-0010');
    store.setState((s) => reduceList(s, { type: 'last' }));
    ls = lines(await until(inst, (fr) => fr.includes('993-1000 of 1000')));
    expect(ls[9]).toContain('job-0999');
  });

  it('a row changes state in place when its event arrives', async () => {
    const f = fleet();
    const store = storeWith(f.all);
    const inst = renderPane(store, <RunsTable width={100} body={10} />);
    store.setState((s) => reduceStream(s, [msg(101, 'ended', { ...f.working, status: 'ended', exit_reason: 'killed' }, { reason: 'killed' })]).patch);
    const fr = await until(inst, (x) => /■ ended\s+killed\s+build-api/.test(x));
    expect(fr).not.toMatch(/working\s+build-api/);
  });

  it('says why it is empty', async () => {
    const store = storeWith([]);
    const inst = renderPane(store, <RunsTable width={100} body={5} />);
    expect(inst.lastFrame()).toContain('no runs yet — press n to start one');
    const f = fleet();
    store.setState((s) => ({ ...reduceSnapshot(s, { seq: 200, runs: f.all }, NOW), filter: '' }));
    store.setState((s) => ({ filter: 'zzz', ...require_view(s, 'zzz') }));
    await until(inst, (x) => x.includes('no runs match "zzz"'));
  });
});

// A tiny helper so the filter test reads naturally.
import { reduceFilter } from '../../src/tui/state/reducers.js';
function require_view(s: TuiState, filter: string): Partial<TuiState> {
  return reduceFilter(s, filter);
}

describe('RunsTable: runs that wait for runs', () => {
  it('a dependent is marked ⇠N after its name, has no queue place, and its WHY names its input as the TUI holds it now', () => {
    const migrate = run({ name: 'migrate', status: 'working' });
    const review = run({
      name: 'review',
      status: 'queued',
      after: [migrate.uuid],
      queue_position: null,
      // The supervisor last said migrate was queued; the TUI holds it working now.
      waiting: {
        reason: 'after',
        name: null,
        active: null,
        limit: 1,
        reserved: null,
        until: null,
        position: null,
        inputs: [{ uuid: migrate.uuid, name: 'migrate', status: 'queued' }],
      },
    });
    const store = storeWith([migrate, review]);
    const ls = lines(renderPane(store, <RunsTable width={160} body={5} />).lastFrame()!);
    const row = ls.find((l) => l.includes('review'))!;
    expect(row).toMatch(/after migrate \(working\)\s+review ⇠1\s/);
    expect(row).toMatch(/\s- \d/);
    expect(ls.find((l) => l.includes('migrate') && !l.includes('review'))).not.toContain('⇠');
  });
});

describe('LimiterPane', () => {
  it('each cap as used/limit with its holders (names), waiting line, oldest wait, reserved slots and hold', () => {
    const f = fleet();
    const store = storeWith(f.all);
    store.setState({
      stats: statsOf({
        caps: [
          {
            cap: 'global',
            limit: 4,
            active: 4,
            holders: [f.working.uuid, f.idle.uuid, f.blocked.uuid, f.looping.uuid],
            queued: 2,
            oldest_wait_ms: 120_000,
            reserved: 1,
            waiting: [f.queued.uuid, f.queued2.uuid],
            held_until: null,
          },
          {
            cap: 'provider:claude',
            limit: 2,
            active: 1,
            holders: [f.working.uuid],
            queued: 0,
            oldest_wait_ms: 0,
            reserved: 0,
            waiting: [],
            held_until: NOW + 30_000,
          },
          { cap: 'workload:batch', limit: 3, active: 1, holders: [f.working.uuid], queued: 0, oldest_wait_ms: 0, reserved: 0, waiting: [], held_until: null },
        ],
        queued: 2,
        active: 4,
        holds: {},
      }),
    });
    const inst = renderPane(store, <LimiterPane width={200} body={5} />);
    const ls = lines(inst.lastFrame()!);
    expect(ls[0]).toContain('Limiter');
    expect(ls[0]).toContain('4 active · 2 queued');
    expect(ls[1]).toMatch(/^global\s+█+ 4\/4\s+1 reserved\s+holders build-api, chat-ui, \+2\s+│ waiting 2 \(oldest 2m\): later-1, later-2$/);
    expect(ls[2]).toMatch(/^claude \(provider\)\s+█+░+ 1\/2\s+hold 30s\s+holders build-api\s+│ none waiting$/);
    expect(ls[3]).toMatch(/^batch \(workload\)\s+█+░+ 1\/3/);
  });

  it('narrow: the waiting line first, before stats arrive it says so', async () => {
    const f = fleet();
    const store = storeWith(f.all);
    const inst = renderPane(store, <LimiterPane width={90} body={3} />);
    expect(inst.lastFrame()).toContain('waiting for stats…');
    store.setState({
      stats: statsOf({
        caps: [{ cap: 'global', limit: 1, active: 1, holders: [f.working.uuid], queued: 2, oldest_wait_ms: 5000, waiting: [f.queued.uuid, f.queued2.uuid] }],
      }),
    });
    await until(inst, (x) => /global\s+█+ 1\/1\s+waiting 2 \(oldest 5.0s\): later-1, later-2/.test(x));
  });

  it("a provider's usage windows ride on its cap's line (each account's apart); a provider without a cap gets a quota line", () => {
    const f = fleet();
    const store = storeWith(f.all);
    const resets = new Date(NOW + 3 * 3_600_000).toISOString();
    const hhmm = new Date(resets).toTimeString().slice(0, 5);
    store.setState({
      now: NOW,
      stats: statsOf({
        caps: [
          { cap: 'global', limit: 4, active: 1, holders: [f.working.uuid], queued: 0, oldest_wait_ms: 0, waiting: [] },
          { cap: 'provider:claude', limit: 2, active: 1, holders: [f.working.uuid], queued: 0, oldest_wait_ms: 0, waiting: [] },
        ],
        quotas: [
          { provider: 'claude', account: null, window: 'five_hour', status: 'allowed_warning', utilization: 0.91, resets_at: resets, at: resets },
          { provider: 'claude', account: '/srv/.claude-work', window: 'seven_day', status: 'allowed', utilization: 0.3, resets_at: resets, at: resets },
          { provider: 'codex', account: null, window: 'primary', status: 'allowed', utilization: 0.5, resets_at: null, at: resets },
        ],
      }),
    });
    const ls = lines(renderPane(store, <LimiterPane width={200} body={5} />).lastFrame()!);
    expect(ls[2]).toContain(`claude (provider)`);
    expect(ls[2]).toContain(` · 5h 91% · resets ${hhmm} · (.claude-work) 7d 30% · resets ${hhmm}`);
    expect(ls[1]).not.toContain('5h');
    expect(ls[3]).toBe('quota codex primary 50%');
  });

  it('the side pane gives each cap three lines', () => {
    const f = fleet();
    const store = storeWith(f.all);
    store.setState({
      stats: statsOf({ caps: [{ cap: 'global', limit: 2, active: 1, holders: [f.working.uuid], queued: 1, oldest_wait_ms: 1000, waiting: [f.queued.uuid] }] }),
    });
    const ls = lines(renderPane(store, <LimiterPane width={52} body={6} detailed />).lastFrame()!);
    expect(ls[1]).toMatch(/^global\s+█+░+ 1\/2$/);
    expect(ls[2]).toBe('  holders build-api');
    expect(ls[3]).toBe('  waiting 1 (oldest 1.0s): later-1');
  });
});

describe('EventLog', () => {
  it('a tail of events, newest last, with names and words; scrolls; a ring keeps the last entries', async () => {
    const f = fleet();
    const events = Array.from({ length: 30 }, (_, i) => ev(i + 1, i % 2 ? 'working' : 'idle', f.working.uuid, { from: 'idle' }));
    events.push(ev(31, 'ended', f.ended.uuid, { reason: 'killed', exit_code: 143 }), ev(32, 'loop_detected', f.looping.uuid, { by: 'tool', action: 'warn' }));
    const store = storeWith(f.all, {}, events);
    const inst = renderPane(store, <EventLog width={100} body={4} />);
    let ls = lines(inst.lastFrame()!);
    expect(ls[0]).toMatch(/─ Events 32 ─+ following ─/);
    expect(ls).toHaveLength(5);
    expect(ls[3]).toMatch(/ended\s+old-job\s+killed, exit 143$/);
    expect(ls[4]).toMatch(/loop_detected\s+spinner\s+by tool, action warn$/);
    store.setState({ logScroll: 2 });
    ls = lines(await until(inst, (x) => x.includes('scrolled 2 up')));
    expect(ls[4]).toMatch(/working\s+build-api\s+from idle/);
    // new events while scrolled up keep the view where it was
    store.setState(
      (s) => reduceStream(s, [msg(101, 'blocked', { ...f.idle, status: 'blocked', blocked_kind: 'question' }, { kind: 'question', from: 'idle' })]).patch,
    );
    await until(inst, (x) => x.includes('Events 33') && x.includes('scrolled 3 up'));
  });
});

describe('Details', () => {
  it('the whole record: every meter with its ceiling, loop state, command, cwd, process and output tail', async () => {
    const r = run({
      name: 'deep-dive',
      status: 'working',
      pid: 777,
      command: ['node', 'agent.js', '--say', 'hello world'],
      cwd: '/work/repo',
      turns: 3,
      tokens: { input: 1500, output: 500, cached: 100 },
      cost_usd: 0.1234,
      started_at: new Date(T0).toISOString(),
      budget: {
        turns: { used: 3, limit: 4, fraction: 0.75, warn: false },
        tokens: { used: 2000, limit: 20_000, fraction: 0.1, warn: false },
        cost_usd: { used: 0.1234, limit: null, fraction: null, warn: false },
        time_ms: { used: 0, limit: 600_000, fraction: 0, warn: false },
      },
      loop: { detected: true, warned: true, repetitions: 5 },
      last_tool: 'Bash',
    });
    const store = storeWith([r]);
    const doc = new TranscriptDoc(r.uuid, 'plain');
    doc.push(['first line', 'second line', 'last line']);
    store.setState({
      mode: 'details',
      details: { uuid: r.uuid, cpu: 12.5, rssBytes: 50 * 1024 * 1024, pids: [777, 778], scroll: 0 },
      outputDoc: doc,
      outputVersion: 1,
    });
    const inst = renderPane(store, <Details width={100} height={24} />);
    const f = inst.lastFrame()!;
    expect(f).toContain('Details: deep-dive');
    expect(f).toMatch(/status\s+● working/);
    expect(f).toContain('pgid 777 · cpu 12.5% · rss 50.0 MiB · 2 processes');
    expect(f).toContain(`command   node agent.js --say 'hello world'`);
    expect(f).toContain('cwd       /work/repo');
    expect(f).toMatch(/turns\s+█+░+ 3\/4 75%/);
    expect(f).toMatch(/tokens\s+█+░+ 2\.0k\/20k 10%/);
    expect(f).toMatch(/cost\s+·+ \$0\.12 \(no ceiling\)/);
    expect(f).toMatch(/time\s+█+░+ 2m\/10m 20%/);
    expect(f).toContain('loop      ⟳ detected, warned · 5 repetitions');
    expect(f).toContain('Transcript (r: raw lines)');
    const shown = lines(f);
    const at = shown.findIndex((l) => l.includes('Transcript (r: raw lines)'));
    expect(shown.slice(at + 1, at + 4)).toEqual(['first line', 'second line', 'last line']);
  });

  it('an ended run shows its reason and exit code', () => {
    const r = run({ status: 'ended', exit_reason: 'budget', exit_detail: 'tokens', exit_code: 143, pid: 5 });
    const store = storeWith([r]);
    const f = renderPane(store, <Details width={100} height={20} />).lastFrame()!;
    expect(f).toMatch(/status\s+■ ended budget \(tokens\) · exit code 143/);
    expect(f).toContain('pgid 5 · exited');
    expect(f).toMatch(/ceilings\s+none \(turns 0 · tokens 0 · cost \$0\.00 · time /);
  });
});

describe('Footer', () => {
  it('the keys that apply now, and the latest notice or error', async () => {
    const store = storeWith([run()]);
    const inst = renderPane(store, <Footer width={100} />);
    const ls = lines(inst.lastFrame()!);
    expect(ls[1]).toContain('x kill');
    expect(ls[1]).toContain('w wait');
    expect(ls[1]).toContain('? help');
    store.setState({ message: { text: 'send to x: the run is working, not idle', kind: 'error', at: NOW } });
    await until(inst, (f) => f.includes('✗ send to x: the run is working, not idle'));
    store.setState({ mode: 'confirm', confirm: { binding: 'kill', verb: 'kill', uuid: 'u', name: 'build-api', back: 'list' } });
    const f = await until(inst, (x) => x.includes('kill build-api? y/n'));
    expect(lines(f)[1]).toContain('y yes');
  });

  it('says what quitting does: agents keep running, or (--demo) the demo stops and its home goes', async () => {
    const store = storeWith([run()]);
    const inst = renderPane(store, <Footer width={120} />);
    expect(inst.lastFrame()).toContain('agents keep running when you quit');
    store.setState({ demo: true });
    await until(inst, (f) => f.includes('quitting stops this demo and removes its home'));
  });

  it('prompts: new run, send, filter', async () => {
    const store = storeWith([run()]);
    const inst = renderPane(store, <Footer width={120} />);
    store.setState({ mode: 'prompt', prompt: { kind: 'new', text: '', target: null, targetName: null, back: 'list' } });
    await until(inst, (f) => f.includes('new run> ▏-a PROVIDER -p PROMPT'));
    store.setState({ prompt: { kind: 'send', text: 'go on', target: 'u', targetName: 'chat-ui', back: 'list' } });
    await until(inst, (f) => f.includes('send to chat-ui> go on▏'));
    store.setState({ prompt: { kind: 'filter', text: 'bui', target: null, targetName: null, back: 'list' } });
    const f = await until(inst, (x) => x.includes('filter> bui▏'));
    expect(lines(f)[1]).toContain('enter submit');
    expect(lines(f)[1]).toContain('esc cancel');
  });

  it('wait banners: waiting, then the token', async () => {
    const store = storeWith([run()]);
    const inst = renderPane(store, <Footer width={100} />);
    store.setState({ waits: [{ id: 1, uuid: 'u', name: 'chat-ui', state: 'waiting', token: null, error: null, at: NOW }] });
    await until(inst, (f) => f.includes('⧗ waiting on chat-ui…'));
    store.setState({ waits: [{ id: 1, uuid: 'u', name: 'chat-ui', state: 'settled', token: 'turn_complete', error: null, at: NOW }] });
    await until(inst, (f) => f.includes('chat-ui: turn_complete'));
  });
});

describe('Help', () => {
  it('every key, the glyphs and the themes', () => {
    const themes = loadThemes([builtinThemeDir()]);
    const f = renderPane(createTuiStore(), <Help width={100} height={50} themes={themes.order} theme="light" />).lastFrame()!;
    for (const k of ['↑/k', '↓/j', 'g', 'G', 'enter', 'x', 'X', 'w', 's', 'n', '/', 'esc', 'tab', 'e', 't', '?', 'q']) {
      expect(f).toMatch(new RegExp(`(^|\\s)${k.replace(/[?/.*+^$|()[\]{}\\]/g, '\\$&')}\\s`, 'm'));
    }
    expect(f).toContain('kill without asking');
    expect(f).toContain('○ queued');
    expect(f).toContain('[light]');
    expect(f).toContain('agents keep running');
  });
});
