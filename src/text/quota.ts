// A provider's standing in a usage window, as one phrase for `stats` and the
// TUI's header: `claude 5h 91% · resets 16:50`. Pure: the clock is a parameter.

const WINDOWS: Readonly<Record<string, string>> = {
  five_hour: '5h',
  seven_day: '7d',
  seven_day_opus: '7d opus',
  seven_day_sonnet: '7d sonnet',
  overage: 'overage',
};

export interface QuotaView {
  provider: string;
  window: string;
  status: string;
  utilization: number | null;
  resets_at: string | null;
}

/** `five_hour` is `5h`; an unknown window keeps its name, words for underscores. */
export function windowName(window: string): string {
  return WINDOWS[window] ?? window.replace(/_/g, ' ');
}

/** Local wall-clock time, with the day when it is not today. */
function at(ms: number, now: number): string {
  const d = new Date(ms);
  const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  return new Date(now).toDateString() === d.toDateString() ? hm : `${d.toLocaleString('en-US', { month: 'short' })} ${d.getDate()} ${hm}`;
}

export function quotaText(q: QuotaView, now: number = Date.now()): string {
  const share = q.utilization !== null ? `${Math.round(q.utilization * 100)}%` : q.status.replace(/_/g, ' ');
  const reset = q.resets_at !== null ? ` · resets ${at(Date.parse(q.resets_at), now)}` : '';
  return `${q.provider} ${windowName(q.window)} ${share}${reset}`;
}

/** Worth a look: a window at 80% or more, or one the agent says is at its warning or past it. */
export function quotaNear(q: QuotaView): boolean {
  return (q.utilization !== null && q.utilization >= 0.8) || /warning|reject/i.test(q.status);
}
