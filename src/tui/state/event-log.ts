// The event log's lines: one line of human text and a colour token per
// event, computed once when the event comes in, not per frame. Pure: no I/O.

import type { RunEvent } from '../../core/events.js';
import { clock, costText, tokensText } from '../model/numbers.js';
import type { Token } from '../model/tokens.js';
import { clean } from './safe-text.js';
import { agentRetryText } from '../../text/waiting.js';
import { deciderText } from '../../core/approvals.js';

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

function eventToken(ev: RunEvent): Token {
  const t = ev.type;
  if (t === 'ended' || t === 'stop_requested') return reasonToken(ev.data.reason);
  if (t === 'kill_requested') return 'event.kill';
  // A request for a person stands out as a block does; a CLI's own refusal as an error.
  if (t === 'approval_asked') return 'event.hold';
  if (t === 'denied' || t === 'protocol_error') return 'event.error';
  if (t === 'approval_decided') return 'event.input';
  if (t === 'blocked' || t === 'continued' || t === 'retrying' || t === 'agent_retry' || t.includes('hold')) return 'event.hold';
  if (t.startsWith('loop')) return 'event.loop';
  if (t.includes('budget')) return 'event.budget';
  if (t.startsWith('input_failed') || t === 'config_rejected' || t === 'resource_limit') return 'event.error';
  if (t.startsWith('input')) return 'event.input';
  if (ev.run === null) return 'event.system';
  return 'event.transition';
}

const s = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** One line of human text for an event's data. */
export function describeEvent(ev: RunEvent): string {
  switch (ev.type) {
    case 'queued':
      return `${s(ev.data.provider)}/${s(ev.data.workload)}`;
    case 'starting':
      return 'promoted from the queue';
    case 'spawned':
    case 'adopted':
      return `pid ${s(ev.data.pid)}`;
    case 'working':
    case 'idle': {
      const d: { from: string; turn?: number; input_seq?: number } = ev.data;
      return [`from ${s(d.from)}`, d.turn !== undefined ? `turn ${s(d.turn)}` : '', d.input_seq !== undefined ? `input #${s(d.input_seq)}` : '']
        .filter(Boolean)
        .join(', ');
    }
    case 'blocked':
      return `${s(ev.data.kind)}${ev.data.retry_after_s ? `, retry after ${s(ev.data.retry_after_s)}s` : ''} (from ${s(ev.data.from)})`;
    case 'ended':
      return `${s(ev.data.reason)}${ev.data.detail ? ` (${s(ev.data.detail)})` : ''}${ev.data.exit_code !== null && ev.data.exit_code !== undefined ? `, exit ${s(ev.data.exit_code)}` : ''}${ev.data.note ? ` — ${s(ev.data.note)}` : ''}`;
    case 'agent_retry':
      return `${agentRetryText({ attempt: typeof ev.data.attempt === 'number' ? ev.data.attempt : null, max: typeof ev.data.max === 'number' ? ev.data.max : null, error: s(ev.data.error) })}${ev.data.delay_ms ? ` in ${Math.round(Number(ev.data.delay_ms) / 100) / 10}s` : ''}`;
    case 'retrying':
      return `${s(ev.data.why)} (${s(ev.data.reason)}${ev.data.detail ? `: ${s(ev.data.detail)}` : ''}): attempt ${s(ev.data.attempt)} of ${s(ev.data.of)} in ${Math.round(Number(ev.data.delay_ms) / 100) / 10}s${ev.data.resumes ? ', resuming its session' : ', afresh'}`;
    case 'after_dropped':
      return `no longer waits for ${s(ev.data.name)} (killed, dependents kept)${Array.isArray(ev.data.left) && ev.data.left.length > 0 ? `; ${ev.data.left.length} left` : ''}`;
    case 'continued':
      return `stopped by a usage limit (from ${s(ev.data.from)}): queued to continue its session as attempt ${s(ev.data.attempt)}`;
    case 'kill_requested':
      return ev.data.force ? 'kill (force)' : 'kill requested';
    case 'stop_requested':
      return `stopping: ${s(ev.data.reason)}${ev.data.detail ? ` (${s(ev.data.detail)})` : ''}`;
    case 'loop_detected':
      return `by ${s(ev.data.by)}, action ${s(ev.data.action)}`;
    case 'input_sent':
      return `input #${s(ev.data.input_seq)} (${s(ev.data.bytes)} bytes)`;
    case 'usage': {
      const t = ev.data.tokens as { input?: number; output?: number } | undefined;
      return `turn ${s(ev.data.turns)}, ${tokensText((t?.input ?? 0) + (t?.output ?? 0))} tokens, ${costText(Number(ev.data.cost_usd) || 0)}`;
    }
    case 'hold':
      return `${s(ev.data.provider)} on hold until ${typeof ev.data.until === 'number' ? clock(ev.data.until) : s(ev.data.until)}${ev.data.retry_after_s ? ` (retry after ${s(ev.data.retry_after_s)}s)` : ''}`;
    case 'hold_lifted':
      return `${s(ev.data.provider)} hold lifted${ev.data.early ? ' early' : ''}`;
    case 'budget_warning':
      return `${ev.data.scope === 'fleet' ? 'fleet ' : ''}${s(ev.data.meter)} at ${typeof ev.data.fraction === 'number' ? Math.round(ev.data.fraction * 100) : '?'}% (${s(ev.data.used)}/${s(ev.data.limit)})`;
    case 'budget_exceeded':
      return `${ev.data.scope === 'fleet' ? 'fleet ' : ''}${s(ev.data.meter)} exceeded (${s(ev.data.used)}/${s(ev.data.limit)})${ev.data.scope === 'fleet' ? ': nothing new starts' : ''}`;
    case 'budget_reset':
      return `${ev.data.scope === 'fleet' ? 'fleet ' : ''}budget reset`;
    case 'resource_limit':
      return s(ev.data.message);
    case 'approval_asked':
      return `#${s(ev.data.id)} asks: ${s(ev.data.summary)}${ev.data.deadline_at === null ? '' : ` (decided by its deadline at ${clock(ev.data.deadline_at)})`}`;
    case 'approval_decided':
      return `#${s(ev.data.id)} ${ev.data.verdict === 'allow' ? 'allowed' : 'denied'} by ${deciderText(ev.data.by)}: ${s(ev.data.summary)}`;
    case 'approval_withdrawn':
      return `#${s(ev.data.id)} withdrawn (${ev.data.why === 'agent' ? 'the agent no longer waits' : ev.data.why === 'ended' ? 'the run ended' : 'the run went back to the queue'})`;
    case 'denied':
      return `${s(ev.data.tool)} refused by the agent CLI's own settings (${s(ev.data.count)} so far): ${s(ev.data.message)}`;
    case 'protocol_error':
      return `protocol error${ev.data.fatal ? ' (the run cannot go on)' : ''}: ${s(ev.data.message)}`;
    case 'supervisor_started':
      return `pid ${s(ev.data.pid)}, ${s(ev.data.active)} active`;
    default: {
      const parts = Object.entries(ev.data).map(([k, v]) => `${k}=${s(v)}`);
      return parts.join(' ');
    }
  }
}

export function logEntry(ev: RunEvent, name: string | null): LogEntry {
  return {
    seq: ev.seq,
    ts: ev.ts,
    type: clean(ev.type),
    run: ev.run,
    name: name === null ? null : clean(name),
    text: clean(describeEvent(ev)),
    token: eventToken(ev),
  };
}
