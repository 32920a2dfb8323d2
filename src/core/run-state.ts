// A run's lifecycle: which status changes are legal, and how an exit maps to
// an exit reason. Pure: the server asks, then journals the answer.

import type { ExitReason, Run, RunStatus } from './types.js';
import { SLOT_STATUSES } from './types.js';

const LEGAL: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  queued: ['starting', 'ended'],
  // Back to `queued`: an attempt stopped by a usage limit, continued (core/attempts.ts).
  starting: ['working', 'idle', 'blocked', 'ended', 'queued'],
  working: ['idle', 'blocked', 'ended', 'queued'],
  idle: ['working', 'blocked', 'ended', 'queued'],
  blocked: ['working', 'idle', 'ended', 'queued'],
  ended: [],
};

function canTransition(from: RunStatus, to: RunStatus): boolean {
  return LEGAL[from].includes(to);
}

export function holdsSlot(status: RunStatus): boolean {
  return SLOT_STATUSES.has(status);
}

class IllegalTransition extends Error {
  override readonly name = 'IllegalTransition';
}

/** The run with its new status; throws on an illegal change so a bug never reaches the journal. */
export function transition(run: Run, to: RunStatus, now: number, patch: Partial<Run> = {}): Run {
  if (!canTransition(run.status, to)) {
    throw new IllegalTransition(`run ${run.uuid}: ${run.status} → ${to} is not a legal transition`);
  }
  const next: Run = { ...run, ...patch, status: to, status_at: now };
  if (to === 'starting' && next.started_at === null) next.started_at = now;
  if (to !== 'blocked') next.blocked_kind = null;
  if (to === 'ended') next.ended_at = now;
  return next;
}

export interface ExitFacts {
  /** The process's exit code, or null when it died by a signal or vanished. */
  code: number | null;
  /** The supervisor asked for this run to die (kill verb). */
  killRequested: boolean;
  /** A guardrail stopped it: this reason wins over the exit code. */
  stoppedFor?: { reason: ExitReason; detail?: string | null };
  /** The agent's own verdict on its last turn, when its protocol gives one. */
  lastResultOk?: boolean | null;
  /** Why that verdict failed, as the adapter named it (`login`, `limit`, an error subtype). */
  lastResultDetail?: string | null;
  /** No exit status exists and the process is gone. */
  vanished?: boolean;
}

/** Why a run that left a slot (or the queue) ended. */
export function exitReason(run: Run, facts: ExitFacts): { reason: ExitReason; detail: string | null } {
  if (facts.stoppedFor) return { reason: facts.stoppedFor.reason, detail: facts.stoppedFor.detail ?? null };
  if (facts.killRequested) {
    return { reason: run.status === 'queued' || run.status === 'starting' ? 'canceled' : 'killed', detail: null };
  }
  if (facts.vanished) return { reason: 'lost', detail: 'no exit status and no process' };
  if (run.status === 'starting') {
    return { reason: 'failed', detail: `exited before it started (exit code ${facts.code ?? 'none'})` };
  }
  if (facts.code === 0 && facts.lastResultOk !== false) return { reason: 'completed', detail: null };
  // A named cause (login, limit, the API failing) is the most useful detail a user can get.
  if (
    facts.lastResultDetail === 'login' ||
    facts.lastResultDetail === 'limit' ||
    facts.lastResultDetail === 'loop' ||
    facts.lastResultDetail === 'api_error' ||
    facts.lastResultDetail === 'rate_limited'
  ) {
    return { reason: 'errored', detail: facts.lastResultDetail };
  }
  if (facts.code === 0) return { reason: 'errored', detail: 'error result' };
  return { reason: 'errored', detail: null };
}

/** Exit codes of `wait` and friends, by settle token (the README's exit-code table). */
export function waitExitCode(token: string): number {
  if (token === 'turn_complete' || token === 'completed') return 0;
  if (token === 'blocked') return 4;
  return 5;
}
