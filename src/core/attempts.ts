// A run's attempts: what happens when its agent stops on a usage limit. The
// run does not end: it goes back to the queue in its place, held with its
// provider, and its next attempt resumes the agent's own session with a
// continuation prompt. Pure: the server asks with the exit's verdict, then
// journals the answer. How a protocol resumes a session is the protocol's
// (its record in src/agents): it comes in with the policy, as a function.

import { PLAIN_PROTOCOL, type Attempt, type ExitReason, type Run } from './types.js';

export type { Attempt } from './types.js';

type OnLimit = 'continue' | 'end';

/**
 * The command that carries the agent's session on, from the run's first
 * command (its flags kept), or null when that command cannot (its protocol's
 * record says how: `claude --resume ID …`, `codex exec resume … ID -`). Pure.
 */
export type ResumeArgv = (command: readonly string[], session: string) => string[] | null;

/** What a provider (or the run) says about limits and passing failures. */
export interface ContinuePolicy {
  on_limit: OnLimit;
  /** Continuations at most (the run then ends as the last attempt did). */
  max_continues: number;
  /** The prompt a resumed session gets. */
  prompt: string;
  /** Retries of attempts that failed for a passing reason, at most. Absent: 0. */
  retries?: number;
  /** Exit codes after which an attempt is never retried, whatever its reason (besides ALWAYS_TERMINAL). */
  terminal_exit_codes?: readonly number[];
  /** How the run's protocol resumes a session, or null when it resumes none. */
  resume: ResumeArgv | null;
}

/** The shell's "found but cannot run" and "no such program": no retry makes them pass. */
const ALWAYS_TERMINAL: readonly number[] = [126, 127];

export const DEFAULT_CONTINUE_PROMPT = 'You were stopped by a usage limit, which has now reset. Continue where you left off.';
export const DEFAULT_RETRY_PROMPT = 'Your last attempt was cut off by an error that has passed. Continue where you left off.';
export const DEFAULT_MAX_CONTINUES = 5;
/** The first retry waits about this long; each next one twice as long, up to RETRY_MAX_MS. */
const RETRY_BASE_MS = 2000;
export const RETRY_MAX_MS = 300_000;

export type AfterExit =
  | {
      kind: 'end';
      reason: ExitReason;
      detail: string | null;
      /** Why a limit or a passing failure did not go on, for the journal and `show`. */ note: string | null;
    }
  | { kind: 'continue'; attempt: Attempt; argv: string[] }
  | {
      kind: 'retry';
      attempt: Attempt;
      argv: string[];
      /** Resumes the agent's session (else starts afresh). */ resumes: boolean;
      delay_ms: number;
      why: string;
    };

/**
 * A failure that may pass if tried again, named; null for one that will not
 * (or that is no failure). Passing: the process vanished (`lost`), a turn
 * that went silent past --turn-timeout, an agent that never got going, the
 * agent's own API errors after its own retries gave up (overloaded, 5xx,
 * network). Never: completed, a budget, a loop, killed, canceled, a usage
 * limit (that is a continuation), a rejected login, any other error.
 */
export function passingFailure(verdict: { reason: ExitReason; detail: string | null }): string | null {
  const { reason, detail } = verdict;
  if (reason === 'lost') return 'lost';
  if (reason === 'timeout' && detail === 'stall') return 'turn timeout';
  if (reason === 'failed' && detail !== null && (detail.startsWith('exited before it started') || detail.startsWith('stuck_start'))) return 'never started';
  if (reason === 'errored' && detail === 'api_error') return 'api error';
  if (reason === 'errored' && detail === 'rate_limited') return 'rate limited';
  return null;
}

/** Milliseconds before retry `n` (1 for the first): doubling from RETRY_BASE_MS up to RETRY_MAX_MS, ±20% by `jitter` in [0, 1). */
export function retryDelay(n: number, jitter: number): number {
  const base = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, n - 1));
  return Math.round(base * (0.8 + 0.4 * Math.min(1, Math.max(0, jitter))));
}

/**
 * A usage limit continues the run when its policy says so, it has a session
 * to resume, its command can resume one, and it has continuations left; a
 * passing failure retries it while it has retries left, its exit code is
 * not one listed as terminal and its timeout leaves room for the wait; any
 * other exit ends it as the exit said.
 */
export function afterExit(
  run: Run,
  verdict: { reason: ExitReason; detail: string | null; /** The agent's exit code, when it exited. */ code?: number | null },
  policy: ContinuePolicy | null,
  now: number,
  jitter = 0.5,
): AfterExit {
  const end = (note: string | null): AfterExit => ({ kind: 'end', reason: verdict.reason, detail: verdict.detail, note });
  const done = run.attempts;
  const first = run.first_command ?? run.command;
  const attempt = (kind: 'continue' | 'retry'): Attempt => ({
    n: done.length + 1,
    kind,
    started_at: run.started_at,
    ended_at: now,
    reason: verdict.reason,
    detail: verdict.detail,
    session_id: run.session_id,
    prompt: run.prompt,
  });
  const why = passingFailure(verdict);
  if (why !== null && policy !== null && (policy.retries ?? 0) > 0) {
    const used = done.filter((a) => a.kind === 'retry').length;
    if (used >= policy.retries!) return end(`not retried: ${policy.retries} ${policy.retries === 1 ? 'retry' : 'retries'} already (--retries)`);
    const code = verdict.code ?? null;
    if (code !== null && (ALWAYS_TERMINAL.includes(code) || (policy.terminal_exit_codes ?? []).includes(code))) {
      return end(`not retried: exit code ${code} is terminal${ALWAYS_TERMINAL.includes(code) ? '' : ' (terminal_exit_codes)'}`);
    }
    const resumed = run.session_id && policy.resume ? policy.resume(first, run.session_id) : null;
    // A session its agent will not load yet (opened this minute: Gemini) is waited for, not lost.
    const delay = Math.max(retryDelay(used + 1, jitter), resumed !== null && run.resume_after !== null ? run.resume_after - now : 0);
    const limit = run.limits.timeout_ms;
    if (limit !== null && run.started_at !== null && now + delay - run.started_at >= limit)
      return end("not retried: the run's --timeout would pass before the retry");
    return { kind: 'retry', attempt: attempt('retry'), argv: resumed ?? first, resumes: resumed !== null, delay_ms: delay, why };
  }
  if (verdict.reason !== 'errored' || verdict.detail !== 'limit') return end(null);
  if (policy === null || policy.on_limit === 'end') return end(null);
  const continues = done.filter((a) => a.kind !== 'retry').length;
  if (continues >= policy.max_continues)
    return end(`not continued: ${policy.max_continues} continuation${policy.max_continues === 1 ? '' : 's'} already (max_continues)`);
  if (!run.session_id) return end('not continued: the agent named no session to resume');
  const argv = policy.resume?.(first, run.session_id) ?? null;
  if (argv === null) return end(`not continued: orcr does not know how to resume a ${run.protocol ?? PLAIN_PROTOCOL} session of this command`);
  return { kind: 'continue', attempt: attempt('continue'), argv };
}

/**
 * When a run waiting in the queue between attempts (a continuation held with
 * its provider, a retry's backoff) runs out of its --timeout, which covers
 * the whole run from its first attempt's start; null when it has no timeout
 * or is not waiting between attempts.
 */
export function waitingDeadline(run: Run): number | null {
  if (run.status !== 'queued' || run.limits.timeout_ms === null) return null;
  const first = run.attempts[0]?.started_at ?? null;
  return first === null ? null : first + run.limits.timeout_ms;
}
