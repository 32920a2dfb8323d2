// The fleet view as text: `ps --cluster` (a MACHINE column; other machines'
// runs as HOST:NAME), `show HOST:RUN`, `approvals --cluster` (ids as
// HOST:ID), `stats --cluster` and `spend --cluster` — and, on each, whether
// the view is current: a machine that stopped answering, or the database
// away (the last good read, and since when).

import { formatDuration } from '../config/duration.js';
import type { ClusterRunReply, ClusterRunsReply } from '../protocol/results.js';
import type { ClusterRun } from '../protocol/views.js';
import { truncateDisplay } from '../text/display-width.js';
import { safeLine } from '../text/terminal-text.js';
import { table, tokens, usd, usdShort, useColor, type Cell } from './format.js';

const NAME_COLUMNS = 48;

/** `working`, `queued global 3/3`, `ended:failed exit 1`. */
function statusWord(r: ClusterRun): string {
  const head =
    r.status === 'ended' ? `ended:${r.exit_reason ?? '?'}` : r.status === 'queued' && r.queue_position !== null ? `queued#${r.queue_position}` : r.status;
  return r.why && r.status !== 'ended' ? `${head} ${safeLine(r.why)}` : head;
}

function elapsed(r: ClusterRun, now: number): string {
  const start = Date.parse(r.started_at ?? r.created_at);
  const end = r.ended_at ? Date.parse(r.ended_at) : now;
  return formatDuration(Math.max(0, end - start));
}

/** What makes the view less than current, as lines above it: the database away, machines not answering. */
function freshnessLines(v: Pick<ClusterRunsReply, 'stale_since' | 'error' | 'machines'>): string[] {
  const out: string[] = [];
  if (v.stale_since)
    out.push(`the cluster database does not answer (${safeLine(v.error ?? 'unavailable')}): the fleet as read at ${v.stale_since}, stale since then`);
  for (const m of v.machines.filter((x) => x.stale))
    out.push(`machine ${safeLine(m.host)} is not answering (last heard ${formatDuration(m.age_ms)} ago): its runs as it last said`);
  return out;
}

/** `ps --cluster`. */
export function fleetTable(v: ClusterRunsReply, now = Date.now(), color = useColor()): string {
  const head = freshnessLines(v);
  if (v.runs.length === 0) return [...head, 'no runs on any machine'].join('\n');
  const rows = v.runs.map((r): Cell[] => [
    r.stale ? `${r.host} (stale)` : r.host,
    truncateDisplay(safeLine(r.ref), NAME_COLUMNS),
    r.uuid.slice(0, 8),
    { text: statusWord(r), status: r.stale ? 'stale' : r.status },
    `${r.provider}/${r.workload}`,
    String(r.turns),
    tokens(r.tokens.input + r.tokens.output),
    usdShort(r.cost_usd),
    elapsed(r, now),
  ]);
  return [...head, table(['MACHINE', 'NAME', 'ID', 'STATUS', 'PROVIDER/WORKLOAD', 'TURNS', 'TOKENS', 'COST', 'ELAPSED'], rows, color)].join('\n');
}

/** `show HOST:RUN`: another machine's run, as it published it. */
export function fleetRunText(v: ClusterRunReply, now = Date.now()): string {
  const r = v.run;
  const meters = Object.entries(r.budget).map(
    ([n, m]) => `${n} ${n === 'cost_usd' ? usd(m.used) : String(m.used)}${m.limit !== null ? ` of ${n === 'cost_usd' ? usd(m.limit) : m.limit}` : ''}`,
  );
  const lines = [
    `${safeLine(r.ref)}  (${r.uuid})`,
    `machine:   ${safeLine(r.host)}${r.stale ? ' — not answering: this is the last it said' : ''}`,
    `status:    ${statusWord(r)}`,
    `provider:  ${r.provider}/${r.workload}`,
    `turns:     ${r.turns}   tokens: ${tokens(r.tokens.input + r.tokens.output)}   cost: ${usd(r.cost_usd)}`,
    `budget:    ${meters.join(', ')}`,
    `created:   ${r.created_at}${r.started_at ? `   started: ${r.started_at}` : ''}${r.ended_at ? `   ended: ${r.ended_at}` : ''}   (${elapsed(r, now)})`,
  ];
  if (r.exit_detail) lines.push(`exit:      ${safeLine(r.exit_detail)}${r.exit_code !== null ? ` (code ${r.exit_code})` : ''}`);
  if (r.worktree) lines.push(`worktree:  ${safeLine(r.worktree.branch)} (+${r.worktree.added} −${r.worktree.removed}, ${r.worktree.state})`);
  if (r.after.length > 0) lines.push(`after:     ${r.after.map((u) => u.slice(0, 8)).join(', ')}${r.after_any ? ' (any)' : ''}`);
  for (const a of r.approvals)
    lines.push(`request:   ${safeLine(r.host)}:${a.id} ${safeLine(a.summary)}${a.deadline_at ? ` (deadline ${a.deadline_at})` : ''}`);
  lines.push(`published: ${r.published_at}`);
  if (v.stale_since) lines.push(`the cluster database does not answer: this is the view of ${v.stale_since}, stale since then`);
  return lines.join('\n');
}

/** A pending request of the fleet, named as this machine names it (`b:12` for another's). */
export interface FleetRequest {
  id: string;
  host: string;
  run: string;
  uuid: string;
  summary: string;
  question: boolean;
  deadline_at: string | null;
  stale: boolean;
}

export function fleetRequests(v: ClusterRunsReply): FleetRequest[] {
  return v.runs.flatMap((r) =>
    r.approvals.map((a) => ({
      id: r.local ? String(a.id) : `${r.host}:${a.id}`,
      host: r.host,
      run: r.ref,
      uuid: r.uuid,
      summary: a.summary,
      question: a.question,
      deadline_at: a.deadline_at,
      stale: r.stale,
    })),
  );
}

/** `approvals --cluster`. */
export function fleetRequestsText(v: ClusterRunsReply, color = useColor()): string {
  const reqs = fleetRequests(v);
  const head = freshnessLines(v);
  if (reqs.length === 0) return [...head, 'no request waits for an answer on any machine'].join('\n');
  const rows = reqs.map((q): Cell[] => [q.id, safeLine(q.run), safeLine(q.summary), q.deadline_at ?? '-']);
  return [...head, table(['ID', 'RUN', 'REQUEST', 'DEADLINE'], rows, color)].join('\n');
}

export interface FleetCount {
  host: string;
  stale: boolean;
  age_ms: number | null;
  accept_commands: boolean | null;
  runs: number;
  by_status: Record<string, number>;
}

/** `stats --cluster`: per machine, its runs by status. */
export function fleetCounts(v: ClusterRunsReply): FleetCount[] {
  const out = new Map<string, FleetCount>();
  for (const m of v.machines) out.set(m.host, { host: m.host, stale: m.stale, age_ms: m.age_ms, accept_commands: m.accept_commands, runs: 0, by_status: {} });
  for (const r of v.runs) {
    const c = out.get(r.host) ?? { host: r.host, stale: r.stale, age_ms: null, accept_commands: null, runs: 0, by_status: {} };
    c.runs++;
    c.by_status[r.status] = (c.by_status[r.status] ?? 0) + 1;
    out.set(r.host, c);
  }
  return [...out.values()].sort((a, b) => a.host.localeCompare(b.host));
}

export function fleetCountsText(v: ClusterRunsReply, color = useColor()): string {
  const rows = fleetCounts(v).map((c): Cell[] => [
    c.host,
    c.stale ? 'stale' : 'up',
    c.age_ms === null ? '-' : `${formatDuration(c.age_ms)} ago`,
    String(c.runs),
    Object.entries(c.by_status)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ') || '-',
  ]);
  return [...freshnessLines(v), table(['MACHINE', 'STATE', 'HEARTBEAT', 'RUNS', 'BY STATUS'], rows, color)].join('\n');
}

export interface FleetSpendRow {
  key: string;
  runs: number;
  tokens: number;
  cost: number;
}

/** `spend --cluster`: the published meters summed, by machine, by provider and by workload (ended runs within the view's retention too). */
export function fleetSpend(v: ClusterRunsReply): { by_machine: FleetSpendRow[]; by_provider: FleetSpendRow[]; by_workload: FleetSpendRow[] } {
  const sum = (key: (r: ClusterRun) => string): FleetSpendRow[] => {
    const m = new Map<string, FleetSpendRow>();
    for (const r of v.runs) {
      const k = key(r);
      const row = m.get(k) ?? { key: k, runs: 0, tokens: 0, cost: 0 };
      row.runs++;
      row.tokens += r.tokens.input + r.tokens.output;
      row.cost += r.cost_usd;
      m.set(k, row);
    }
    return [...m.values()].sort((a, b) => b.cost - a.cost || a.key.localeCompare(b.key));
  };
  return { by_machine: sum((r) => r.host), by_provider: sum((r) => r.provider), by_workload: sum((r) => `${r.provider}/${r.workload}`) };
}

export function fleetSpendText(v: ClusterRunsReply, color = useColor()): string {
  const s = fleetSpend(v);
  const rows = (xs: FleetSpendRow[]): Cell[][] => xs.map((r) => [safeLine(r.key), String(r.runs), tokens(r.tokens), usd(r.cost)]);
  return [
    ...freshnessLines(v),
    "spend of the fleet's runs as published (active ones, and those ended within cluster.view_retention)",
    '',
    table(['MACHINE', 'RUNS', 'TOKENS', 'COST'], rows(s.by_machine), color),
    '',
    table(['PROVIDER', 'RUNS', 'TOKENS', 'COST'], rows(s.by_provider), color),
    '',
    table(['WORKLOAD', 'RUNS', 'TOKENS', 'COST'], rows(s.by_workload), color),
  ].join('\n');
}
