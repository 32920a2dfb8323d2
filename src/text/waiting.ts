// What holds a queued run back, as one short phrase for `ps`, `show` and the
// TUI's WHY column. Pure: the supervisor says which cap (PublicRun.waiting);
// each surface renders it with its own clock, so a hold counts down.

import { formatDuration } from '../config/duration.js';
import type { Waiting } from '../core/waiting.js';
import { localClock } from './clock.js';

export type { Waiting } from '../core/waiting.js';

/** The agent's own retry of a failed API call, as `retrying overloaded 3/10`. */
export function agentRetryText(r: { attempt: number | null; max: number | null; error: string }): string {
  const of = r.attempt !== null ? ` ${r.attempt}${r.max !== null ? `/${r.max}` : ''}` : '';
  // The API's error types read as words: overloaded_error is `overloaded`.
  return `retrying ${r.error.replace(/_error$/, '').replace(/_/g, ' ')}${of}`;
}

/**
 * A run blocked on a usage limit that its agent waits out by itself (it said
 * how long: Claude Code's api_retry), as `limit claude · the agent waits
 * until 16:50 (4h12m)` — beside orcr's own `limit claude · resumes 16:50`,
 * so nobody reads orcr as the one who goes on. Short (a table's column,
 * beside the provider's own): `the agent waits until 16:50 (4h12m)`. Null
 * for any other run.
 */
export function agentWaitText(
  r: { status: string; blocked_kind: string | null; provider: string; agent_retry: { until: string | null } | null },
  now: number = Date.now(),
  opts: { short?: boolean } = {},
): string | null {
  if (r.status !== 'blocked' || r.blocked_kind !== 'limit' || !r.agent_retry?.until) return null;
  const until = Date.parse(r.agent_retry.until);
  if (!Number.isFinite(until)) return null;
  const left = until - now;
  const waits = left <= 0 ? 'the agent retries now' : `the agent waits until ${localClock(until, left >= 86_400_000)} (${formatDuration(left)})`;
  return opts.short ? waits : `limit ${r.provider} · ${waits}`;
}

/**
 * `global 8/8`, `provider claude 3/3`, `workload batch 3/3`,
 * `global 6/8 (2 reserved)`, `hold codex 4d23h`, `limit claude · resumes 16:50 (4h12m)`, `fleet budget`, …
 */
export function waitingText(w: Waiting, now: number = Date.now(), opts: { short?: boolean } = {}): string {
  const ratio = `${w.active ?? '?'}/${w.limit ?? '?'}`;
  switch (w.reason) {
    case 'global':
      return `global ${ratio}`;
    case 'reserved':
      return `global ${ratio} (${w.reserved ?? '?'} reserved)`;
    case 'provider':
      return `provider ${w.name} ${ratio}`;
    case 'workload':
      return `workload ${w.name} ${ratio}`;
    case 'hold': {
      const left = w.until === null ? null : Date.parse(w.until) - now;
      // One account of the provider (pause_at): `hold claude (.claude-work) 2h`.
      const account = w.account === undefined ? '' : ` (${w.account ?? 'default login'})`;
      if (w.resumes) {
        // A run the limit stopped: when it picks its work up again, by the clock (the date a day or more away) and from now.
        const resumes =
          left === null || left <= 0 ? 'resumes now' : `resumes ${localClock(Date.parse(w.until!), left >= 86_400_000)} (${formatDuration(left)})`;
        // Short (a table's column, beside the provider's own): `resumes 16:50 (4h12m)`.
        return opts.short ? resumes : `limit ${w.name}${account} · ${resumes}`;
      }
      return left === null || left <= 0 ? `hold ${w.name}${account}` : `hold ${w.name}${account} ${formatDuration(left)}`;
    }
    case 'pace': {
      // `resuming claude · next in 4s (1 per 5s)`: its provider's hold lifted, its runs start one at a time.
      const left = w.until === null ? 0 : Date.parse(w.until) - now;
      const every = w.every_ms !== undefined ? ` (1 per ${formatDuration(w.every_ms)})` : '';
      return `resuming ${w.name} · ${left > 0 ? `next in ${formatDuration(left)}` : 'next now'}${every}`;
    }
    case 'after': {
      // `after migrate (working)`, `after 3 runs · 1 left (migrate working)`.
      const left = w.inputs ?? [];
      const first = left[0];
      const total = w.limit ?? left.length;
      if (first === undefined) return `after ${total === 1 ? '1 run' : `${total} runs`} · done`;
      if (total === 1) return `after ${first.name} (${first.status})`;
      return `after ${total} runs · ${left.length} left (${first.name} ${first.status}${left.length > 1 ? ', …' : ''})`;
    }
    case 'retry': {
      const left = w.until === null ? 0 : Date.parse(w.until) - now;
      return `retry ${w.active ?? '?'}/${w.limit ?? '?'} ${left > 0 ? `in ${formatDuration(left)}` : 'now'}${w.why ? ` (${w.why})` : ''}`;
    }
    case 'fleet':
      return 'fleet budget';
    case 'expiring':
      return 'max wait passed';
    case 'next':
      return w.position !== null && w.position > 1 ? `queue #${w.position}` : 'starting next';
    case 'unavailable':
      return 'journal unavailable';
    case 'cluster':
      return 'cluster unavailable';
    case 'paused':
      return 'queue paused';
  }
}
