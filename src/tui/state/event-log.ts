// The event log's lines: one line of human text and a colour token per
// event, computed once when the event comes in, not per frame. Pure: no I/O.

import type { RunEvent } from '../../core/types.js';
import { clock, costText, tokensText } from '../view/format.js';
import type { Token } from '../view/theme.js';
import { clean } from './runs.js';

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
  return { seq: ev.seq, ts: ev.ts, type: clean(ev.type), run: ev.run, name: name === null ? null : clean(name), text: clean(describeEvent(ev)), token: eventToken(ev) };
}
