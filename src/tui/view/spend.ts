// The spend view's lines (`$`): the fleet's meters against its budget, spend
// by provider and by workload with each one's share, and the last hour as a
// bar per minute. Pure: the figures and the width in, spans out.

import type { Spend, SpendRow } from '../state/spend.js';
import { sparkline } from './burn.js';
import type { Span } from './columns.js';
import { bar, fit, meterToken, percent } from './format.js';
import { costText, tokensText } from '../model/numbers.js';
import { quotaNear, quotaText } from './quota.js';

function meterLine(m: Spend['meters'][number]): Span[] {
  const f = m.fraction ?? 0;
  const [filled, empty] = bar(f, 12);
  const money = m.name === 'cost_usd';
  const show = (v: number): string => (money ? costText(v) : tokensText(v));
  return [
    { text: fit(money ? 'fleet cost' : `fleet ${m.name}`, 14), token: 'text.muted' },
    { text: filled, token: meterToken(f) },
    { text: empty, token: 'meter.empty' },
    { text: ` ${show(m.used)}${m.limit !== null ? ` / ${show(m.limit)} ${percent(f)}` : ''}`, token: meterToken(f) },
  ];
}

function table(title: string, rows: readonly SpendRow[], width: number): Span[][] {
  const total = rows.reduce((a, r) => a + r.cost, 0);
  const tokens = rows.reduce((a, r) => a + r.tokens, 0);
  const nameW = Math.max(10, Math.min(24, width - 60));
  const out: Span[][] = [
    [{ text: `${fit(title, nameW)}  ${fit('RUNS', 5, 'right')}  ${fit('TOKENS', 7, 'right')}  ${fit('COST', 9, 'right')}  SHARE`, token: 'text.muted' }],
  ];
  if (rows.length === 0) out.push([{ text: '  nothing spent in the window', token: 'text.muted' }]);
  for (const r of rows) {
    // The share of the cost; of the tokens while nothing is priced.
    const share = total > 0 ? r.cost / total : tokens > 0 ? r.tokens / tokens : 0;
    const [filled, empty] = bar(share, 10);
    out.push([
      {
        text: `${fit(r.key, nameW)}  ${fit(String(r.runs), 5, 'right')}  ${fit(tokensText(r.tokens), 7, 'right')}  ${fit(costText(r.cost), 9, 'right')}  `,
        token: 'text.primary',
      },
      { text: filled, token: 'meter.ok' },
      { text: empty, token: 'meter.empty' },
      { text: ` ${percent(share)}`, token: 'text.muted' },
    ]);
  }
  return out;
}

/** The last `minutes` minutes up to the figures' time, tokens in each (0 where nothing was spent). */
function minuteSeries(s: Spend, minutes: number): { tokens: number[]; cost: number } {
  const last = Math.floor(s.at / 60_000);
  const tokens = new Array<number>(minutes).fill(0);
  let cost = 0;
  for (const m of s.perMinute) {
    const i = minutes - 1 - (last - m.minute);
    if (i < 0 || i >= minutes) continue;
    tokens[i]! += m.tokens;
    cost += m.cost;
  }
  return { tokens, cost };
}

export function spendLines(s: Spend, width: number): Span[][] {
  const out: Span[][] = [];
  out.push(...s.meters.map(meterLine));
  if (s.meters.length === 0) out.push([{ text: 'no fleet budget set (budgets.fleet in config.json)', token: 'text.muted' }]);
  if (s.exceeded) out.push([{ text: 'fleet budget exceeded: nothing new starts', token: 'reason.bad' }]);
  for (const q of s.quotas)
    out.push([
      { text: 'quota ', token: 'text.muted' },
      { text: quotaText(q, s.at), token: quotaNear(q) ? 'event.hold' : 'text.primary' },
    ]);
  out.push([], ...table('BY PROVIDER', s.providers, width), [], ...table('BY WORKLOAD', s.workloads, width), []);
  const minutes = Math.max(10, Math.min(60, width - 24));
  const series = minuteSeries(s, minutes);
  const peak = Math.max(...series.tokens);
  out.push([{ text: `LAST ${minutes} MINUTES, tokens a minute`, token: 'text.muted' }]);
  out.push([
    { text: sparkline(series.tokens), token: 'meter.ok' },
    { text: peak > 0 ? `  peak ${tokensText(peak)}/min · ${costText(series.cost)} in all` : '  nothing spent', token: 'text.muted' },
  ]);
  return out;
}
