// What holds Claude Code back within one turn: the CLI's own retries
// (`system`/`api_retry`), its `rate_limit_event`s, and how long a usage limit
// holds. One record per turn; the turn's result reads what it says.

import type { Signal } from '../signals.js';
import { isObject, mentionsLimit, mentionsLogin, num, optNum, statedRetryAfter, str, type JsonObject } from '../util.js';

/** How much later a restated wait may end and still be the same one: its line may be read late. */
const RESTATED_SLACK_MS = 2000;

export interface TurnLimits {
  /** What went wrong in the open turn, for its result's detail. */
  blocked: 'login' | 'limit' | null;
  /** A usage limit, held for as long as its text says ("resets 5pm (Europe/Berlin)"), when it says — or, better, as the turn's own rate_limit_event said. */
  limitBlock(message: string, text: string | undefined): Signal;
  /** `system`/`api_retry`: the CLI retrying by itself. */
  apiRetry(obj: JsonObject): Signal[];
  rateLimitEvent(obj: JsonObject): Signal[];
  /** The turn's result is in: the next turn starts clean. */
  endTurn(): void;
}

export function createTurnLimits(now: () => number): TurnLimits {
  // The exact reset (epoch ms) a blocking rate_limit_event gave in the open turn: the text's is to the minute.
  let rejectedUntil: number | null = null;
  // The limit the CLI said it waits for in the open turn (its attempt, and until when), so a restatement is not a new wait.
  let waiting: { attempt: number | undefined; until: number } | null = null;

  const limits: TurnLimits = {
    blocked: null,
    limitBlock(message, text) {
      const sig: Signal = { kind: 'blocked', blocked: 'limit', message };
      // The event's reset passed already: 0, as a text's would (it has reset).
      const exact = rejectedUntil !== null ? Math.max(0, Math.ceil((rejectedUntil - now()) / 1000)) : undefined;
      const retry = exact ?? statedRetryAfter(text, now());
      if (retry !== undefined) sig.retry_after_s = retry;
      return sig;
    },
    apiRetry(obj) {
      const r = readRetry(obj);
      if (r.cause === null) return [agentRetry(r, r.error ?? (r.status ? `HTTP ${r.status}` : 'API error'))];
      const message = `api retry${r.attempt !== undefined ? ` ${r.attempt}${r.max !== undefined ? `/${r.max}` : ''}` : ''}: ${r.error ?? (r.cause === 'login' ? 'authentication failed' : 'rate limited')}`;
      limits.blocked = r.cause;
      if (r.cause === 'login') return [{ kind: 'blocked', blocked: 'login', message }];
      const until = r.delay !== undefined ? now() + r.delay : null;
      // The same attempt ending no later (give or take how late its line was read): the wait said again, not a new one.
      if (waiting !== null && waiting.attempt === r.attempt && until !== null && until <= waiting.until + RESTATED_SLACK_MS) return [];
      waiting = until !== null ? { attempt: r.attempt, until } : null;
      const sig: Signal = { kind: 'blocked', blocked: 'limit' };
      if (r.delay !== undefined) sig.retry_after_s = r.delay / 1000;
      sig.message = message;
      return [sig, agentRetry(r, r.error ?? 'rate_limit')];
    },
    rateLimitEvent(obj) {
      const { quota, blocked, until } = readRateLimit(obj, now());
      if (until !== null) rejectedUntil = until;
      return blocked ? [quota, blocked] : [quota];
    },
    endTurn() {
      limits.blocked = null;
      rejectedUntil = null;
      waiting = null;
    },
  };
  return limits;
}

interface Retry {
  /** A 429 (or a rate-limit error): a usage limit; a 401/403: a refused credential; else null (overloaded, a 5xx, the network). */
  cause: 'login' | 'limit' | null;
  error: string | undefined;
  status: number;
  attempt: number | undefined;
  max: number | undefined;
  delay: number | undefined;
}

/**
 * The CLI retries by itself; a 429 attempt still means "rate limited right
 * now", with the CLI's own retry delay. A 401/403 attempt means the
 * credential was refused: the CLI retries that too, for minutes. Any other
 * failure (overloaded, a 5xx, the network): the run is working, not stuck.
 */
function readRetry(obj: JsonObject): Retry {
  const error = str(obj.error);
  const status = num(obj.error_status);
  const login = status === 401 || status === 403 || error === 'authentication_failed' || (status !== 429 && mentionsLogin(error));
  const limit = !login && (status === 429 || mentionsLimit(error));
  return {
    cause: login ? 'login' : limit ? 'limit' : null,
    error,
    status,
    attempt: optNum(obj.attempt),
    max: optNum(obj.max_retries),
    delay: optNum(obj.retry_delay_ms),
  };
}

function agentRetry(r: Retry, error: string): Signal {
  const sig: Signal = { kind: 'agent_retry', error };
  if (r.attempt !== undefined) sig.attempt = r.attempt;
  if (r.max !== undefined) sig.max = r.max;
  if (r.delay !== undefined) sig.delay_ms = r.delay;
  return sig;
}

/** A `rate_limit_event`: the account's window, and a block when the limit is hit (with its reset, epoch ms). */
function readRateLimit(obj: JsonObject, now: number): { quota: Signal; blocked: Signal | null; until: number | null } {
  // Mostly informational ("allowed", "allowed_warning"); only a hit limit blocks.
  const info = isObject(obj.rate_limit_info) ? obj.rate_limit_info : obj;
  const status = str(info.status) ?? '';
  const quota: Signal = { kind: 'quota', window: str(info.rateLimitType) ?? 'unknown', status: status || 'unknown' };
  const used = optNum(info.utilization);
  if (used !== undefined && used <= 1.5) quota.utilization = used;
  // Epoch seconds.
  const resetsAt = optNum(info.resetsAt);
  if (resetsAt !== undefined && resetsAt > 0 && Number.isFinite(new Date(resetsAt * 1000).getTime())) quota.resets_at = resetsAt * 1000;
  if (/^allowed/i.test(status) || !/reject|exceed|block|limit|denied/i.test(status)) return { quota, blocked: null, until: null };
  const sig: Signal = { kind: 'blocked', blocked: 'limit', message: `rate limit ${status}` };
  let until: number | null = null;
  if (resetsAt !== undefined && resetsAt > 0) {
    const when = new Date(resetsAt * 1000);
    if (!Number.isNaN(when.getTime())) {
      sig.message += `, resets at ${when.toISOString()}`;
      sig.retry_after_s = Math.max(0, Math.ceil(resetsAt - now / 1000));
      until = resetsAt * 1000;
    }
  }
  return { quota, blocked: sig, until };
}
