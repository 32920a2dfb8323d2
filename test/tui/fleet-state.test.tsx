// The fleet as the store holds it in cluster scope (state/fleet.ts and its
// reducers), pure: other machines' runs as rows keyed HOST:UUID and named
// HOST:NAME, listed after this machine's and grouped by machine, back to this
// machine's alone with `m`; their requests in the queue under keys of their
// own, kept from read to read, answered by HOST:ID.

import { describe, expect, it } from 'vitest';
import { RunsTable } from '../../components/RunsTable.js';
import { lines, renderPane, until } from './helpers.js';
import { clusterFace, type ClusterRun } from '../../src/protocol/views.js';
import type { ClusterRunsReply } from '../../src/protocol/results.js';
import { reduceFleet, reduceScope, reduceSnapshot } from '../../src/tui/state/reducers.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { NO_QUEUE } from '../../src/tui/state/approval-queue.js';
import { requestLines } from '../../src/tui/view/approvals.js';
import { run, T0 } from './fixtures.js';
import { whyText } from '../../src/text/why.js';

const iso = (t: number): string => new Date(t).toISOString();

function face(host: string, over: Parameters<typeof run>[0] = {}, approvals: ClusterRun['approvals'] = [], stale = false): ClusterRun {
  const r = run(over);
  const f = clusterFace(r, null, []);
  return { ...f, approvals, host, ref: `${host}:${r.name}`, local: false, stale, published_at: iso(T0) };
}

function reply(runs: ClusterRun[], stale: string[] = []): ClusterRunsReply {
  const hosts = ['a', ...new Set(runs.map((r) => r.host))];
  return {
    cluster: 'dev',
    host: 'a',
    runs,
    machines: hosts.map((host) => ({ host, stale: stale.includes(host), age_ms: 0, accept_commands: true })),
    as_of: iso(T0),
    stale_since: null,
    error: null,
    publishing: null,
  };
}

describe('the fleet in the store', () => {
  it("lists other machines' runs after this one's, grouped by machine, named HOST:NAME; m back leaves them out", () => {
    const store = createTuiStore({ now: T0 });
    const mine = run({ name: 'mine', status: 'working' });
    store.setState((s) => reduceSnapshot(s, { seq: 1, runs: [mine] }, T0));
    const c1 = face('c', { name: 'fix', status: 'working' });
    const b1 = face('b', { name: 'fix', status: 'working', denials: 2 });
    const b2 = face('b', { name: 'docs', status: 'queued' });
    store.setState((s) => reduceScope(s, 'cluster', reply([c1, b1, b2]), T0));
    let s = store.getState();
    expect(s.scope).toBe('cluster');
    expect(s.view.ids).toEqual([mine.uuid, `b:${b1.uuid}`, `b:${b2.uuid}`, `c:${c1.uuid}`]);
    expect(s.fleet.byId[`b:${b1.uuid}`]).toMatchObject({ name: 'b:fix', status: 'working', command: [], cwd: '', denials: 2 });
    expect(s.view.total).toBe(4);

    // A read that changes nothing of a row keeps its object: the row does not draw again.
    const row = s.fleet.byId[`c:${c1.uuid}`];
    store.setState((x) => reduceFleet(x, reply([c1, b1, b2]), T0 + 500));
    expect(store.getState().fleet.byId[`c:${c1.uuid}`]).toBe(row);

    store.setState((x) => reduceScope(x, 'machine', null, T0));
    s = store.getState();
    expect(s.view.ids).toEqual([mine.uuid]);
    expect(s.fleet.byId).toEqual({});
    // A read that arrives after the switch back changes nothing.
    expect(reduceFleet(s, reply([c1]), T0)).toEqual({});
  });

  it("another machine's hold counts down in its row by this clock, not frozen where its machine last published it", async () => {
    const store = createTuiStore({ now: T0 });
    const held = run({
      name: 'held',
      status: 'queued',
      waiting: { reason: 'hold', name: 'claude', until: iso(T0 + 4 * 3_600_000), active: null, limit: null, reserved: null, position: null, resumes: false },
    });
    const f = { ...face('b', held), why: whyText(held, T0) };
    store.setState((s) => reduceScope(s, 'cluster', reply([f]), T0));
    const table = renderPane(store, <RunsTable width={160} body={4} />);
    const row = (): string => lines(table.lastFrame()!).find((l) => l.includes('b:held'))!;
    expect(row()).toMatch(/hold claude 4h/);
    store.setState({ now: T0 + 3_600_000 });
    await until(table, (frame) => /hold claude 3h +b:held/.test(frame));
  });

  it("puts other machines' requests in the queue as HOST:ID, under keys that stay from read to read, and lets them go with m", () => {
    const store = createTuiStore({ now: T0 });
    store.setState((s) => reduceSnapshot(s, { seq: 1, runs: [] }, T0));
    const asks = face('b', { name: 'asker', status: 'blocked' }, [{ id: 7, summary: 'Bash: npm test', question: false, deadline_at: null }]);
    store.setState((s) => reduceScope(s, 'cluster', reply([asks]), T0));
    let s = store.getState();
    expect(s.requests.ids).toHaveLength(1);
    const key = s.requests.ids[0]!;
    expect(key).toBeLessThan(0);
    expect(s.requests.byId[key]).toMatchObject({ ref: 'b:7', host: 'b', name: 'b:asker', tool: 'Bash', summary: 'Bash: npm test' });

    const more = face('c', { name: 'other', status: 'blocked' }, [{ id: 7, summary: 'Write: x', question: false, deadline_at: null }]);
    store.setState((x) => reduceFleet(x, reply([asks, more]), T0 + 500));
    s = store.getState();
    expect(s.requests.ids).toHaveLength(2);
    expect(s.requests.byId[key]!.ref).toBe('b:7');
    expect(
      Object.values(s.requests.byId)
        .map((r) => r.ref)
        .sort(),
    ).toEqual(['b:7', 'c:7']);

    store.setState((x) => reduceScope(x, 'machine', null, T0));
    expect(store.getState().requests.ids).toEqual([]);
  });

  it("another machine's question says where its options are and how to answer it, not that they are being read", () => {
    const store = createTuiStore({ now: T0 });
    store.setState((s) => reduceSnapshot(s, { seq: 1, runs: [] }, T0));
    const asks = face('b', { name: 'asker', status: 'blocked' }, [{ id: 3, summary: 'question: Which database?', question: true, deadline_at: null }]);
    store.setState((s) => reduceScope(s, 'cluster', reply([asks]), T0));
    const s = store.getState();
    const text = requestLines(s.requests.byId[s.requests.ids[0]!]!, NO_QUEUE, T0)
      .map((spans) => spans.map((x) => x.text).join(''))
      .join('\n');
    expect(text).toContain('Which database?');
    expect(text).toContain('on b: orcr approve b:3 --answer LABEL');
    expect(text).not.toContain('reading its options');
  });
});
