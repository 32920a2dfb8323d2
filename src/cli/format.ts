// Human-readable output for the CLI verbs. Anything a user or an agent wrote
// goes through safeLine before it reaches a terminal; tables are laid out in
// display columns (a CJK character or an emoji takes two), and colour is
// added after padding so its escapes never count as width.

import { formatDuration } from '../config/duration.js';
import { treeOrder } from '../core/run-tree.js';
import type { PublicRun } from '../client/methods.js';
import type { MeterView } from '../protocol/views.js';
import { METER_NAMES, RUN_METERS, type MeterName, type MeterUnit } from '../core/budget.js';
import { displayWidth, truncateDisplay } from '../text/display-width.js';
import { safeLine } from '../text/terminal-text.js';
import { agentRetryText, agentWaitText, waitingText } from '../text/waiting.js';
import { approvalLine, askingText, denialsMark } from '../text/approvals.js';
import { jsonText } from '../text/json-text.js';

/**
 * Colour when the output is a terminal, or when FORCE_COLOR asks for it (a
 * pager, a test); NO_COLOR always wins.
 */
export function useColor(env: NodeJS.ProcessEnv = process.env, isTTY = process.stdout.isTTY === true): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

const COLORS: Record<string, string> = {
  queued: '\x1b[90m',
  starting: '\x1b[36m',
  working: '\x1b[32m',
  idle: '\x1b[34m',
  blocked: '\x1b[33m',
  ended: '\x1b[37m',
};

function paintStatus(status: string, text = status, color = useColor()): string {
  return color && COLORS[status] ? `${COLORS[status]}${text}\x1b[0m` : text;
}

/** A table cell: text, and the status whose colour it takes. */
export type Cell = string | { text: string; status?: string };

/** Columns two spaces apart, each as wide as its widest cell in display columns; the last is not padded. */
export function table(headers: string[], rows: Cell[][], color = useColor()): string {
  const norm = (c: Cell | undefined): { text: string; status?: string } =>
    c === undefined ? { text: '' } : typeof c === 'string' ? { text: safeLine(c) } : { text: safeLine(c.text), status: c.status };
  const head = headers.map((h) => norm(h));
  const body = rows.map((r) => headers.map((_, i) => norm(r[i])));
  const widths = headers.map((_, i) => Math.max(...[head, ...body].map((r) => displayWidth(r[i]!.text))));
  const line = (cells: { text: string; status?: string }[]): string =>
    cells
      .map((c, i) => {
        const shown = c.status ? paintStatus(c.status, c.text, color) : c.text;
        return i === cells.length - 1 ? shown : shown + ' '.repeat(widths[i]! - displayWidth(c.text));
      })
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}

const trimZeros = (s: string): string => (s.includes('.') ? s.replace(/\.?0+$/, '') : s);

/** 950, 12.3k, 100k, 1.2M. */
export function tokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 999_950) return `${trimZeros((n / 1000).toFixed(1))}k`;
  return `${trimZeros((n / 1_000_000).toFixed(1))}M`;
}

/** 512 bytes, 2.3 KB, 41.0 MB, 1.2 GB (units of 1024). */
export function sizeText(n: number): string {
  if (n < 1024) return `${n} byte${n === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/** $0, $0.0123, $1, $12.5 — at most 4 decimals, 6 for amounts under a cent. */
export function usd(n: number): string {
  if (!Number.isFinite(n)) return `$${n}`;
  const abs = Math.abs(n);
  return `$${trimZeros(n.toFixed(abs > 0 && abs < 0.01 ? 6 : 4))}`;
}

/** $0.12 for a table cell; a cost under a cent is not shown as nothing. */
export function usdShort(n: number): string {
  if (n === 0) return '-';
  if (n > 0 && n < 0.005) return '<$0.01';
  return `$${n.toFixed(2)}`;
}

/** A number in free text (an event's data): at most 6 decimals. */
export function plainNumber(n: number): string {
  return Number.isInteger(n) || !Number.isFinite(n) ? String(n) : trimZeros(n.toFixed(6));
}

/**
 * The status word before its why: `ended:failed`, `blocked:approval`,
 * `queued#3`, `working` — this machine's runs and another's (whose why comes
 * published, cli/fleet-format.ts) alike.
 */
export function statusHead(r: Pick<PublicRun, 'status' | 'exit_reason' | 'blocked_kind' | 'queue_position'>): string {
  if (r.status === 'ended') return `ended:${r.exit_reason ?? '?'}`;
  if (r.status === 'blocked') return `blocked:${r.blocked_kind ?? 'unknown'}`;
  if (r.status === 'queued') return r.queue_position !== null ? `queued#${r.queue_position}` : 'queued';
  return r.status;
}

function statusWord(r: PublicRun, now = Date.now()): string {
  if (r.status === 'ended') return statusHead(r);
  if (r.status === 'blocked') {
    // On its agent's requests: `blocked:approval approve Bash: npm test +1 more`.
    const asking = askingText(r);
    if (asking) return `blocked:approval ${asking}`;
    // A limit its agent waits out by itself: `blocked:limit the agent waits until 16:50 (4h12m)`.
    const waits = agentWaitText(r, now, { short: true });
    return `${statusHead(r)}${waits ? ` ${waits}` : ''}`;
  }
  if (r.status === 'queued') return r.waiting ? `${statusHead(r)} ${waitingText(r.waiting, now)}` : statusHead(r);
  // Older supervisors send no agent_retry.
  if (r.agent_retry) return `${r.status} ${agentRetryText(r.agent_retry)}`;
  return r.status;
}

function elapsed(r: PublicRun, now = Date.now()): string {
  const start = r.started_at ? Date.parse(r.started_at) : Date.parse(r.created_at);
  const end = r.ended_at ? Date.parse(r.ended_at) : now;
  return formatDuration(Math.max(0, end - start));
}

/** Widest a name gets in `ps` (the whole name is in `show` and `--json`). */
const NAME_COLUMNS = 40;

export function psTable(runs: PublicRun[], now = Date.now(), color = useColor(), levels?: readonly number[]): string {
  if (runs.length === 0) return 'no runs';
  const rows = runs.map((r, i): Cell[] => [
    // In a tree, a child sits two columns right of its parent.
    truncateDisplay('  '.repeat(levels?.[i] ?? 0) + safeLine(r.name), NAME_COLUMNS),
    r.uuid.slice(0, 8),
    // Tools its agent CLI refused by itself, nobody asked: `working ⊘ 2 denied`.
    { text: [statusWord(r, now), denialsMark(r)].filter((x) => x !== null).join(' '), status: r.status },
    `${r.provider}/${r.workload}`,
    String(r.turns),
    tokens(r.tokens.input + r.tokens.output),
    usdShort(r.cost_usd),
    elapsed(r, now),
  ]);
  const header = ['NAME', 'ID', 'STATUS', 'PROVIDER/WORKLOAD', 'TURNS', 'TOKENS', 'COST', 'ELAPSED'];
  optionalColumns(runs, header, rows, (r) => r.name);
  return table(header, rows, color);
}

/** What `ps`'s optional columns read of a run: this machine's or another's (which publishes no repository). */
export interface ColumnRun {
  uuid: string;
  after?: readonly string[];
  after_any: boolean;
  worktree: { added: number; removed: number; branch: string; repo?: string } | null;
}

/**
 * `ps`'s columns that only some fleets need, added to `header` and each row:
 * AFTER, CHANGES, REPO. `nameOf`: how the table names a run (a listed input
 * is said by it).
 */
export function optionalColumns<R extends ColumnRun>(runs: readonly R[], header: string[], rows: Cell[][], nameOf: (r: R) => string): void {
  // What each run waits (or waited) for (`run --after`), only when some listed run has it: by name where it is listed too.
  if (runs.some((r) => (r.after ?? []).length > 0)) {
    const names = new Map(runs.map((r) => [r.uuid, nameOf(r)]));
    header.push('AFTER');
    runs.forEach((r, i) => {
      const after = (r.after ?? []).map((u) => safeLine(names.get(u) ?? u.slice(0, 8)));
      rows[i]!.push(after.length === 0 ? '-' : truncateDisplay(after.join(',') + (r.after_any ? ' (any)' : ''), NAME_COLUMNS));
    });
  }
  // The worktree column only when some listed run has one: most fleets work in place.
  if (runs.some((r) => r.worktree)) {
    header.push('CHANGES');
    runs.forEach((r, i) => rows[i]!.push(r.worktree ? `${changes(r.worktree)} ${safeLine(r.worktree.branch)}` : '-'));
    // Which repository, once there is more than one to tell apart.
    const repos = new Set(runs.flatMap((r) => (r.worktree?.repo !== undefined ? [r.worktree.repo] : [])));
    if (repos.size > 1) {
      header.push('REPO');
      runs.forEach((r, i) => rows[i]!.push(r.worktree?.repo !== undefined ? safeLine(repoName(r.worktree.repo)) : '-'));
    }
  }
}

/** A repository's last path part: what tells two apart in a column. */
function repoName(repo: string): string {
  return (
    repo
      .split('/')
      .filter((p) => p !== '')
      .pop() ?? repo
  );
}

/** `+12 −3`: lines added and removed against the run's base. */
export function changes(w: { added: number; removed: number }): string {
  return `+${w.added} −${w.removed}`;
}

/** `ps --tree`: each run under its parent, indented by its level; a run whose parent is not listed starts a tree. */
export function psTree(runs: PublicRun[], now = Date.now(), color = useColor()): string {
  const ordered = treeOrder(runs);
  return psTable(
    ordered.map((o) => o.run),
    now,
    color,
    ordered.map((o) => o.level),
  );
}

/** `used / limit`, or `used` alone when there is no limit. */
export function ofLimit(used: string, limit: string | null): string {
  return limit === null ? used : `${used} / ${limit}`;
}

const WRITE: Readonly<Record<MeterUnit, (n: number) => string>> = { count: (n) => String(n), tokens, usd, duration: formatDuration };

interface ShowMeter {
  /** Its line's label, when not the meter's. */
  label?: string;
  /** What the line says was used, when not the meter's; null: `-`. */
  used?: (r: MeterRun) => number | null;
  /** Written after `used / ceiling`. */
  more?: (r: MeterRun) => string;
  /** Lines that go under it. */
  after?: (r: MeterRun) => [string, string][];
}

/**
 * Where `show` writes a meter otherwise than as its label and `used / ceiling`:
 * its tokens and cost are the run's own (its tree's are the tree lines, read
 * against the same ceilings), broken down for tokens; time is `elapsed`, `-`
 * before it starts; the inputs it was sent go under its turns.
 */
const SHOW_METER: { readonly [M in MeterName]?: ShowMeter } = {
  turns: { after: (r) => (r.input_seq !== undefined && r.input_seq > 0 ? [['inputs', String(r.input_seq)]] : []) },
  tokens: {
    used: (r) => r.tokens.input + r.tokens.output,
    more: ({ tokens: t }) => ` (in ${tokens(t.input)}, out ${tokens(t.output)}, cached ${tokens(t.cached)})`,
  },
  cost_usd: { used: (r) => r.cost_usd },
  time_ms: { label: 'elapsed', used: (r) => (r.started_at === null ? null : (r.budget.time_ms?.used ?? 0)) },
};

/** What `show`'s meter lines read of a run: this machine's or another's as published (which says no inputs). */
export type MeterRun = Pick<PublicRun, 'budget' | 'tokens' | 'cost_usd' | 'started_at'> & { input_seq?: number };

/** A line for each of the run's meters, in core's order (core/budget.ts); one an older supervisor does not send reads `-`. */
export function meterLines(r: MeterRun): [string, string][] {
  return METER_NAMES.flatMap((name): [string, string][] => {
    const how = SHOW_METER[name] ?? {};
    const write = WRITE[RUN_METERS[name].unit];
    const m: MeterView | undefined = r.budget[name];
    const used = how.used ? how.used(r) : (m?.used ?? null);
    const text = ofLimit(used === null ? '-' : write(used), m?.limit != null ? write(m.limit) : null) + (how.more?.(r) ?? '');
    return [[how.label ?? RUN_METERS[name].label, text], ...(how.after?.(r) ?? [])];
  });
}

/** `show`: one labelled line per fact; with `env` (show --env), one `env` line per variable and its value. */
export function showRun(r: PublicRun, now = Date.now(), env?: Readonly<Record<string, string>>): string {
  const lines: [string, string][] = [
    ['name', r.name],
    ['uuid', r.uuid],
    ['status', statusWord(r, now)],
  ];
  const waits = r.waiting ? waitingText(r.waiting, now) : agentWaitText(r, now);
  if (waits) lines.push(['waiting', waits]);
  lines.push(
    ['exit', exitText(r)],
    ['provider', r.provider],
    ['workload', r.workload],
    // Never decided: its output was read as plain text, as a plain agent's is.
    ['protocol', r.protocol ?? (r.status === 'ended' ? 'none detected (its output read as plain text)' : '(detecting)')],
    ['command', jsonText(r.command)],
    ['cwd', r.cwd],
    ['pid', r.pid === null ? '-' : String(r.pid)],
    ...meterLines(r),
  );
  if (r.worktree) {
    const w = r.worktree;
    lines.push(
      ['worktree', `${w.path} (${w.state})`],
      ['branch', `${w.branch} from ${w.base} (${w.base_commit.slice(0, 12)})`],
      ['changes', `${changes(w)} in ${w.files} ${w.files === 1 ? 'file' : 'files'}`],
    );
  }
  const rules = [...r.rules.allow.map((x) => `allow ${x}`), ...r.rules.deny.map((x) => `deny ${x}`)];
  if (rules.length > 0) lines.push(['rules', safeLine(rules.join(', '))]);
  if (r.after.length > 0) lines.push(['after', `${r.after.join(', ')}${r.after_any ? ' (each ended, however)' : ' (each completed)'}`]);
  if ((r.dependents ?? []).length > 0) lines.push(['waited for by', r.dependents.join(', ')]);
  if (r.parent !== null || r.depth > 0) lines.push(['parent', `${r.parent ?? '-'} (depth ${r.depth})`]);
  lines.push(...treeLines(r));
  if (r.loop.detected || r.loop.warned) lines.push(['loop', `detected, ${r.loop.repetitions} repetitions${r.loop.warned ? ', warned' : ''}`]);
  if (r.held_until) lines.push(['hold', `provider ${r.provider} on hold ${until(Date.parse(r.held_until), now)}`]);
  if (env) for (const [k, v] of Object.entries(env)) lines.push(['env', `${k}=${v}`]);
  else if (r.env_keys?.length) lines.push(['env', `${r.env_keys.map(safeLine).join(', ')} (values: show --env)`]);
  if (r.session_id) lines.push(['session', r.session_id]);
  // Older records and old supervisors have none.
  for (const a of r.attempts ?? []) {
    lines.push([
      `attempt ${a.n}`,
      `${a.started_at ?? '-'} → ${a.ended_at}: ${a.reason}${a.detail ? ` (${a.detail})` : ''}, ${a.kind === 'retry' ? 'retried' : 'continued'}${a.session_id ? ` session ${a.session_id}` : ''}`,
    ]);
  }
  if ((r.attempts?.length ?? 0) > 0)
    lines.push([`attempt ${r.attempts.length + 1}`, r.status === 'ended' ? `its last: ${r.exit_reason ?? 'ended'}` : `now (${r.status})`]);
  lines.push(...requestLines(r));
  if (r.last_tool) lines.push(['last tool', r.last_tool]);
  if (r.last_text) lines.push(['last text', truncateDisplay(safeLine(r.last_text).replace(/\s+/g, ' '), 200)]);
  lines.push(...timeLines(r));
  return labelled(lines);
}

/** `created`, `started`, `ended`: as `show` writes a run's times. */
export function timeLines(r: Pick<PublicRun, 'created_at' | 'started_at' | 'ended_at'>): [string, string][] {
  return [
    ['created', r.created_at],
    ['started', r.started_at ?? '-'],
    ['ended', r.ended_at ?? '-'],
  ];
}

/** `show`'s lines: each label padded to the widest, its value after two spaces. */
export function labelled(lines: readonly [string, string][]): string {
  const w = Math.max(...lines.map(([k]) => k.length));
  return lines.map(([k, v]) => `${k.padEnd(w)}  ${safeLine(v)}`).join('\n');
}

/** `failed (exit 1), code 1`, `-` before it ends: `show`'s exit line, this machine's runs and another's (which publishes no note). */
export function exitText(r: Pick<PublicRun, 'exit_reason' | 'exit_detail' | 'exit_code'> & { exit_note?: string | null }): string {
  if (!r.exit_reason) return '-';
  return `${r.exit_reason}${r.exit_detail ? ` (${r.exit_detail})` : ''}, code ${r.exit_code ?? '-'}${r.exit_note ? `; ${r.exit_note}` : ''}`;
}

/** A parent's children and what they spent with it, rolled up: its token and cost ceilings are read against these. */
function treeLines(r: PublicRun): [string, string][] {
  if (r.children.length === 0) return [];
  const b = r.budget;
  const u = r.rollup;
  return [
    ['children', r.children.join(', ')],
    [
      'tree tokens',
      `${ofLimit(tokens(u.tokens.input + u.tokens.output), b.tokens?.limit != null ? tokens(b.tokens.limit) : null)} (in ${tokens(u.tokens.input)}, out ${tokens(u.tokens.output)}, cached ${tokens(u.tokens.cached)})`,
    ],
    ['tree cost', ofLimit(usd(u.cost_usd), b.cost_usd?.limit != null ? usd(b.cost_usd.limit) : null)],
  ];
}

/** Its agent's requests, oldest first, each with who decided it, and the tool calls its CLI refused by itself. */
function requestLines(r: PublicRun): [string, string][] {
  const lines: [string, string][] = (r.approvals ?? []).map((a) => ['request', approvalLine(a)]);
  if (r.protocol_errors.count)
    lines.push(['errors', `${r.protocol_errors.count} in its agent's protocol (orcr events); the last: ${safeLine(r.protocol_errors.last ?? '')}`]);
  lines.push(...deniedLines(r.denials));
  return lines;
}

/** `show`'s line of the tool calls a run's agent CLI refused by itself; none when it refused none. */
export function deniedLines(denials: number): [string, string][] {
  return denials ? [['denied', `${denials} tool ${denials === 1 ? 'call' : 'calls'} refused by the agent CLI's own settings (nobody was asked)`]] : [];
}

/** `in 4m10s`, or `now` once the moment has passed. */
export function until(at: number, now = Date.now()): string {
  const left = at - now;
  return left > 0 ? `in ${formatDuration(left)}` : 'now';
}
