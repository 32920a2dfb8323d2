// A run's WHY in one phrase — what `ps` says after its status word: the cap
// or hold a queued run waits on, the request a blocked run waits on, the
// agent's own retry — for the fleet view's published faces, which carry it
// as text (a reader on another machine has no supervisor to ask).

import type { PublicRun } from '../protocol/views.js';
import { askingText } from './approvals.js';
import { agentRetryText, agentWaitText, waitingText } from './waiting.js';

/** The phrase after the status (`global 3/3`, `approve Bash: npm test`), or null when the status says it all. */
export function whyText(r: PublicRun, now: number = Date.now()): string | null {
  if (r.status === 'ended') return r.exit_detail;
  if (r.status === 'blocked') return askingText(r) ?? agentWaitText(r, now, { short: true });
  if (r.status === 'queued') return r.waiting ? waitingText(r.waiting, now) : null;
  return r.agent_retry ? agentRetryText(r.agent_retry) : null;
}
