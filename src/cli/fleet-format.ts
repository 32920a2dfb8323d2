// The fleet view as text: `ps --cluster` (a MACHINE column; other machines'
// runs as HOST:NAME), `show HOST:RUN`, `approvals --cluster` (ids as
// HOST:ID), `stats --cluster`, `spend --cluster` and `events --cluster` —
// and, on each, whether the view is current: a machine that stopped
// answering, or the database away (the last good read, and since when).
// Another machine's runs and requests read as this machine's do: each form
// writes them with the local verb's helpers (format.ts, approval-text.ts).

import { faceWhy } from '../text/why.js';
import { formatDuration } from '../config/duration.js';
import type { ClusterRunReply, ClusterRunsReply } from '../protocol/results.js';
import type { ClusterRun } from '../protocol/views.js';
import { truncateDisplay } from '../text/display-width.js';
import { safeLine } from '../text/terminal-text.js';
import { approvalLine, denialsMark } from '../text/approvals.js';
import { approvalsTable, type ListedApproval } from './approval-text.js';
import {
  changes,
  deniedLines,
  exitText,
  labelled,
  meterLines,
  optionalColumns,
  statusHead,
  table,
  timeLines,
  tokens,
  usd,
  usdShort,
  useColor,
  type Cell,
} from './format.js';

/** Widest a name gets in `ps --cluster`: `ps`'s 40, and room for its machine's `HOST:`. */
const NAME_COLUMNS = 48;

/** `working`, `queued#3 global 3/3`, `blocked:approval approve Bash: npm test`, `ended:failed`: as `ps` says it, the why as published (what counts down in it, as of now). */
function statusWord(r: ClusterRun, now: number): string {
  const why = faceWhy(r, now);
  return why && r.status !== 'ended' ? `${statusHead(r)} ${safeLine(why)}` : statusHead(r);
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

/** `ps --cluster`: `ps`'s columns (its optional ones too) after a MACHINE column. */
export function fleetTable(v: ClusterRunsReply, now = Date.now(), color = useColor()): string {
  const head = freshnessLines(v);
  if (v.runs.length === 0) return [...head, 'no runs on any machine'].join('\n');
  const rows = v.runs.map((r): Cell[] => [
    r.stale ? `${r.host} (stale)` : r.host,
    truncateDisplay(safeLine(r.ref), NAME_COLUMNS),
    r.uuid.slice(0, 8),
    // Tools its agent CLI refused by itself, as `ps` marks them: `working ⊘ 2 denied`.
    { text: [statusWord(r, now), denialsMark(r)].filter((x) => x !== null).join(' '), status: r.stale ? 'stale' : r.status },
    `${r.provider}/${r.workload}`,
    String(r.turns),
    tokens(r.tokens.input + r.tokens.output),
    usdShort(r.cost_usd),
    elapsed(r, now),
  ]);
  const header = ['MACHINE', 'NAME', 'ID', 'STATUS', 'PROVIDER/WORKLOAD', 'TURNS', 'TOKENS', 'COST', 'ELAPSED'];
  optionalColumns(v.runs, header, rows, (r) => r.ref);
  return [...head, table(header, rows, color)].join('\n');
}

/** Its requests as `show` writes them, by the ids this machine answers them by (`b:12`), and the calls its agent CLI refused by itself. */
function requestLines(r: ClusterRun): [string, string][] {
  const requests = r.approvals.map((a): [string, string] => [
    'request',
    approvalLine({
      ...a,
      id: r.local ? a.id : `${r.host}:${a.id}`,
      on_timeout: a.on_timeout ?? null,
      state: 'pending',
      decided_by: null,
      decided_at: null,
      message: null,
      answers: null,
      always: null,
      always_added: false,
    }),
  ]);
  return [...requests, ...deniedLines(r.denials ?? 0)];
}

/** Its worktree as `show` writes it, less what stays on its machine (its path, its base commit). */
function worktreeLines(w: NonNullable<ClusterRun['worktree']>): [string, string][] {
  return [
    ['worktree', w.state],
    ['branch', `${w.branch} from ${w.base}`],
    ['changes', `${changes(w)} in ${w.files} ${w.files === 1 ? 'file' : 'files'}`],
  ];
}

/** `show HOST:RUN`: another machine's run as it published it, in `show`'s labels and words. */
export function fleetRunText(v: ClusterRunReply, now = Date.now()): string {
  const r = v.run;
  // Its time as `show` reads it (views' meterViews), now: the face is written when the run changes, not as its clock runs.
  const time = r.started_at === null ? 0 : (r.ended_at === null ? now : Date.parse(r.ended_at)) - Date.parse(r.started_at);
  const budget = { ...r.budget, time_ms: { ...r.budget.time_ms, used: Math.max(0, time) } };
  const lines: [string, string][] = [
    ['name', r.ref],
    ['uuid', r.uuid],
    ['machine', `${r.host}${r.stale ? ' — not answering: this is the last it said' : ''}`],
    ['status', statusWord(r, now)],
    ['exit', exitText(r)],
    ['provider', r.provider],
    ['workload', r.workload],
    ...meterLines({ ...r, budget }),
  ];
  if (r.worktree) lines.push(...worktreeLines(r.worktree));
  if (r.after.length > 0) lines.push(['after', `${r.after.join(', ')}${r.after_any ? ' (each ended, however)' : ' (each completed)'}`]);
  if (r.parent !== null) lines.push(['parent', r.parent]);
  lines.push(...requestLines(r), ...timeLines(r), ['published', r.published_at]);
  const out = [labelled(lines)];
  if (v.stale_since) out.push(`the cluster database does not answer: this is the view of ${v.stale_since}, stale since then`);
  return out.join('\n');
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

/** `approvals --cluster`: `approvals`' table (ID, RUN, AGE, DEADLINE, WHAT), ids as HOST:ID, oldest first across the fleet. */
export function fleetRequestsText(v: ClusterRunsReply, now = Date.now(), color = useColor()): string {
  const head = freshnessLines(v);
  const listed = v.runs
    .flatMap((r) =>
      r.approvals.map((a): ListedApproval => ({
        id: r.local ? a.id : `${r.host}:${a.id}`,
        name: r.ref,
        state: 'pending',
        summary: a.summary,
        question: a.question,
        questions: null,
        deadline_at: a.deadline_at,
        // Older machines publish neither.
        asked_at: a.asked_at ?? null,
        on_timeout: a.on_timeout ?? null,
        decided_by: null,
        answers: null,
        message: null,
      })),
    )
    .sort((a, b) => (a.asked_at ?? '').localeCompare(b.asked_at ?? ''));
  if (listed.length === 0) return [...head, 'no request waits for an answer on any machine'].join('\n');
  return [...head, approvalsTable(listed, now, false, color)].join('\n');
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

/** One status change of the fleet's, as `events --cluster --json` gives it. */
export interface FleetChange {
  at: string;
  host: string;
  run: string;
  uuid: string;
  from: string | null;
  status: string;
  why: string | null;
}

export function fleetChange(r: ClusterRun, from: string | null): FleetChange {
  return { at: r.status_at, host: r.host, run: r.ref, uuid: r.uuid, from, status: r.status, why: r.why };
}

/**
 * A change as `events` writes one of its journal's: `host time type id
 * name data`, tab-separated — its machine where the local line has its seq
 * (a fleet's changes have none), its status as the event's type, and
 * `from=working reason=completed exit_code=0` as its data would say it.
 */
export function fleetChangeLine(r: ClusterRun, from: string | null): string {
  const data: [string, string | number | null][] = [['from', from]];
  if (r.status === 'ended') data.push(['reason', r.exit_reason], ['detail', r.exit_detail], ['exit_code', r.exit_code]);
  else {
    if (r.status === 'blocked') data.push(['kind', r.blocked_kind]);
    data.push(['why', r.why]);
  }
  const said = data
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  return [r.host, r.status_at, r.status, r.uuid.slice(0, 8), r.ref, said].map(safeLine).join('\t');
}
