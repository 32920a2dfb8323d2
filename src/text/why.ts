// A run's WHY in one phrase — what `ps` says after its status word: the cap
// or hold a queued run waits on, the request a blocked run waits on, the
// agent's own retry — for the fleet view's published faces, which carry it
// as text (a reader on another machine has no supervisor to ask), and what
// counts down in it, which the reader writes again by its own clock.

import type { ClusterRunFace, PublicRun } from '../protocol/views.js';
import { askingText } from './approvals.js';
import { agentRetryText, agentWaitText, waitingText } from './waiting.js';

/** The phrase after the status (`global 3/3`, `approve Bash: npm test`), or null when the status says it all. */
export function whyText(r: PublicRun, now: number = Date.now()): string | null {
  if (r.status === 'ended') return r.exit_detail;
  if (r.status === 'blocked') return askingText(r) ?? agentWaitText(r, now, { short: true });
  if (r.status === 'queued') return r.waiting ? waitingText(r.waiting, now) : null;
  return r.agent_retry ? agentRetryText(r.agent_retry) : null;
}

/**
 * A published face's WHY as of `now`: what counts down in it (a hold, a
 * retry, a limit its agent waits out) written again by this machine's clock
 * and time zone, not left as its machine wrote it when the run last changed;
 * the rest (a request, a cap's count) as written.
 */
export function faceWhy(
  f: Pick<ClusterRunFace, 'status' | 'why' | 'waiting' | 'agent_until' | 'blocked_kind' | 'provider' | 'approvals'>,
  now: number = Date.now(),
): string | null {
  if (f.status === 'queued' && f.waiting) return waitingText(f.waiting, now);
  if (f.status === 'blocked' && f.agent_until && f.approvals.length === 0) {
    const r = { status: f.status, blocked_kind: f.blocked_kind, provider: f.provider, agent_retry: { until: f.agent_until } };
    return agentWaitText(r, now, { short: true }) ?? f.why;
  }
  return f.why;
}
