// Another machine's runs and requests read as this machine's do: each
// fleet form (`ps --cluster`, `show HOST:RUN`, `approvals --cluster`,
// `events --cluster`) is checked against the local verb's text for the same
// run, published the way a machine publishes it (protocol/views clusterFace,
// with its WHY as text/why words it). Pure: no cluster is needed to read one.

import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/config/duration.js';
import { approvalsTable } from '../../src/cli/approval-text.js';
import { fleetChange, fleetChangeLine, fleetRequestsText, fleetRunText, fleetTable } from '../../src/cli/fleet-format.js';
import { psTable, showRun, useColor } from '../../src/cli/format.js';
import type { ApprovalRecord } from '../../src/core/approvals.js';
import type { ClusterRunsReply } from '../../src/protocol/results.js';
import { clusterFace, publicApproval, type ClusterRun, type PublicRun } from '../../src/protocol/views.js';
import { whyText } from '../../src/text/why.js';
import { run, T0 } from '../tui/fixtures.js';

const NOW = T0 + 5 * 60_000;
const iso = (t: number): string => new Date(t).toISOString();

/** A request of run `r` asked two minutes before NOW, its deadline denying it an hour after it was asked. */
function request(r: PublicRun, over: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: 12,
    run: r.uuid,
    ref: 'req-1',
    tool: 'Bash',
    summary: 'Bash: npm test',
    question: false,
    questions: null,
    always: 'Bash(npm test:*)',
    asked_at: NOW - 120_000,
    deadline_at: NOW - 120_000 + 3_600_000,
    on_timeout: 'deny',
    state: 'pending',
    decided_at: null,
    by: null,
    message: null,
    answers: null,
    always_added: false,
    delivered: false,
    ...over,
  };
}

/** `r` as machine b publishes it and a reads it. */
function published(r: PublicRun, pending: ApprovalRecord[] = []): ClusterRun {
  return {
    ...clusterFace(r, whyText(r, NOW), pending),
    host: 'b',
    ref: `b:${r.name}`,
    local: false,
    stale: false,
    published_at: iso(NOW - 1000),
  };
}

function fleet(runs: ClusterRun[]): ClusterRunsReply {
  return {
    cluster: 'team',
    host: 'a',
    runs,
    machines: [{ host: 'b', stale: false, age_ms: 300, accept_commands: true }],
    as_of: iso(NOW),
    stale_since: null,
    error: null,
    publishing: null,
  };
}

const cells = (line: string): string[] => line.split(/\s{2,}/);
const labels = (text: string): Map<string, string> =>
  new Map(
    text.split('\n').flatMap((l): [string, string][] => {
      const m = /^(\S(?:.*?\S)?)\s{2,}(.*)$/.exec(l);
      return m ? [[m[1]!, m[2]!]] : [];
    }),
  );

/** A blocked run asking, one that ended failing after a minute, a queued one, one working in a worktree: each with meters and ceilings. */
function runs(): { local: PublicRun[]; pending: ApprovalRecord[] } {
  const meters = {
    turns: { used: 3, limit: 10, fraction: 0.3, warn: false },
    tokens: { used: 25_400, limit: 100_000, fraction: 0.254, warn: false },
    cost_usd: { used: 1.75, limit: 5, fraction: 0.35, warn: false },
    // As views' meterViews has it for a run started at T0 + 1s, read at NOW.
    time_ms: { used: NOW - (T0 + 1000), limit: 3_600_000, fraction: 0.08, warn: false },
  };
  const usage = { turns: 3, tokens: { input: 20_000, output: 5_400, cached: 900 }, cost_usd: 1.75, budget: meters };
  const asks = run({
    name: 'fix-auth',
    status: 'blocked',
    blocked_kind: 'approval',
    asking: { id: 12, summary: 'Bash: npm test', question: false, deadline_at: iso(NOW - 120_000 + 3_600_000), more: 0 },
    ...usage,
  });
  const pending = [request(asks)];
  asks.approvals = pending.map((a) => publicApproval(a, asks.name));
  const failed = run({
    name: 'lint',
    status: 'ended',
    exit_reason: 'failed',
    exit_detail: 'exit 1',
    exit_code: 1,
    ...usage,
    budget: { ...meters, time_ms: { ...meters.time_ms, used: 60_000 } },
  });
  const queued = run({ name: 'later', status: 'queued', queue_position: 2, after: [failed.uuid] });
  const inTree = run({
    name: 'feature',
    denials: 2,
    ...usage,
    worktree: {
      path: '/w/feature',
      repo: '/src/app',
      branch: 'orcr/feature',
      base: 'main',
      base_commit: 'abcdef1234567890',
      state: 'ready',
      added: 12,
      removed: 3,
      files: 2,
    },
  });
  return { local: [asks, failed, queued, inTree], pending };
}

describe("another machine's runs read as this machine's", () => {
  it("ps --cluster: ps's columns and words after MACHINE, NAME as HOST:NAME; ELAPSED of an ended run is its start to its end", () => {
    const { local, pending } = runs();
    const here = psTable(local, NOW, false).split('\n');
    const there = fleetTable(fleet(local.map((r) => published(r, r.name === 'fix-auth' ? pending : []))), NOW, false).split('\n');
    expect(cells(there[0]!)).toEqual(['MACHINE', ...cells(here[0]!)]);
    for (const [i, r] of local.entries()) {
      const [machine, name, ...rest] = cells(there[i + 1]!);
      const [ownName, ...own] = cells(here[i + 1]!);
      expect([machine, name, ownName]).toEqual(['b', `b:${r.name}`, r.name]);
      // AFTER names the listed input as each table names it.
      expect(rest).toEqual(own.map((c) => (c === 'lint' ? 'b:lint' : c)));
    }
    expect(there[1]).toMatch(/blocked:approval approve Bash: npm test/);
    expect(cells(there[2]!).slice(3, 9)).toEqual(['ended:failed', 'claude/default', '3', '25.4k', '$1.75', formatDuration(60_000)]);
    expect(there[3]).toMatch(/queued#2/);
    expect(there[4]).toMatch(/\+12 −3 orcr\/feature/);
    expect(cells(there[4]!)[3]).toBe('working ⊘ 2 denied');
  });

  it("show HOST:RUN: show's labels and words — meters by their labels, times, exit, its request as show writes one, by HOST:ID", () => {
    const { local, pending } = runs();
    for (const r of local) {
      const own = labels(showRun(r, NOW));
      const text = fleetRunText({ run: published(r, r.name === 'fix-auth' ? pending : []), as_of: iso(NOW), stale_since: null }, NOW);
      const shown = labels(text);
      for (const k of ['status', 'exit', 'provider', 'workload', 'turns', 'tokens', 'cost', 'elapsed', 'created', 'started', 'ended', 'changes', 'denied'])
        expect(shown.get(k), `${r.name}: ${k}`).toBe(own.get(k));
      expect(shown.get('name')).toBe(`b:${r.name}`);
      expect(shown.get('machine')).toBe('b');
      expect(shown.get('published')).toBe(iso(NOW - 1000));
      // Never the raw meter names or their units.
      expect(text).not.toMatch(/time_ms|cost_usd|budget:/);
    }
    const asks = labels(fleetRunText({ run: published(local[0]!, pending), as_of: iso(NOW), stale_since: null }, NOW));
    expect(asks.get('request')).toBe(labels(showRun(local[0]!, NOW)).get('request')!.replace('#12', 'b:12'));
    expect(asks.get('request')).toBe(`b:12 pending Bash: npm test, decided by its deadline (deny) at ${iso(NOW - 120_000 + 3_600_000)}`);
    expect(asks.get('tokens')).toBe('25.4k / 100k (in 20k, out 5.4k, cached 900)');
    expect(asks.get('cost')).toBe('$1.75 / $5');
  });

  it('show HOST:RUN says a working run’s time as of now, not as of its last publishing', () => {
    const { local } = runs();
    const face = published(local[3]!);
    // As b last published it, 1.3 s into the run.
    face.budget = { ...face.budget, time_ms: { ...face.budget.time_ms, used: 1316 } };
    expect(labels(fleetRunText({ run: face, as_of: iso(NOW), stale_since: null }, NOW)).get('elapsed')).toBe(labels(showRun(local[3]!, NOW)).get('elapsed'));
  });

  it('what counts down in a WHY (a hold, a limit its agent waits out) is said as of now, as ps says it, not as of its publishing', () => {
    const until = iso(NOW + 4 * 3_600_000);
    const held = run({
      name: 'held',
      status: 'queued',
      queue_position: 1,
      waiting: { reason: 'hold', name: 'claude', until, active: null, limit: null, reserved: null, position: null, resumes: false },
    });
    const limited = run({
      name: 'limited',
      status: 'blocked',
      blocked_kind: 'limit',
      agent_retry: { attempt: null, max: null, error: 'rate_limit', since: iso(NOW - 60_000), until },
    });
    const later = NOW + 3_600_000;
    for (const r of [held, limited]) {
      // Published at NOW (its WHY in words then), read an hour later.
      const face = published(r);
      expect(face.why).toMatch(/4h/);
      const shown = cells(fleetTable(fleet([face]), later, false).split('\n')[1]!)[3];
      expect(shown, r.name).toBe(cells(psTable([r], later, false).split('\n')[1]!)[2]);
      expect(shown).toMatch(/3h/);
    }
    // An older machine's face (no countdown published): its WHY as written.
    const { waiting: _w, agent_until: _a, ...older } = published(held);
    expect(cells(fleetTable(fleet([older as ClusterRun]), later, false).split('\n')[1]!)[3]).toBe(`queued#1 ${published(held).why!}`);
  });

  it("approvals --cluster: approvals' table — AGE, DEADLINE as what happens and when, WHAT — ids as HOST:ID", () => {
    const { local, pending } = runs();
    const here = approvalsTable(local[0]!.approvals!, NOW, false, false).split('\n');
    const there = fleetRequestsText(fleet([published(local[0]!, pending)]), NOW, false).split('\n');
    expect(cells(there[0]!)).toEqual(['ID', 'RUN', 'AGE', 'DEADLINE', 'WHAT']);
    expect(cells(there[1]!)).toEqual(['b:12', 'b:fix-auth', ...cells(here[1]!).slice(2)]);
    expect(cells(there[1]!).slice(2)).toEqual(['2m', 'deny in 58m', 'Bash: npm test']);
  });

  it('approvals --cluster: a request an older machine published (no asked_at, no on_timeout) says what it can', () => {
    const { local, pending } = runs();
    const face = published(local[0]!, pending);
    face.approvals = face.approvals.map(({ id, summary, question, deadline_at }) => ({ id, summary, question, deadline_at }));
    expect(cells(fleetRequestsText(fleet([face]), NOW, false).split('\n')[1]!)).toEqual(['b:12', 'b:fix-auth', '-', 'decided in 58m', 'Bash: npm test']);
    expect(labels(fleetRunText({ run: face, as_of: iso(NOW), stale_since: null }, NOW)).get('request')).toBe(
      `b:12 pending Bash: npm test, decided by its deadline at ${iso(NOW - 120_000 + 3_600_000)}`,
    );
  });

  it("events --cluster: events' columns, the machine where the seq would be; --json's change as it was", () => {
    const { local } = runs();
    const ended = published(local[1]!);
    expect(fleetChangeLine(ended, 'working')).toBe(
      ['b', ended.status_at, 'ended', ended.uuid.slice(0, 8), 'b:lint', 'from=working reason=failed detail=exit 1 exit_code=1'].join('\t'),
    );
    const blocked = published(local[0]!);
    expect(fleetChangeLine(blocked, null).split('\t').slice(2)).toEqual([
      'blocked',
      blocked.uuid.slice(0, 8),
      'b:fix-auth',
      'kind=approval why=approve Bash: npm test',
    ]);
    expect(fleetChange(ended, 'working')).toEqual({
      at: ended.status_at,
      host: 'b',
      run: 'b:lint',
      uuid: ended.uuid,
      from: 'working',
      status: 'ended',
      why: 'exit 1',
    });
  });

  it('NO_COLOR: no escape in any fleet table; colour when asked for, as ps has it', () => {
    const { local, pending } = runs();
    const v = fleet(local.map((r) => published(r, r.name === 'fix-auth' ? pending : [])));
    const color = useColor({ NO_COLOR: '1', FORCE_COLOR: '1' }, true);
    expect(color).toBe(false);
    expect(fleetTable(v, NOW, color) + fleetRequestsText(v, NOW, color)).not.toMatch(/\x1b/);
    expect(fleetTable(v, NOW, true)).toMatch(/\x1b\[32mworking/);
  });
});
