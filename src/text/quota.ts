// A provider's standing in a usage window, as one phrase for `stats` and the
// TUI's header: `claude 5h 91% · resets 16:50`. Pure: the clock is a parameter.

import { localClock } from './clock.js';

const WINDOWS: Readonly<Record<string, string>> = {
  five_hour: '5h',
  seven_day: '7d',
  seven_day_opus: '7d opus',
  seven_day_sonnet: '7d sonnet',
  overage: 'overage',
};

export interface QuotaView {
  provider: string;
  /** The account's folder, when runs of the provider use several; absent or null for the default login. */
  account?: string | null;
  window: string;
  status: string;
  utilization: number | null;
  resets_at: string | null;
}

/** How an account is named in a line: its folder's last part (`/home/me/.claude-work` is `.claude-work`). */
function accountLabel(account: string): string {
  return (
    account
      .split('/')
      .filter((p) => p !== '')
      .at(-1) ?? account
  );
}

/** `five_hour` is `5h`; an unknown window keeps its name, words for underscores. */
export function windowName(window: string): string {
  return WINDOWS[window] ?? window.replace(/_/g, ' ');
}

export function quotaText(q: QuotaView, now: number = Date.now()): string {
  return `${q.provider} ${windowText(q, now)}`;
}

/** The phrase without its provider, where the provider is said already (the limiter pane's cap line): `5h 91% · resets 16:50`, the account first when there is one. */
export function windowText(q: QuotaView, now: number = Date.now()): string {
  const share = q.utilization !== null ? `${Math.round(q.utilization * 100)}%` : q.status.replace(/_/g, ' ');
  const at = q.resets_at === null ? null : Date.parse(q.resets_at);
  // The day too when it is not today.
  const reset = at !== null ? ` · resets ${localClock(at, new Date(now).toDateString() !== new Date(at).toDateString())}` : '';
  return `${q.account ? `(${accountLabel(q.account)}) ` : ''}${windowName(q.window)} ${share}${reset}`;
}

/** Worth a look: a window at 80% or more, or one the agent says is at its warning or past it. */
export function quotaNear(q: QuotaView): boolean {
  return (q.utilization !== null && q.utilization >= 0.8) || /warning|reject/i.test(q.status);
}
