// The supervisor's figures for people: `orcr stats` (caps, holds, quotas,
// the fleet budget, the cluster) and `orcr spend`. Split from format.ts,
// whose tables and number forms they use.

import { formatDuration } from '../config/duration.js';
import { providerCap } from '../core/caps.js';
import type { Result } from '../client/methods.js';
import { displayWidth, truncateDisplay } from '../text/display-width.js';
import { safeLine } from '../text/terminal-text.js';
import { quotaText, type QuotaView } from '../text/quota.js';
import { ofLimit, table, tokens, until, usd, useColor, type Cell } from './format.js';

/** Holder names, cut to fit: `a, b, c +12`. */
function nameList(names: string[], columns = 60): string {
  if (names.length === 0) return '-';
  let text = '';
  for (let i = 0; i < names.length; i++) {
    const next = (text ? ', ' : '') + safeLine(names[i]!);
    const rest = names.length - i - 1;
    const more = rest > 0 ? ` +${rest}` : '';
    if (text && displayWidth(text + next + more) > columns) return `${text} +${names.length - i}`;
    text += next;
  }
  return truncateDisplay(text, columns);
}

/** `orcr stats`'s reply: as the supervisor's `stats` gives it. */
export type StatsReply = Result<'stats'>;

/** Config findings: warnings kept, and an edit refused (the previous config stays in force). */
export function configNotes(warnings: string[] | undefined, error: { at: number; message: string } | null | undefined): string[] {
  const lines = (warnings ?? []).map((w) => `warning: ${safeLine(w)}`);
  if (error) lines.push(`config rejected at ${new Date(error.at).toISOString()}, the previous config stays in force: ${safeLine(error.message)}`);
  return lines;
}

export function statsText(s: StatsReply, now = Date.now(), color = useColor()): string {
  const name = (uuid: string): string => s.names?.[uuid] ?? uuid.slice(0, 8);
  const rows = s.caps.map((cap): Cell[] => [
    cap.cap,
    `${cap.active}/${cap.limit}`,
    cap.reserved ? String(cap.reserved) : '-',
    cap.priority !== null && cap.priority !== undefined ? String(cap.priority) : '-',
    String(cap.queued),
    cap.queued ? formatDuration(cap.oldest_wait_ms) : '-',
    cap.held_until ? until(cap.held_until, now) : '-',
    nameList(cap.holders.map(name)),
  ]);
  const out = [table(['CAP', 'ACTIVE/LIMIT', 'RESERVED', 'PRIORITY', 'QUEUED', 'OLDEST WAIT', 'HOLD', 'HOLDERS'], rows, color)];
  out.push('', `${s.active} active, ${s.queued} queued`);
  // A hold on a provider with no cap of its own has no row to show it in.
  const shown = new Set(s.caps.filter((c) => c.held_until).map((c) => c.cap));
  for (const [provider, at] of Object.entries(s.holds ?? {})) {
    if (!shown.has(providerCap(provider)))
      out.push(`hold: provider ${safeLine(provider)}, lifted ${until(at, now)} (orcr provider resume ${safeLine(provider)} lifts it now)`);
  }
  // Older supervisors send none of these.
  for (const a of s.account_holds ?? []) {
    out.push(
      `hold: ${safeLine(a.provider)} (${a.account === null ? 'default login' : safeLine(a.account)}), its runs wait, lifted ${until(Date.parse(a.until), now)} (orcr provider resume ${safeLine(a.provider)} lifts it now)`,
    );
  }
  for (const q of s.quotas ?? []) out.push(`quota: ${quotaLine(q, now)}`);
  if (s.fleet) {
    const m = s.fleet.meters;
    const window = s.fleet.window === 'all' ? 'all time' : `last ${formatDuration(parseInt(s.fleet.window, 10))}`;
    const parts: string[] = [];
    if (m.tokens) parts.push(`tokens ${ofLimit(tokens(m.tokens.used), m.tokens.limit !== null ? tokens(m.tokens.limit) : null)}`);
    if (m.cost_usd) parts.push(`cost ${ofLimit(usd(m.cost_usd.used), m.cost_usd.limit !== null ? usd(m.cost_usd.limit) : null)}`);
    out.push(`fleet (${window}): ${parts.join(', ')}${s.fleet.exceeded ? ' — budget exceeded: nothing new starts' : ''}`);
  }
  if (s.paused) out.push('queue paused: nothing starts until orcr queue resume');
  if (s.draining) out.push('draining: nothing starts; the supervisor stops once the running agents have ended');
  const cl = s.cluster;
  if (cl) out.push(clusterLine(cl));
  out.push(...configNotes(s.warnings, s.config_error));
  return out.join('\n');
}

/** `claude 5h 91% · resets 16:50 (allowed warning)`: the agent's own status too, when it is not plain `allowed`. */
function quotaLine(q: QuotaView, now: number): string {
  return `${safeLine(quotaText(q, now))}${q.status && q.utilization !== null && q.status !== 'allowed' ? ` (${safeLine(q.status)})` : ''}`;
}

/**
 * `cluster team · this machine a · database available · 3 machines up` (or
 * since when it is not), then what a user must know of it: notices from
 * other machines that do not arrive, holders and waiting lines that are only
 * the last the database told.
 */
export function clusterLine(cl: NonNullable<StatsReply['cluster']>): string {
  const db = cl.available
    ? 'database available'
    : `cluster unavailable since ${new Date(cl.since).toISOString()}${cl.error ? ` (${safeLine(cl.error)})` : ''}: nothing new starts here`;
  const up = cl.machines.filter((m) => m.alive).length;
  const lines = [
    `cluster ${safeLine(cl.name)} · this machine ${safeLine(cl.host)} · ${db}${cl.machines.length ? ` · ${up} of ${cl.machines.length} machines up` : ''}`,
  ];
  if (cl.notifications === 'not arriving') {
    lines.push(`  notifications do not arrive: ${safeLine(cl.notifications_detail ?? 'the probe never came back')}; polling the database every 250 ms instead`);
  }
  if (!cl.available && cl.seen_at)
    lines.push(`  holders and waiting lines above are as last seen at ${new Date(cl.seen_at).toISOString()}, before the database went away`);
  return lines.join('\n');
}

/** `orcr spend`'s reply: as the supervisor's `spend` gives it. */
export type SpendReply = Result<'spend'>;

export function spendText(s: SpendReply): string {
  // Numbers as stats and show write them: 25.4k tokens, $1.75.
  const window =
    s.window === 'all'
      ? 'all time (every run in the journal)'
      : `the last ${formatDuration(Number.parseInt(s.window, 10))} (runs live in it, each with its whole usage)`;
  const rows = (xs: SpendReply['by_provider']): string[][] => xs.map((r) => [r.key, String(r.runs), tokens(r.tokens), usd(r.cost)]);
  const lastHour = s.per_minute.reduce((a, m) => ({ tokens: a.tokens + m.tokens, cost: a.cost + m.cost }), { tokens: 0, cost: 0 });
  const amount = (meter: string, n: number): string => (meter === 'cost_usd' ? usd(n) : tokens(n));
  const meters = Object.entries(s.fleet.meters).map(
    ([n, m]) => `fleet ${n === 'cost_usd' ? 'cost' : n}: ${amount(n, m.used)}${m.limit !== null ? ` of ${amount(n, m.limit)}` : ''}`,
  );
  return [
    `spend over ${window}${s.fleet.exceeded ? ' — the fleet budget is exceeded: nothing new starts' : ''}`,
    ...meters,
    '',
    table(['PROVIDER', 'RUNS', 'TOKENS', 'COST'], rows(s.by_provider)),
    '',
    table(['WORKLOAD', 'RUNS', 'TOKENS', 'COST'], rows(s.by_workload)),
    '',
    `last hour: ${tokens(lastHour.tokens)} tokens, ${usd(lastHour.cost)}`,
    // Older supervisors send no quotas.
    ...(s.quotas ?? []).map((q) => `quota: ${quotaLine(q, s.at)}`),
  ].join('\n');
}
