// Issue 2 acceptance: the supervisor, end to end through the real CLI, real
// SQLite, real processes.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, lineReader, until, useHomes } from '../support/harness.js';
import { useLiveHomes } from '../support/in-process.js';
import { Client, type StreamMessage } from '../../src/client/client.js';
import { homePaths } from '../../src/config/home.js';
import type { PublicRun } from '../../src/protocol/views.js';

/** Homes whose supervisor runs in this process (most tests). */
const home = useLiveHomes();
/** Homes whose supervisor is a process of its own, started by the spawned CLI: to kill it, or to see the CLI refuse a config. */
const spawned = useHomes();

interface Ev {
  seq: number;
  run: string | null;
  type: string;
  data: Record<string, unknown>;
}

/** Replay the journal's events and return the highest concurrent count per cap. */
function maxConcurrency(events: Ev[], runs: Map<string, { provider: string }>): Record<string, number> {
  const active = new Map<string, number>();
  const max: Record<string, number> = {};
  const holding = new Set<string>();
  const bump = (cap: string, d: number) => {
    const v = (active.get(cap) ?? 0) + d;
    active.set(cap, v);
    max[cap] = Math.max(max[cap] ?? 0, v);
  };
  for (const e of events) {
    if (!e.run) continue;
    const r = runs.get(e.run);
    if (!r) continue;
    if (e.type === 'starting' && !holding.has(e.run)) {
      holding.add(e.run);
      bump('global', 1);
      bump(`provider:${r.provider}`, 1);
    } else if (e.type === 'ended' && holding.has(e.run)) {
      holding.delete(e.run);
      bump('global', -1);
      bump(`provider:${r.provider}`, -1);
    }
  }
  return max;
}

describe('orcr foundation', () => {
  it('runs 6 queued commands under max=3 and a provider cap of 2 without exceeding a cap, in admission order', async () => {
    const h = await home({ concurrency: { max: 3, providers: { p1: 2 } } });
    const lines = ['p1-a', 'p1-b', 'p1-c', 'p2-a', 'p2-b', 'p2-c']
      .map((name) => JSON.stringify({ name, provider: name.slice(0, 2), command: ['sleep', '0.6'] }))
      .join('\n');
    const enq = await h.cli(['run', '--from', '-'], { input: lines });
    expect(enq.code, enq.stderr).toBe(0);
    expect(enq.stdout.trim().split('\n')).toHaveLength(6);

    // Sample stats while the fleet runs: no cap is ever over its limit.
    let samples = 0;
    await until(async () => {
      const stats = await h.stats<{ caps: { cap: string; limit: number; active: number }[]; active: number; queued: number }>();
      for (const c of stats.caps) expect(c.active, `${c.cap} over its limit`).toBeLessThanOrEqual(c.limit);
      samples++;
      return stats.active === 0 && stats.queued === 0;
    }, 'the fleet to drain');
    expect(samples).toBeGreaterThan(1);

    const wait = await h.cli(['wait', 'p1-a', 'p1-b', 'p1-c', 'p2-a', 'p2-b', 'p2-c']);
    expect(wait.code, wait.stdout + wait.stderr).toBe(0);
    expect(wait.stdout).toContain('p1-c completed');

    const runs = await h.ps({ all: true });
    expect(runs.map((r) => r.exit_reason)).toEqual(Array(6).fill('completed'));
    const byUuid = new Map(runs.map((r) => [r.uuid, r]));
    const events = await h.events();
    const starts = events.filter((e) => e.type === 'starting').map((e) => byUuid.get(e.run)!.name);
    // p1-c is held back by its provider cap only, so p2-a passes it.
    expect(starts.slice(0, 3)).toEqual(['p1-a', 'p1-b', 'p2-a']);
    expect(new Set(starts).size).toBe(6);
    const max = maxConcurrency(events, byUuid);
    expect(max.global).toBe(3);
    expect(max['provider:p1']).toBe(2);
  });

  it('kills a queued run as canceled without spawning it, and a working run with its grandchild as killed', async () => {
    const h = await home({ concurrency: { max: 1 }, timings: { kill_grace: '5s' } });
    const gcFile = path.join(h.dir, 'gc.pid');
    await h.run(['-n', 'worker', '--', 'sh', '-c', `sleep 300 & echo $! > ${gcFile}; wait`]);
    const queued = await h.run(['-n', 'waiting', '--', 'touch', path.join(h.dir, 'should-not-exist')]);
    expect(queued.status).toBe('queued');

    const k1 = await h.json<{ status: string; exit_reason: string }[]>(['kill', 'waiting']);
    expect(k1[0]).toMatchObject({ status: 'ended', exit_reason: 'canceled' });

    const gc = await until(async () => fs.existsSync(gcFile) && Number(fs.readFileSync(gcFile, 'utf8')), 'the grandchild pid');
    const w = await h.show('worker');
    expect(w.status).toBe('working');
    expect(alive(gc)).toBe(true);

    expect((await h.cli(['kill', 'worker'])).code).toBe(0);
    const wait = await h.cli(['wait', 'worker']);
    expect(wait.stdout.trim()).toBe('worker killed');
    expect(wait.code).toBe(5);
    await until(async () => !alive(gc) && !alive(w.pid!), 'the agent and its grandchild to be gone');
    const waiting = await h.show(queued.uuid);
    expect(waiting).toMatchObject({ exit_reason: 'canceled', pid: null });
    expect(fs.existsSync(path.join(h.dir, 'should-not-exist'))).toBe(false);
    expect(fs.existsSync(h.runDir(queued.uuid))).toBe(false);
  });

  it('keeps the queue order across a SIGKILL of the supervisor and promotes nothing twice', async () => {
    const h = spawned({ concurrency: { max: 1 } });
    const go = path.join(h.dir, 'go');
    const marks = path.join(h.dir, 'marks');
    h.json(['run', '-n', 'blocker', '--', 'sh', '-c', `while [ ! -f ${go} ]; do sleep 0.05; done`]);
    const names = ['q1', 'q2', 'q3', 'q4'];
    for (const n of names) h.json(['run', '-n', n, '--', 'sh', '-c', `echo ${n} >> ${marks}`]);
    await until(() => h.json<PublicRun>(['show', 'blocker']).status === 'working', 'the blocker to work');

    const pid = h.serverPid()!;
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 'the supervisor to die');

    // Any verb starts a new supervisor, which rebuilds the queue from the journal.
    const queued = h.json<PublicRun[]>(['ps']);
    expect(h.serverPid()).not.toBe(pid);
    expect(queued.filter((r) => r.status === 'queued').map((r) => [r.name, r.queue_position])).toEqual([
      ['q1', 1],
      ['q2', 2],
      ['q3', 3],
      ['q4', 4],
    ]);
    expect(queued.find((r) => r.name === 'blocker')!.status).toBe('working');

    fs.writeFileSync(go, '');
    const wait = h.cli(['wait', 'blocker', ...names]);
    expect(wait.code, wait.stdout + wait.stderr).toBe(0);
    expect(fs.readFileSync(marks, 'utf8').trim().split('\n')).toEqual(names);
    const events = h.json<Ev[]>(['events']);
    const startsPerRun = new Map<string, number>();
    for (const e of events) if (e.type === 'starting') startsPerRun.set(e.run!, (startsPerRun.get(e.run!) ?? 0) + 1);
    expect([...startsPerRun.values()].every((n) => n === 1)).toBe(true);
    expect(startsPerRun.size).toBe(5);
  });

  it('gives bad input a clear error and writes nothing', async () => {
    const h = await home();
    const unknown = await h.cli(['run', '--frobnicate', '--', 'true']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--frobnicate/);
    expect(unknown.stderr).toMatch(/usage: orcr run/);

    const missing = await h.cli(['run', '-n', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing command/);

    const dashOnly = await h.cli(['run', '--']);
    expect(dashOnly.code).toBe(2);

    const badDuration = await h.cli(['run', '--timeout', '30', '--', 'true']);
    expect(badDuration.code).toBe(2);
    expect(badDuration.stderr).toMatch(/--timeout must be a duration such as 500ms, 30s, 1m30s, 2h or 3d \(a number needs a unit\), got "30"/);

    const noRun = await h.cli(['show', 'no-such-run']);
    expect(noRun.code).toBe(6);
    expect(noRun.stderr).toMatch(/no run "no-such-run"/);
    const noRunJson = await h.cli(['kill', 'no-such-run', '--json']);
    expect(noRunJson.code).toBe(6);
    expect(JSON.parse(noRunJson.stdout)).toEqual({ error: { code: 'not_found', message: 'no run "no-such-run"' } });

    expect(await h.ps({ all: true })).toEqual([]);
    expect((await h.events()).filter((e) => e.type === 'queued')).toEqual([]);

    const unknownVerb = await h.cli(['frob']);
    expect(unknownVerb.code).toBe(2);
  });

  it('a --status that is no run status names the statuses, and exits 2', async () => {
    const h = await home();
    const ps = await h.cli(['ps', '--status', 'bogus']);
    expect(ps.code).toBe(2);
    expect(ps.stderr).toMatch(/^orcr: --status must be one of queued, starting, working, idle, blocked, ended\n/);
    const json = await h.cli(['ps', '--status', 'bogus', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'usage', message: '--status must be one of queued, starting, working, idle, blocked, ended' } });
    const kill = await h.cli(['kill', '--status', 'ended']);
    expect(kill.code).toBe(2);
    expect(kill.stderr).toMatch(/^orcr: --status must be one of queued, starting, working, idle, blocked \(ended runs need no kill\)\n/);
  });

  it('refuses a malformed config.json naming the key, and an unsafe home', async () => {
    const bad = await home({ concurrency: { max: -1 } });
    const r = await bad.cli(['ps']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/concurrency\.max/);

    const typo = await home({ concurrency: { mx: 3 } });
    const t = await typo.cli(['run', '--', 'true']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/concurrency\.mx: unknown key/);

    const notJson = await home('{ "concurrency": ');
    const n = await notJson.cli(['stats']);
    expect(n.code).toBe(2);
    expect(n.stderr).toMatch(/not valid JSON/);

    const reserved = await home({ concurrency: { max: 2, workloads: { a: { reserved: 2 }, b: { reserved: 1 } } } });
    const rs = await reserved.cli(['stats']);
    expect(rs.code).toBe(2);
    expect(rs.stderr).toMatch(/reserved slots add up to 3, above concurrency\.max \(2\)/);

    const fraction = await home({ concurrency: { max: 2.5 } });
    expect((await fraction.cli(['stats'])).stderr).toMatch(/concurrency\.max: must be a whole number/);

    const unknownDefault = await home({ concurrency: { default_workload: 'nope' } });
    expect((await unknownDefault.cli(['stats'])).stderr).toMatch(/concurrency\.default_workload: unknown workload "nope"/);

    const open = await home();
    fs.chmodSync(open.dir, 0o777);
    const u = await open.cli(['ps']);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/writable by group or others/);
    fs.chmodSync(open.dir, 0o700);
    for (const hh of [bad, typo, notJson, reserved, fraction, unknownDefault, open]) {
      expect(fs.existsSync(path.join(hh.dir, 'orcr.db'))).toBe(false);
    }
  });

  it('streams every transition once and in order with events --follow --json', async () => {
    const h = await home({ concurrency: { max: 2 } });
    await h.cli(['server', 'status']);
    const follower = h.spawn(['events', '--follow', '--json']);
    const reader = lineReader(follower);
    try {
      const uuids: string[] = [];
      for (const n of ['a', 'b', 'c']) uuids.push((await h.run(['-n', n, '--', 'sh', '-c', 'echo $ORCR_RUN_NAME'])).uuid);
      expect(await h.waitCode('a', 'b', 'c')).toBe(0);
      const ended = () => reader.lines.map((l) => JSON.parse(l) as Ev).filter((e) => e.type === 'ended').length;
      await reader.waitFor(() => ended() === 3, 'three ended events on the stream');
      const events = reader.lines.map((l) => JSON.parse(l) as Ev);
      const seqs = events.map((e) => e.seq);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBe(seqs[i - 1]! + 1);
      for (const u of uuids) {
        expect(events.filter((e) => e.run === u).map((e) => e.type)).toEqual(['queued', 'starting', 'working', 'ended']);
      }
      // The journal agrees with what was streamed.
      const journal = (await h.json<Ev[]>(['events', '--since', String(seqs[0]! - 1)])).filter((e) => e.seq <= seqs[seqs.length - 1]!);
      expect(journal.map((e) => e.seq)).toEqual(seqs);
    } finally {
      follower.kill();
    }
  });

  it('each streamed event carries the run as that event left it', async () => {
    const h = await home();
    await h.cli(['ps']);
    const c = await Client.connect(homePaths(h.dir), { autoStart: false });
    const got: StreamMessage[] = [];
    c.onEvent((m) => got.push(m));
    await c.call('subscribe', {});
    try {
      await h.run(['-n', 'v', '--', 'sh', '-c', 'exit 4']);
      await until(async () => got.some((m) => m.event.type === 'ended'), 'the ended event');
      const transitions = got.filter((m) => ['queued', 'starting', 'working', 'ended'].includes(m.event.type));
      expect(transitions.map((m) => [m.event.type, m.run?.status])).toEqual([
        ['queued', 'queued'],
        ['starting', 'starting'],
        ['working', 'working'],
        ['ended', 'ended'],
      ]);
      expect(transitions[3]!.run).toMatchObject({ exit_reason: 'errored', exit_code: 4 });
    } finally {
      c.close();
    }
  });
});
