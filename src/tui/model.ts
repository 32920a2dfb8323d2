// The TUI's data model as pure functions: a snapshot and the event stream
// become normalized runs (byId), a sorted/filtered view of ids, counts by
// status, queue positions and event-log entries. No I/O, `now` passed in.

import type { CapUsage } from '../core/admission.js';
import type { RunEvent } from '../core/types.js';
import type { StreamMessage } from '../client/client.js';
import type { PublicRun } from '../server/view.js';
import type { Token } from './theme.js';
import { hasControls, safeLine } from '../text/terminal-text.js';
import { clock, costText, tokensText } from './format.js';

export const STATUSES = ['queued', 'starting', 'working', 'idle', 'blocked', 'ended'] as const;
export type Status = (typeof STATUSES)[number];

/** Sort order: what needs a person first, then what runs, then what waits, then history. */
const STATUS_RANK: Readonly<Record<string, number>> = { blocked: 0, idle: 1, working: 2, starting: 3, queued: 4, ended: 5 };

export interface RunsData {
  byId: Readonly<Record<string, PublicRun>>;
  /** The last journal seq applied: stream events at or below it are already in. */
  seq: number;
}

export interface Snapshot {
  seq: number;
  runs: PublicRun[];
  events?: RunEvent[];
}

// ---------------------------------------------------------------------------
// Text from agents. Every string a run or an event carries may hold escape
// sequences (an agent's output, a name typed by someone else); the TUI makes
// it safe once, when it comes in, so no pane can forget to and no frame pays
// for it again.

/** One line of terminal-safe text (the test is one regexp; most text passes as is). */
export const clean = (v: string): string => (hasControls(v) ? safeLine(v) : v);
const cleanOrNull = (v: string | null): string | null => (v === null ? null : clean(v));

const RUN_TEXT = ['name', 'provider', 'workload', 'protocol', 'status', 'exit_reason', 'exit_detail', 'blocked_kind', 'cwd', 'session_id', 'last_tool', 'last_text'] as const;

/** The run with every text field terminal-safe; the same object when nothing needed it. */
export function safeRun(r: PublicRun): PublicRun {
  let out: PublicRun | null = null;
  for (const k of RUN_TEXT) {
    const v = r[k];
    if (typeof v === 'string' && hasControls(v)) {
      out ??= { ...r };
      (out as unknown as Record<string, string>)[k] = safeLine(v);
    }
  }
  if (r.command.some(hasControls)) {
    out ??= { ...r };
    out.command = r.command.map(clean);
  }
  const w = r.waiting;
  if (w && ((w.name !== null && hasControls(w.name)) || (w.until !== null && hasControls(w.until)))) {
    out ??= { ...r };
    out.waiting = { ...w, name: cleanOrNull(w.name), until: cleanOrNull(w.until) };
  }
  return out ?? r;
}

export function applySnapshot(snap: Snapshot): RunsData {
  const byId: Record<string, PublicRun> = {};
  for (const r of snap.runs) byId[r.uuid] = safeRun(r);
  return { byId, seq: snap.seq };
}

const TRANSITIONS: ReadonlySet<string> = new Set(STATUSES);
const isoAt = (ts: number): string => new Date(ts).toISOString();
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The row as of this event. The view a stream message carries is computed
 * when the server broadcasts, which can be a step before or after the event
 * (the supervisor may update its memory after the journal commit). What the
 * event itself says — the new status, exit reason, usage totals — is the
 * truth for that seq, so it is laid over the view. Applied in seq order, the
 * last event of a run decides its row.
 */
export function viewAtEvent(run: PublicRun, ev: RunEvent): PublicRun {
  const d = ev.data;
  let r = run;
  if (TRANSITIONS.has(ev.type) && r.status !== ev.type) {
    r = { ...r, status: ev.type, status_at: isoAt(ev.ts) };
    if (ev.type !== 'blocked') r.blocked_kind = null;
    if (ev.type !== 'queued') r.queue_position = null;
    if (ev.type !== 'ended' && ev.type !== 'queued' && r.started_at === null) r.started_at = isoAt(ev.ts);
  }
  if (ev.type === 'ended') {
    const reason = typeof d.reason === 'string' ? d.reason : r.exit_reason;
    if (r.exit_reason !== reason || r.ended_at === null) {
      r = {
        ...r,
        exit_reason: reason,
        exit_detail: typeof d.detail === 'string' ? d.detail : r.exit_detail,
        exit_code: num(d.exit_code) ?? r.exit_code,
        ended_at: r.ended_at ?? isoAt(ev.ts),
      };
    }
  } else if (ev.type === 'blocked' && typeof d.kind === 'string' && r.blocked_kind !== d.kind) {
    r = { ...r, blocked_kind: d.kind };
  }
  const pid = num(d.pid);
  if (pid !== undefined && r.pid === null && (ev.type === 'spawned' || ev.type === 'working' || ev.type === 'adopted')) r = { ...r, pid };
  if (ev.type === 'usage') {
    const turns = num(d.turns);
    const t = d.tokens as Partial<PublicRun['tokens']> | undefined;
    const cost = num(d.cost_usd);
    if ((turns !== undefined && turns !== r.turns) || (t && num(t.input) !== undefined && t.input !== r.tokens.input) || (cost !== undefined && cost !== r.cost_usd)) {
      r = {
        ...r,
        turns: turns ?? r.turns,
        tokens: t ? { input: num(t.input) ?? r.tokens.input, output: num(t.output) ?? r.tokens.output, cached: num(t.cached) ?? r.tokens.cached } : r.tokens,
        cost_usd: cost ?? r.cost_usd,
      };
    }
  }
  if (ev.type === 'idle' && num(d.turn) !== undefined && d.turn !== r.turns) r = { ...r, turns: d.turn as number };
  if (ev.type === 'working' && num(d.input_seq) !== undefined && d.input_seq !== r.input_seq) r = { ...r, input_seq: d.input_seq as number };
  return r;
}

/** Turns, tokens, cost and inputs only grow: a view that lags an event already applied must not take them back. */
export function keepCounters(prev: PublicRun | undefined, next: PublicRun): PublicRun {
  if (!prev || prev.uuid !== next.uuid) return next;
  const t = prev.tokens;
  const n = next.tokens;
  if (next.turns >= prev.turns && n.input >= t.input && n.output >= t.output && n.cached >= t.cached && next.cost_usd >= prev.cost_usd && next.input_seq >= prev.input_seq) {
    return next;
  }
  return {
    ...next,
    turns: Math.max(prev.turns, next.turns),
    input_seq: Math.max(prev.input_seq, next.input_seq),
    tokens: { input: Math.max(t.input, n.input), output: Math.max(t.output, n.output), cached: Math.max(t.cached, n.cached) },
    cost_usd: Math.max(prev.cost_usd, next.cost_usd),
  };
}

export interface Notable {
  kind: 'blocked' | 'ended';
  uuid: string;
  name: string;
  /** blocked kind or exit reason */
  detail: string;
}

export interface Applied {
  data: RunsData;
  /** The messages that were new (seq above what was applied), in order. */
  fresh: StreamMessage[];
  notable: Notable[];
}

/**
 * Apply stream messages in order. A message at or below the applied seq is a
 * duplicate of what the snapshot already holds and is dropped; the run view a
 * message carries replaces the row (merge by uuid, last one wins).
 */
export function applyEvents(data: RunsData, msgs: readonly StreamMessage[]): Applied {
  let byId: Record<string, PublicRun> | null = null;
  let seq = data.seq;
  const fresh: StreamMessage[] = [];
  const notable: Notable[] = [];
  for (const m of msgs) {
    const ev = m.event;
    if (ev.seq <= seq) continue;
    seq = ev.seq;
    fresh.push(m);
    const uuid = ev.run;
    if (uuid === null) continue;
    const prev = (byId ?? data.byId)[uuid];
    let next: PublicRun | undefined;
    if (m.run) next = safeRun(keepCounters(prev, viewAtEvent(m.run, ev)));
    else if (prev && (TRANSITIONS.has(ev.type) || ev.type === 'usage')) {
      // No view attached (the server could not find the run): the event alone moves the row we have.
      next = safeRun(viewAtEvent(prev, ev.type === 'ended' && typeof ev.data.reason !== 'string' ? { ...ev, data: { ...ev.data, reason: 'lost' } } : ev));
    }
    if (next) {
      byId ??= { ...data.byId };
      byId[uuid] = next;
    }
    const name = next?.name ?? prev?.name ?? uuid.slice(0, 8);
    if (ev.type === 'blocked') {
      notable.push({ kind: 'blocked', uuid, name, detail: clean(String(ev.data.kind ?? next?.blocked_kind ?? 'unknown')) });
    } else if (ev.type === 'ended') {
      notable.push({ kind: 'ended', uuid, name, detail: clean(String(ev.data.reason ?? next?.exit_reason ?? 'ended')) });
    }
  }
  return { data: byId || seq !== data.seq ? { byId: byId ?? data.byId, seq } : data, fresh, notable };
}

export interface ViewOptions {
  filter: string;
  showAll: boolean;
  /**
   * Workload priorities (from stats), which decide the admission order: higher
   * priority first, then queue_seq. Null before the first stats: the order the
   * server last gave (queue_position) stands in.
   */
  priorities?: Readonly<Record<string, number>> | null;
}

export interface RunsView {
  ids: string[];
  /** 1-based admission order of each queued run (all queued runs, not just the filtered ones). */
  positions: Readonly<Record<string, number>>;
  counts: Readonly<Record<Status, number>>;
  total: number;
}

function matches(r: PublicRun, words: string[]): boolean {
  if (words.length === 0) return true;
  const hay = [r.name, r.uuid, r.provider, r.workload, r.status, r.exit_reason ?? '', r.blocked_kind ?? '', r.protocol ?? '']
    .join(' ')
    .toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** The supervisor's admission order (CONTRACT: workload priority descending, then queue_seq). */
export function admissionCompare(priorities: Readonly<Record<string, number>> | null): (a: PublicRun, b: PublicRun) => number {
  if (priorities === null) {
    return (a, b) => (a.queue_position ?? Infinity) - (b.queue_position ?? Infinity) || a.queue_seq - b.queue_seq;
  }
  // A Map: workload names are user text ("constructor" must not find Object.prototype's).
  const byName = new Map(Object.entries(priorities));
  const prio = (r: PublicRun): number => byName.get(r.workload) ?? 0;
  return (a, b) => prio(b) - prio(a) || a.queue_seq - b.queue_seq;
}

export function compareRuns(a: PublicRun, b: PublicRun): number {
  const ra = STATUS_RANK[a.status] ?? 9;
  const rb = STATUS_RANK[b.status] ?? 9;
  if (ra !== rb) return ra - rb;
  return a.queue_seq - b.queue_seq;
}

/** Rows to show: active or all, matching the filter, sorted by status, queued runs in admission order. */
export function computeView(byId: Readonly<Record<string, PublicRun>>, opts: ViewOptions): RunsView {
  const words = opts.filter.toLowerCase().split(/\s+/).filter(Boolean);
  const counts: Record<Status, number> = { queued: 0, starting: 0, working: 0, idle: 0, blocked: 0, ended: 0 };
  const others: PublicRun[] = [];
  const queued: PublicRun[] = [];
  const shown: PublicRun[] = [];
  let total = 0;
  for (const uuid in byId) {
    const r = byId[uuid]!;
    total++;
    if (r.status in counts) counts[r.status as Status]++;
    if (r.status === 'queued') queued.push(r);
    if (!opts.showAll && r.status === 'ended') continue;
    if (!matches(r, words)) continue;
    if (r.status === 'queued') shown.push(r);
    else others.push(r);
  }
  // The queue is sorted once, for its positions, and its listed runs go in that order where queued runs sort.
  const order = admissionCompare(opts.priorities ?? null);
  queued.sort(order);
  const positions: Record<string, number> = {};
  for (let k = 0; k < queued.length; k++) positions[queued[k]!.uuid] = k + 1;
  // The listed ones are usually all of them: then the order is the queue's.
  const listedQueue = shown.length === queued.length ? queued : shown.sort((a, b) => positions[a.uuid]! - positions[b.uuid]!);
  others.sort(compareRuns);
  const ids: string[] = [];
  const queuedRank = STATUS_RANK.queued!;
  let i = 0;
  for (; i < others.length && (STATUS_RANK[others[i]!.status] ?? 9) < queuedRank; i++) ids.push(others[i]!.uuid);
  for (const r of listedQueue) ids.push(r.uuid);
  for (; i < others.length; i++) ids.push(others[i]!.uuid);
  return { ids, positions, counts, total };
}

/** Workload priorities from stats (workload caps carry theirs); null when stats has none to tell. */
export function prioritiesOf(stats: Stats | null): Record<string, number> | null {
  if (!stats) return null;
  const out: Record<string, number> = {};
  for (const c of stats.caps) if (c.cap.startsWith('workload:') && typeof c.priority === 'number') out[c.cap.slice('workload:'.length)] = c.priority;
  return out;
}

// ---------------------------------------------------------------------------
// Stats (the limiter pane and the header's meters)

export interface FleetMeter {
  name: string;
  used: number;
  limit: number | null;
  fraction: number | null;
}

export interface Stats {
  caps: CapUsage[];
  /** Names of the runs the caps list (holders, first waiters), by uuid. */
  names: Record<string, string>;
  /** Config values the supervisor clamped or ignored, in words. */
  warnings: string[];
  /** The last config.json edit the supervisor refused (the previous config stays in force), or null. */
  configError: { at: number; message: string } | null;
  queued: number;
  active: number;
  holds: Record<string, number>;
  /** Fleet budget meters with a ceiling, when the supervisor reports them. */
  fleet: FleetMeter[];
  /** The fleet budget tripped: nothing new starts until it resets. */
  fleetExceeded: boolean;
  /** "all" or a rolling window, as the supervisor names it. */
  fleetWindow: string | null;
}

function toMeter(name: string, v: unknown): FleetMeter | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const used = typeof o.used === 'number' ? o.used : null;
  if (used === null) return null;
  const limit = typeof o.limit === 'number' ? o.limit : null;
  const fraction = typeof o.fraction === 'number' ? o.fraction : limit ? used / limit : null;
  return { name: clean(typeof o.name === 'string' ? o.name : name), used, limit, fraction };
}

/** Accept the stats result as the supervisor sends it, tolerating fields it does not send yet. */
export function normalizeStats(raw: unknown): Stats {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const caps = Array.isArray(o.caps) ? (o.caps as CapUsage[]).filter((c) => c && typeof c.cap === 'string') : [];
  const holds: Record<string, number> = {};
  if (o.holds && typeof o.holds === 'object') {
    for (const [k, v] of Object.entries(o.holds as Record<string, unknown>)) if (typeof v === 'number') holds[clean(k)] = v;
  }
  const fleet: FleetMeter[] = [];
  const names: Record<string, string> = {};
  if (o.names && typeof o.names === 'object') {
    for (const [k, v] of Object.entries(o.names as Record<string, unknown>)) if (typeof v === 'string') names[k] = clean(v);
  }
  const warnings = Array.isArray(o.warnings) ? o.warnings.filter((w): w is string => typeof w === 'string').map(clean) : [];
  const ce = o.config_error as { at?: unknown; message?: unknown } | null | undefined;
  const configError = ce && typeof ce === 'object' && typeof ce.message === 'string' ? { at: typeof ce.at === 'number' ? ce.at : 0, message: clean(ce.message) } : null;
  const fleetObj = (o.fleet && typeof o.fleet === 'object' && !Array.isArray(o.fleet) ? o.fleet : {}) as Record<string, unknown>;
  // `fleet: {exceeded, window, meters: {name: meter}}`, or the meters directly.
  const src = fleetObj.meters ?? o.fleet ?? o.budgets ?? o.budget;
  if (Array.isArray(src)) {
    src.forEach((m, i) => {
      const mm = toMeter(`budget${i + 1}`, m);
      if (mm) fleet.push(mm);
    });
  } else if (src && typeof src === 'object') {
    for (const [k, v] of Object.entries(src as Record<string, unknown>)) {
      const mm = toMeter(k, v);
      if (mm) fleet.push(mm);
    }
  }
  return {
    caps: caps.map((c) => ({
      ...c,
      cap: clean(c.cap),
      priority: typeof c.priority === 'number' ? c.priority : null,
      holders: Array.isArray(c.holders) ? c.holders : [],
      waiting: Array.isArray(c.waiting) ? c.waiting : [],
      reserved: typeof c.reserved === 'number' ? c.reserved : 0,
      held_until: typeof c.held_until === 'number' ? c.held_until : null,
    })),
    queued: typeof o.queued === 'number' ? o.queued : 0,
    active: typeof o.active === 'number' ? o.active : 0,
    holds,
    fleet: fleet.filter((m) => m.limit !== null),
    fleetExceeded: fleetObj.exceeded === true,
    fleetWindow: typeof fleetObj.window === 'string' ? clean(fleetObj.window) : null,
    names,
    warnings,
    configError,
  };
}

/** Holds still in force at `now`, soonest lifting first. */
export function activeHolds(holds: Readonly<Record<string, number>>, now: number): { provider: string; until: number }[] {
  return Object.entries(holds)
    .filter(([, until]) => until > now)
    .map(([provider, until]) => ({ provider, until }))
    .sort((a, b) => a.until - b.until);
}

// ---------------------------------------------------------------------------
// Event log entries

export interface LogEntry {
  seq: number;
  ts: number;
  type: string;
  run: string | null;
  name: string | null;
  text: string;
  token: Token;
}

/** Events too frequent to be worth a line (the rows already show them). */
export const QUIET_EVENTS: ReadonlySet<string> = new Set(['usage']);

function reasonToken(reason: unknown): Token {
  switch (reason) {
    case 'completed':
      return 'event.transition';
    case 'killed':
    case 'canceled':
      return 'event.kill';
    case 'budget':
      return 'event.budget';
    case 'loop':
      return 'event.loop';
    default:
      return 'event.error';
  }
}

export function eventToken(ev: RunEvent): Token {
  const t = ev.type;
  if (t === 'ended' || t === 'stop_requested') return reasonToken(ev.data.reason);
  if (t === 'kill_requested') return 'event.kill';
  if (t === 'blocked' || t.includes('hold')) return 'event.hold';
  if (t.startsWith('loop')) return 'event.loop';
  if (t.includes('budget')) return 'event.budget';
  if (t.startsWith('input_failed') || t === 'config_rejected') return 'event.error';
  if (t.startsWith('input')) return 'event.input';
  if (ev.run === null) return 'event.system';
  return 'event.transition';
}

const s = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** One line of human text for an event's data. */
export function describeEvent(ev: RunEvent): string {
  const d = ev.data;
  switch (ev.type) {
    case 'queued':
      return `${s(d.provider)}/${s(d.workload)}`;
    case 'starting':
      return 'promoted from the queue';
    case 'spawned':
    case 'adopted':
      return `pid ${s(d.pid)}`;
    case 'working':
    case 'idle':
      return [`from ${s(d.from)}`, d.turn !== undefined ? `turn ${s(d.turn)}` : '', d.input_seq !== undefined ? `input #${s(d.input_seq)}` : '']
        .filter(Boolean)
        .join(', ');
    case 'blocked':
      return `${s(d.kind)}${d.retry_after_s ? `, retry after ${s(d.retry_after_s)}s` : ''} (from ${s(d.from)})`;
    case 'ended':
      return `${s(d.reason)}${d.detail ? ` (${s(d.detail)})` : ''}${d.exit_code !== null && d.exit_code !== undefined ? `, exit ${s(d.exit_code)}` : ''}`;
    case 'kill_requested':
      return d.force ? 'kill (force)' : 'kill requested';
    case 'stop_requested':
      return `stopping: ${s(d.reason)}${d.detail ? ` (${s(d.detail)})` : ''}`;
    case 'loop_detected':
      return `by ${s(d.by)}, action ${s(d.action)}`;
    case 'input_sent':
      return `input #${s(d.input_seq)} (${s(d.bytes)} bytes)`;
    case 'usage': {
      const t = d.tokens as { input?: number; output?: number } | undefined;
      return `turn ${s(d.turns)}, ${tokensText((t?.input ?? 0) + (t?.output ?? 0))} tokens, ${costText(Number(d.cost_usd) || 0)}`;
    }
    case 'hold':
      return `${s(d.provider)} on hold until ${typeof d.until === 'number' ? clock(d.until) : s(d.until)}${d.retry_after_s ? ` (retry after ${s(d.retry_after_s)}s)` : ''}`;
    case 'hold_lifted':
      return `${s(d.provider)} hold lifted${d.early ? ' early' : ''}`;
    case 'budget_warning':
      return `${d.scope === 'fleet' ? 'fleet ' : ''}${s(d.meter)} at ${typeof d.fraction === 'number' ? Math.round(d.fraction * 100) : '?'}% (${s(d.used)}/${s(d.limit)})`;
    case 'budget_exceeded':
      return `${d.scope === 'fleet' ? 'fleet ' : ''}${s(d.meter)} exceeded (${s(d.used)}/${s(d.limit)})${d.scope === 'fleet' ? ': nothing new starts' : ''}`;
    case 'budget_reset':
      return `${d.scope === 'fleet' ? 'fleet ' : ''}budget reset`;
    case 'supervisor_started':
      return `pid ${s(d.pid)}, ${s(d.active)} active`;
    default: {
      const parts = Object.entries(d).map(([k, v]) => `${k}=${s(v)}`);
      return parts.join(' ');
    }
  }
}

export function logEntry(ev: RunEvent, name: string | null): LogEntry {
  return { seq: ev.seq, ts: ev.ts, type: clean(ev.type), run: ev.run, name: cleanOrNull(name), text: clean(describeEvent(ev)), token: eventToken(ev) };
}
