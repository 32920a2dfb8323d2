// The runs table's columns: which fit in a given width (low-value columns go
// first), how wide each is, and a row as coloured spans. All pure and
// computed outside render, so a row is one <Text> with nested spans.

import { agentRetryText } from '../../text/waiting.js';
import { askingText, denialsMark } from '../../text/approvals.js';
import type { PublicRun } from '../../protocol/views.js';
import type { Token } from '../model/tokens.js';
import type { Attention } from '../state/attention.js';
import { sparkline, type Rate } from './burn.js';
import { bar, dur, elapsedMs, fit, fullestMeter, textWidth, GOOD_REASONS, meterToken, percent, shortId, STATUS_GLYPH, statusToken } from './format.js';
import { costText, tokensText } from '../model/numbers.js';

type ColumnKey =
  'machine' | 'status' | 'reason' | 'name' | 'id' | 'target' | 'queue' | 'turn' | 'elapsed' | 'tokens' | 'cost' | 'burn' | 'budget' | 'loop' | 'changes';

interface ColumnDef {
  key: ColumnKey;
  header: string;
  width: number;
  /** Flexible columns grow up to max and shrink down to width. */
  max?: number;
  /** Higher stays longer when the terminal is narrow. */
  priority: number;
  align: 'left' | 'right';
  /** The width a flexible column would like before spare room is shared out (else COMFORT's). */
  comfort?: number;
}

export interface Column {
  key: ColumnKey;
  header: string;
  width: number;
  align: 'left' | 'right';
}

const DEFS: readonly ColumnDef[] = [
  // In cluster scope: the machine a run is on (`b (stale)` while it does not answer), first, as `ps --cluster` has it.
  { key: 'machine', header: 'MACHINE', width: 7, max: 16, priority: 95, align: 'left' },
  { key: 'status', header: 'STATUS', width: 10, priority: 100, align: 'left' },
  { key: 'reason', header: 'WHY', width: 9, priority: 90, align: 'left' },
  { key: 'name', header: 'NAME', width: 16, max: 32, priority: 100, align: 'left' },
  { key: 'id', header: 'ID', width: 8, priority: 30, align: 'left' },
  { key: 'target', header: 'PROVIDER/WORKLOAD', width: 12, max: 24, priority: 60, align: 'left' },
  { key: 'queue', header: 'QUEUE', width: 10, priority: 70, align: 'left' },
  { key: 'turn', header: 'TURN', width: 4, priority: 45, align: 'right' },
  { key: 'elapsed', header: 'ELAPSED', width: 7, priority: 80, align: 'right' },
  { key: 'tokens', header: 'TOKENS', width: 6, priority: 50, align: 'right' },
  { key: 'cost', header: 'COST', width: 7, priority: 40, align: 'right' },
  // The last minutes as a sparkline, and the rate over the last five: $/h, or tokens a minute while there is no cost.
  { key: 'burn', header: 'BURN', width: 14, priority: 38, align: 'left' },
  { key: 'budget', header: 'BUDGET', width: 10, priority: 55, align: 'left' },
  { key: 'loop', header: '⟳', width: 1, priority: 75, align: 'left' },
  // A worktree run's +/− lines against its base: after the turn count, before the tokens when room is short.
  { key: 'changes', header: 'CHANGES', width: 9, priority: 48, align: 'right' },
];

/** Columns before the first cell: the selection marker and a space. */
const MARKER_WIDTH = 2;
const GAP = 1;

/** Widths a flexible column would like before spare room is shared out. */
const COMFORT: Partial<Record<ColumnKey, number>> = { name: 20, target: 17 };
const comfortOf = (d: ColumnDef): number | undefined => d.comfort ?? COMFORT[d.key];

/**
 * With queued runs, WHY says what holds each one back (`provider claude 3/3`,
 * `global 6/8 (2 reserved)`): it needs room for that, more than for an exit
 * reason, and is worth more than the provider/workload column.
 */
const WAITING_REASON: ColumnDef = { key: 'reason', header: 'WHY', width: 19, max: 23, priority: 90, align: 'left' };
/**
 * With runs that need you, WHY says why ("errored (exit 1)", "blocked:
 * question", "limit, held 4d23h"): it grows towards that when there is room,
 * and shrinks to a short form ("errored") when there is not.
 */
const NEEDY_REASON: ColumnDef = { key: 'reason', header: 'WHY', width: 9, max: 19, comfort: 17, priority: 90, align: 'left' };
/** Columns worth less than this go first, to keep names readable. */
const OPTIONAL_BELOW = 50;
/** With runs that need you, TOKENS and BUDGET are optional too: why a run needs you is worth more. */
const NEEDY_OPTIONAL_BELOW = 60;

/** MACHINE as wide as its longest entry (`machines`: its width in columns, the word stale included) wants, within bounds. */
function machineDef(machines: number): ColumnDef {
  const w = Math.max(7, Math.min(16, machines));
  return { key: 'machine', header: 'MACHINE', width: Math.min(w, 9), max: w, comfort: w, priority: 95, align: 'left' };
}

/** Where a row's run is, in cluster scope: its machine, and whether that machine has stopped answering. */
export interface MachinePlace {
  host: string;
  stale: boolean;
}

/** The MACHINE column's words for a row: the host, and `stale` (words, not only a dim row: NO_COLOR shows it too). */
const machineText = (m: MachinePlace): string => (m.stale ? `${m.host} (stale)` : m.host);

/** The columns that fit in `width`, with flexible columns sharing what is left; `waiting`: some runs are queued; `worktrees`: some have a worktree (CHANGES is shown only then); `needy`: some need you. */
export function layoutColumns(width: number, waiting = false, worktrees = false, needy = false, machines = 0): Column[] {
  const reason = waiting ? WAITING_REASON : needy ? NEEDY_REASON : null;
  // QUEUE says where a queued run is: with none queued it would be an empty column.
  let defs = DEFS.filter((d) => (worktrees || d.key !== 'changes') && (waiting || d.key !== 'queue') && (machines > 0 || d.key !== 'machine')).map((d) =>
    reason && d.key === 'reason' ? reason : d.key === 'machine' ? machineDef(machines) : d,
  );
  const need = (ds: readonly ColumnDef[], comfy: boolean): number =>
    MARKER_WIDTH + ds.reduce((n, d) => n + (comfy ? Math.max(d.width, comfortOf(d) ?? 0) : d.width), 0) + GAP * (ds.length - 1);
  const dropLowest = (below: number): boolean => {
    const droppable = defs.filter((d) => d.priority < below);
    if (droppable.length === 0) return false;
    const lowest = droppable.reduce((a, b) => (b.priority < a.priority ? b : a));
    defs = defs.filter((d) => d !== lowest);
    return true;
  };
  // First the optional columns make way for comfortable names (and, with runs
  // that need you, for WHY to say why: the meters go too), then anything but
  // status and name goes if it must.
  while (need(defs, true) > width && dropLowest(needy && !waiting ? NEEDY_OPTIONAL_BELOW : OPTIONAL_BELOW));
  while (need(defs, false) > width && dropLowest(100));
  const widths = new Map(defs.map((d) => [d.key, d.width]));
  let spare = Math.max(0, width - need(defs, false));
  // Share spare columns among the flexible ones: first each up to its
  // comfortable width, the most needed first (a name, then why a run needs
  // you); then one at a time up to each one's max.
  const flex = defs.filter((d) => d.max !== undefined);
  for (const d of [...flex].sort((a, b) => b.priority - a.priority)) {
    const add = Math.min(spare, Math.max(0, Math.min(d.max!, comfortOf(d) ?? d.max!) - widths.get(d.key)!));
    widths.set(d.key, widths.get(d.key)! + add);
    spare -= add;
  }
  for (const cap of [(d: ColumnDef) => d.max!]) {
    while (spare > 0 && flex.some((d) => widths.get(d.key)! < cap(d))) {
      for (const d of flex) {
        if (spare === 0) break;
        if (widths.get(d.key)! < cap(d)) {
          widths.set(d.key, widths.get(d.key)! + 1);
          spare--;
        }
      }
    }
  }
  return defs.map((d) => ({ key: d.key, header: d.header, width: widths.get(d.key)!, align: d.align }));
}

export interface Span {
  text: string;
  token: Token;
  /** Drawn reversed (a selection inside a line). */
  inverse?: boolean;
}

export function headerSpans(cols: readonly Column[]): Span[] {
  const text = ' '.repeat(MARKER_WIDTH) + cols.map((c) => fit(c.header, c.width, c.align)).join(' ');
  return [{ text, token: 'text.muted' }];
}

/** A queued run's reason, worked out by the caller (it needs stats): see why.ts. */
export type Why = { text: string; token: Token } | null;

function cell(r: PublicRun, c: Column, now: number, queuePos: number | undefined, why: Why): Span[] {
  const w = c.width;
  const one = (text: string, token: Token): Span[] => [{ text: fit(text, w, c.align), token }];
  switch (c.key) {
    case 'machine':
      return one('', 'text.muted');
    case 'status':
      return one(`${STATUS_GLYPH[r.status] ?? '?'} ${r.status}`, statusToken(r.status));
    case 'reason':
      if (r.status === 'ended') return endedReason(r, c);
      // On its agent's requests: what it asks (`approve Bash: npm test`), not only that it waits.
      if (r.status === 'blocked') return one(askingText(r) ?? r.blocked_kind ?? 'unknown', 'status.blocked');
      if (why) return one(why.text, why.token);
      // Quiet but not stuck: the agent CLI is retrying the API by itself.
      if (r.agent_retry) return one(agentRetryText(r.agent_retry), 'event.hold');
      if (r.status === 'queued' && r.held_until && Date.parse(r.held_until) > now) return one('held', 'event.hold');
      // Tools its agent CLI refused by itself, nobody asked.
      const denied = denialsMark(r);
      return denied ? one(denied, 'reason.bad') : one('', 'text.muted');
    case 'name':
      // ⇠N: it waits (or waited) for N runs (`run --after`); its details name them. Marked in the flat list and the tree alike.
      return one((r.after ?? []).length > 0 ? `${r.name} ⇠${r.after.length}` : r.name, 'text.primary');
    case 'id':
      return one(shortId(r.uuid), 'text.muted');
    case 'target':
      return one(`${r.provider}/${r.workload}`, 'text.primary');
    case 'queue': {
      if (r.status !== 'queued') return one('', 'text.muted');
      const pos = queuePos ?? r.queue_position;
      const wait = dur(now - Date.parse(r.created_at));
      // A dependent waiting for its inputs has no place in any line yet.
      const place = pos !== null && pos !== undefined ? `#${pos}` : r.waiting?.reason === 'after' ? '-' : '#?';
      return one(`${place} ${wait}`, 'status.queued');
    }
    case 'turn':
      return one(r.status === 'queued' ? '' : String(r.turns), 'text.primary');
    case 'elapsed':
      return one(r.status === 'queued' ? '' : dur(elapsedMs(r, now)), 'text.primary');
    case 'tokens': {
      const n = r.tokens.input + r.tokens.output;
      return one(n ? tokensText(n) : '', 'text.primary');
    }
    case 'cost':
      return one(r.cost_usd ? costText(r.cost_usd) : '', 'text.primary');
    case 'budget': {
      const m = fullestMeter(r, now);
      if (!m) return one('', 'text.muted');
      const pct = percent(m.fraction);
      const barWidth = Math.max(1, w - 5);
      const [filled, empty] = bar(m.fraction, barWidth);
      return [
        { text: filled, token: meterToken(m.fraction) },
        { text: empty, token: 'meter.empty' },
        { text: fit(pct, w - barWidth, 'right'), token: meterToken(m.fraction) },
      ];
    }
    case 'burn':
      return one('', 'text.muted');
    case 'changes':
      return changesCell(r, c);
    case 'loop':
      if (r.loop.detected && !r.loop.warned) return one('⟳', 'reason.bad');
      if (r.loop.warned || r.loop.detected) return one('⟳', 'meter.warn');
      return one('', 'text.muted');
  }
}

/**
 * Why a run needs you, with a hold's countdown as of now: "limit, held 4d23h".
 * In fewer than `width` columns, its short form ("held 4d23h", "errored"),
 * then without the time: the detail goes before a word is cut.
 */
export function needText(need: Attention, now: number, width = Infinity): string {
  const time = need.until !== undefined ? ` ${dur(Math.max(0, need.until - now))}` : need.since !== undefined ? ` ${dur(Math.max(0, now - need.since))}` : '';
  const forms = [need.reason + time, ...(need.short ? [need.short + time, need.short] : [need.reason])];
  return forms.find((f) => textWidth(f) <= width) ?? forms[forms.length - 1]!;
}

/** `$1.20/h`, or `12k/m` (tokens a minute) while nothing is priced. */
export function rateText(r: Rate): string {
  if (r.costPerHour > 0) return `$${r.costPerHour < 10 ? r.costPerHour.toFixed(2) : Math.round(r.costPerHour)}/h`;
  return r.tokensPerMin > 0 ? `${tokensText(Math.round(r.tokensPerMin))}/m` : '';
}

/** A row as spans, the marker included (`!` on a run that needs you, whose WHY says why); the caller colours each span by its token. */
/** Where a row sits in the run tree: indented under its parent; `folded` for a run with children (how many are hidden). */
export interface TreePlace {
  depth: number;
  folded?: number;
}

export function rowSpans(
  r: PublicRun,
  cols: readonly Column[],
  now: number,
  queuePos: number | undefined,
  selected: boolean,
  why: Why = null,
  need: Attention | null = null,
  tagged = false,
  burn: Rate | null = null,
  tree: TreePlace | null = null,
  machine: MachinePlace | null = null,
): Span[] {
  // The cursor (›) where it is; elsewhere a tagged run (+), or one that needs you (!): its WHY says why either way.
  const out: Span[] = [selected ? { text: '› ', token: 'focus' } : tagged ? { text: '+ ', token: 'focus' } : { text: need ? '! ' : '  ', token: 'reason.bad' }];
  const whyWidth = cols.find((c) => c.key === 'reason')?.width;
  const reason: Why = need
    ? { text: needText(need, now, whyWidth), token: r.status === 'blocked' ? 'status.blocked' : r.status === 'idle' ? 'status.idle' : 'reason.bad' }
    : why;
  cols.forEach((c, i) => {
    if (i > 0) out.push({ text: ' ', token: 'text.primary' });
    if (c.key === 'machine')
      out.push({ text: fit(machine ? machineText(machine) : '', c.width, c.align), token: machine?.stale ? 'meter.warn' : 'text.muted' });
    else if (need && c.key === 'reason') out.push(...cellReason(reason!, c));
    else if (c.key === 'burn') out.push(...burnCell(burn, c));
    else if (tree && c.key === 'name') out.push(...treeName(r, tree, c));
    else if (c.key === 'cost' && r.children.length > 0 && r.rollup.cost_usd > r.cost_usd)
      out.push({ text: fit(`Σ${costText(r.rollup.cost_usd)}`, c.width, c.align), token: 'text.primary' });
    else out.push(...cell(r, c, now, queuePos, why));
  });
  return out;
}

/** `  ▾ name` under its parent; `▸ name +3` with its 3 descendants folded away. */
function treeName(r: PublicRun, tree: TreePlace, c: Column): Span[] {
  const fold = tree.folded === undefined ? '' : tree.folded > 0 ? '▸ ' : '▾ ';
  const more = tree.folded ? ` +${tree.folded}` : '';
  return [{ text: fit(`${'  '.repeat(tree.depth)}${fold}${r.name}${more}`, c.width, c.align), token: 'text.primary' }];
}

function burnCell(burn: Rate | null, c: Column): Span[] {
  if (!burn || (burn.tokensPerMin <= 0 && burn.costPerHour <= 0)) return [{ text: ' '.repeat(c.width), token: 'text.muted' }];
  const spark = sparkline(burn.spark.slice(-6));
  return [
    { text: spark, token: 'meter.ok' },
    { text: fit(` ${rateText(burn)}`, c.width - spark.length, 'left'), token: 'text.primary' },
  ];
}

/** `+12 −3`, the added count green and the removed red, right-aligned. */
function changesCell(r: PublicRun, c: Column): Span[] {
  if (!r.worktree) return [{ text: ' '.repeat(c.width), token: 'text.muted' }];
  const plus = `+${r.worktree.added}`;
  const minus = `−${r.worktree.removed}`;
  const text = fit(`${plus} ${minus}`, c.width, 'right');
  // fit may cut a huge count: colour by where the parts landed.
  const at = text.length - minus.length - 1;
  if (at < 0 || text.slice(at + 1) !== minus) return [{ text, token: 'text.primary' }];
  return [
    { text: text.slice(0, at), token: 'reason.ok' },
    { text: ' ', token: 'text.muted' },
    { text: minus, token: 'reason.bad' },
  ];
}

/** An ended run's exit reason, and `⊘2` after it when its agent CLI refused some of its tool calls and the column has room. */
function endedReason(r: PublicRun, c: Column): Span[] {
  const reason = r.exit_reason ?? '';
  const token: Token = GOOD_REASONS.has(reason) ? 'reason.ok' : 'reason.bad';
  const mark = r.denials > 0 ? ` ⊘${r.denials}` : '';
  if (!mark || textWidth(reason + mark) > c.width) return [{ text: fit(reason, c.width, c.align), token }];
  return [
    { text: reason, token },
    { text: fit(mark, c.width - textWidth(reason), c.align), token: 'meter.warn' },
  ];
}

function cellReason(why: NonNullable<Why>, c: Column): Span[] {
  return [{ text: fit(why.text, c.width, c.align), token: why.token }];
}
