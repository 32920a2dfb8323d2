// Which runs need a person, and why: blocked on its agent's request (what it
// asks), a login or a question, held on
// a usage limit (the run that hit it; the runs queued behind the hold just wait), errored (or stopped by a budget or a loop), over a budget's
// warning line, looping, stalled (a turn silent past its turn timeout, warned
// only), or an interactive agent idle and waiting for input.
// These lead the runs list, newest first, and `J` walks them. An ended run
// needs you until you have looked at it (its details opened); a live one for
// as long as its state says so. Pure: time is a parameter.

import type { PublicRun } from '../../protocol/views.js';
import { askingText } from '../../text/approvals.js';

/** Ends a person should hear of: not completed, and not by their own hand. */
const BAD_ENDS = new Set(['errored', 'failed', 'timeout', 'budget', 'loop', 'lost', 'expired', 'lease_lost']);

export interface Attention {
  /** In words, for the WHY column: "awaiting input", "blocked: login", "errored (exit 1)", "limit, held", "limit, the agent waits". */
  reason: string;
  /** The same in fewer columns, for a narrow WHY ("errored", "login", "held"): the detail goes before a word is cut. */
  short?: string;
  /** When it began (ms): newest first. */
  at: number;
  /** A hold's end (ms), counted down where it is shown. */
  until?: number;
  /** Since when (ms) it has been so, counted up where it is shown: how long a stalled run has been silent. */
  since?: number;
}

export function attentionOf(r: PublicRun, now: number, seen: Readonly<Record<string, true>>): Attention | null {
  // Most runs need no one: decide that before parsing any time (this runs for every row on every frame).
  const at = (): number => Date.parse(r.status_at) || 0;
  switch (r.status) {
    case 'ended': {
      if (!r.exit_reason || !BAD_ENDS.has(r.exit_reason) || seen[r.uuid]) return null;
      const detail = r.exit_reason === 'errored' && r.exit_code !== null ? ` (exit ${r.exit_code})` : r.exit_reason === 'budget' ? ': over budget' : '';
      return { reason: `${r.exit_reason}${detail}`, ...(detail ? { short: r.exit_reason } : {}), at: at() };
    }
    case 'blocked': {
      if (r.blocked_kind === 'limit') {
        // The agent said it waits the limit out itself: its wait is the one to count down, not orcr's hold.
        const waits = r.agent_retry?.until ? Date.parse(r.agent_retry.until) : NaN;
        if (Number.isFinite(waits) && waits > now) return { reason: 'limit, the agent waits', short: 'agent waits', at: at(), until: waits };
        const until = r.held_until ? Date.parse(r.held_until) : NaN;
        return Number.isFinite(until) && until > now
          ? { reason: 'limit, held', short: 'held', at: at(), until }
          : { reason: 'usage limit', short: 'limit', at: at() };
      }
      // Its agent asks: what it asks is the reason (`approve Bash: npm test`), cut at its end when the column is narrow —
      // the verb and the tool lead, so a cut one still says more than a short word would.
      const asking = askingText(r);
      if (asking) return { reason: asking, at: at() };
      return { reason: `blocked: ${r.blocked_kind ?? 'unknown'}`, short: r.blocked_kind ?? 'blocked', at: at() };
    }
    case 'queued':
      return null;
    default:
      break;
  }
  if (r.stalled_since !== null) {
    const since = Date.parse(r.stalled_since);
    return Number.isFinite(since) ? { reason: 'stalled', at: since, since } : { reason: 'stalled', at: at() };
  }
  if (r.loop.detected) return { reason: 'loop detected', short: 'loop', at: at() };
  for (const name in r.budget) {
    const m = r.budget[name as keyof PublicRun['budget']];
    if (m.warn)
      return {
        reason: `budget ${name === 'cost_usd' ? 'cost' : name} ${Math.round((m.fraction ?? 0) * 100)}%`,
        short: `budget ${Math.round((m.fraction ?? 0) * 100)}%`,
        at: at(),
      };
  }
  if (r.status === 'idle' && r.interactive) return { reason: 'awaiting input', short: 'input?', at: at() };
  return null;
}
