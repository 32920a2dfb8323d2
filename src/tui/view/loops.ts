// The loops view's lines (`@`): one row per loop — schedule, paused, the next
// fire counted down, the last result and when, runs in flight against its
// concurrency and overlap. Pure: the rows, the cursor, the time and the width
// in, spans out.

import type { LoopRow, LoopsView } from '../state/loops.js';
import type { Span } from './columns.js';
import { dur, fit } from './format.js';
import type { Token } from '../model/tokens.js';

/** Column widths after the name and schedule, which share what is left. */
const FIXED = { state: 7, next: 10, last: 22, runs: 14 };

function lastText(l: LoopRow['last'], now: number): { text: string; token: Token } {
  if (!l) return { text: 'never ran', token: 'text.muted' };
  const when = l.endedAt !== null ? ` ${dur(now - l.endedAt)} ago` : '';
  const code = l.status === 'failed' && l.exitCode !== null ? ` (${l.exitCode})` : '';
  const token: Token = l.status === 'ok' ? 'reason.ok' : l.status === 'failed' || l.status === 'timeout' ? 'reason.bad' : 'text.primary';
  return { text: `${l.status}${code}${when}`, token };
}

function nextText(r: LoopRow, now: number): string {
  if (r.paused) return '—';
  if (r.nextFireAt === null) return 'done';
  return `in ${dur(r.nextFireAt - now)}`;
}

export function loopsHeader(width: number): Span[] {
  const { nameW, schedW } = widths(width);
  return [
    {
      text: `${fit('LOOP', nameW)} ${fit('SCHEDULE', schedW)} ${fit('STATE', FIXED.state)} ${fit('NEXT', FIXED.next)} ${fit('LAST', FIXED.last)} ${fit('RUNS', FIXED.runs)}`,
      token: 'text.muted',
    },
  ];
}

function widths(width: number): { nameW: number; schedW: number } {
  const rest = Math.max(16, width - (FIXED.state + FIXED.next + FIXED.last + FIXED.runs + 5));
  const nameW = Math.max(6, Math.min(24, Math.floor(rest * 0.4)));
  return { nameW, schedW: Math.max(8, rest - nameW - 1) };
}

export function loopRowSpans(r: LoopRow, now: number, width: number): Span[] {
  const { nameW, schedW } = widths(width);
  const last = lastText(r.last, now);
  const runs = `${r.active}/${r.maxConcurrency} ${r.overlap}${r.pending !== null ? ` +${r.pending}` : ''}`;
  return [
    { text: `${fit(r.name, nameW)} ${fit(r.schedule, schedW)} `, token: 'text.primary' },
    { text: fit(r.paused ? 'paused' : 'on', FIXED.state), token: r.paused ? 'status.blocked' : 'status.working' },
    { text: ` ${fit(nextText(r, now), FIXED.next)} `, token: 'text.primary' },
    { text: fit(last.text, FIXED.last), token: last.token },
    { text: ` ${fit(runs, FIXED.runs)}`, token: r.active > 0 ? 'status.working' : 'text.muted' },
  ];
}

/** The first row to show so that the cursor's row is on screen. */
export function loopsOffset(cursor: number, body: number): number {
  return Math.max(0, cursor - Math.max(1, body) + 1);
}

export function emptyLoopsText(v: LoopsView | null): string {
  return v === null ? '  reading the loops…' : '  no loops (orcr loop create NAME "CRON" -- COMMAND)';
}
