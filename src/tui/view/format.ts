// Small pure formatters shared by the panes. Widths are in terminal columns,
// as a terminal draws them: a CJK character or an emoji takes two, so names
// in any script line up. Pure: no store, no I/O.

import { formatDuration } from '../../config/duration.js';
import { displayWidth, truncateDisplay } from '../../text/display-width.js';
import { meterDecl, type MeterUnit } from '../../core/budget.js';
import { RUN_STATUSES } from '../../core/types.js';
import type { PublicRun } from '../../protocol/views.js';
import type { Token } from '../model/tokens.js';
import { tokensText } from '../model/numbers.js';
import type { SortSpec } from '../state/sort.js';

export const dur = (ms: number): string => formatDuration(Math.max(0, ms));

export function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

export const shortId = (uuid: string): string => uuid.slice(0, 8);

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

// string-width takes a slow path (grapheme segmentation, Unicode regexps)
// for any non-ASCII text, and rows carry glyphs (status, bars) re-measured
// every frame: measured texts are kept, a bounded few.
const WIDTH_CACHE_LIMIT = 4096;
const widths = new Map<string, number>();

/** Columns the text takes on a terminal. */
export function textWidth(s: string): number {
  if (PRINTABLE_ASCII.test(s)) return s.length;
  let w = widths.get(s);
  if (w === undefined) {
    if (widths.size >= WIDTH_CACHE_LIMIT) widths.clear();
    w = displayWidth(s);
    widths.set(s, w);
  }
  return w;
}

/** The longest start of the text that takes at most `cols` columns (a wide character is never split). */
export function sliceColumns(s: string, cols: number): string {
  if (cols <= 0) return '';
  if (PRINTABLE_ASCII.test(s)) return s.slice(0, cols);
  if (textWidth(s) <= cols) return s;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes(s)) {
    const w = textWidth(segment);
    if (used + w > cols) break;
    out += segment;
    used += w;
  }
  return out;
}

let segmenter: Intl.Segmenter | null = null;
function graphemes(s: string): Iterable<{ segment: string }> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(s);
}

/** Cut to `width` columns, marking a cut with an ellipsis. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (PRINTABLE_ASCII.test(s)) {
    if (s.length <= width) return s;
    return width === 1 ? '…' : s.slice(0, width - 1) + '…';
  }
  return textWidth(s) <= width ? s : truncateDisplay(s, width);
}

/**
 * A pane title's two texts in `width` columns (drawn as "─ title ─…─ right ─"):
 * the title keeps its room first; the right-hand text is cut, or left out when
 * too little of it would show; whatever is cut ends with an ellipsis.
 */
export function titleFit(title: string, right: string, width: number): { title: string; right: string } {
  const left = textWidth(title) + 3;
  const rightW = right ? textWidth(right) + 3 : 0;
  if (left + rightW + 1 <= width) return { title, right };
  if (left + 1 > width) return { title: truncate(title, Math.max(1, width - 4)), right: '' };
  const room = width - left - 1 - 3;
  if (room < 8) return { title, right: '' };
  // The right-hand text is a list ("8 active · 23 queued · 4 of 9 lines"): its last parts go whole first.
  const parts = right.split(' · ');
  while (parts.length > 1 && textWidth(parts.join(' · ') + ' …') > room) parts.pop();
  const kept = parts.join(' · ');
  return { title, right: kept === right ? right : textWidth(kept + ' …') <= room ? kept + ' …' : truncate(kept, room) };
}

/** Exactly `width` columns: truncated or padded. */
export function fit(s: string, width: number, align: 'left' | 'right' = 'left'): string {
  const t = truncate(s, width);
  const pad = width - textWidth(t);
  if (pad <= 0) return t;
  return align === 'left' ? t + ' '.repeat(pad) : ' '.repeat(pad) + t;
}

export function meterToken(fraction: number): Token {
  if (fraction >= 1) return 'meter.full';
  if (fraction >= 0.8) return 'meter.warn';
  return 'meter.ok';
}

/** A bar of `width` cells: [filled, empty] so each part can take its own colour. */
export function bar(fraction: number, width: number): [string, string] {
  const f = Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : 1;
  let filled = Math.round(f * width);
  if (f > 0 && filled === 0) filled = 1;
  return ['█'.repeat(filled), '░'.repeat(Math.max(0, width - filled))];
}

export function percent(fraction: number): string {
  if (!Number.isFinite(fraction)) return '∞%';
  return `${Math.round(fraction * 100)}%`;
}

/** Every status a run can have, in the order the header counts them. */
export const STATUSES = RUN_STATUSES;

export const STATUS_GLYPH: Readonly<Record<string, string>> = {
  queued: '○',
  starting: '◐',
  working: '●',
  idle: '◇',
  blocked: '▲',
  ended: '■',
};

export function statusToken(status: string): Token {
  switch (status) {
    case 'queued':
    case 'starting':
    case 'working':
    case 'idle':
    case 'blocked':
    case 'ended':
      return `status.${status}`;
    default:
      return 'text.primary';
  }
}

export const GOOD_REASONS: ReadonlySet<string> = new Set(['completed']);

export const parseTime = (iso: string | null): number | null => (iso === null ? null : Date.parse(iso));

/** Time the run has been going (or went): from start to end/now; queued runs count from enqueue. */
export function elapsedMs(r: PublicRun, now: number): number {
  const start = parseTime(r.started_at) ?? parseTime(r.created_at) ?? now;
  const end = parseTime(r.ended_at) ?? now;
  return Math.max(0, end - start);
}

/**
 * The run's fullest ceiling, as a fraction. Time is recomputed against `now`
 * so a timeout meter moves between events.
 */
export function fullestMeter(r: PublicRun, now: number): { name: string; fraction: number } | null {
  let best: { name: string; fraction: number } | null = null;
  for (const [name, m] of Object.entries(r.budget)) {
    if (m.limit === null) continue;
    let fraction = m.fraction ?? 0;
    if (name === 'time_ms' && r.status !== 'ended' && r.started_at !== null) {
      const used = now - Date.parse(r.started_at);
      fraction = m.limit === 0 ? (used > 0 ? Infinity : 0) : used / m.limit;
    }
    if (best === null || fraction > best.fraction) best = { name, fraction };
  }
  return best;
}

const METER_WRITERS: Readonly<Record<MeterUnit, (v: number) => string>> = {
  count: (v) => String(v),
  tokens: tokensText,
  usd: (v) => `$${v.toFixed(2)}`,
  duration: dur,
};

/** "turns 3/4", "tokens 12k/20k", "cost $0.12/$1.00", "time 1m02s/10m00s": each amount as its meter's unit (core/budget.ts) writes it. */
export function meterText(name: string, used: number, limit: number | null): string {
  // A meter this build does not know (a newer supervisor's) is written as a count.
  const show = METER_WRITERS[meterDecl(name)?.unit ?? 'count'];
  return limit === null ? `${show(used)} (no ceiling)` : `${show(used)}/${show(limit)}`;
}

/** A meter's name for people (core/budget.ts), or its own name for one this build does not know. */
export function meterLabel(name: string): string {
  return meterDecl(name)?.label ?? name;
}

/** Holds still in force at `now`, soonest lifting first. */
export function activeHolds(holds: Readonly<Record<string, number>>, now: number): { provider: string; until: number }[] {
  return Object.entries(holds)
    .filter(([, until]) => until > now)
    .map(([provider, until]) => ({ provider, until }))
    .sort((a, b) => a.until - b.until);
}

/** How the runs are ordered, in words: "cost, largest first", "name, Z→A", "status, reversed". */
export function sortWords(sort: SortSpec): string {
  return sort.group ? `${orderWords(sort)}, grouped by ${sort.group}` : orderWords(sort);
}

function orderWords(sort: SortSpec): string {
  switch (sort.key) {
    case 'status':
      return sort.reverse ? 'status, reversed' : 'status';
    case 'name':
      return sort.reverse ? 'name, Z→A' : 'name, A→Z';
    case 'elapsed':
      return sort.reverse ? 'elapsed, shortest first' : 'elapsed, longest first';
    default:
      return `${sort.key}, ${sort.reverse ? 'smallest' : 'largest'} first`;
  }
}
