// The details of another machine's run (cluster scope): what its machine
// published of it (its ClusterRun face, read with cluster.run when the
// details open and with every fleet read after) — whose it is and how
// fresh, its state, agent, worktree, times, usage and meters, the requests
// it waits on — and no more: its command, directory and output stay on its
// machine. Pure.

import type { ClusterRun, PublicRun } from '../../protocol/views.js';
import type { Span, Why } from './columns.js';
import { label, meterLines, statusLine } from './details.js';
import { dur, elapsedMs, parseTime, statusToken } from './format.js';
import { clock, tokensText } from '../model/numbers.js';
import { remoteWhy } from './fleet-rows.js';

export function remoteDetailLines(c: ClusterRun, r: PublicRun, now: number): Span[][] {
  const said = c.status !== 'blocked' ? remoteWhy(c, now) : null;
  const why: Why = said ? { text: said, token: statusToken(c.status) } : null;
  const published = Date.parse(c.published_at);
  const lines: Span[][] = [
    [label('run'), { text: r.name, token: 'text.accent' }, { text: `  ${c.uuid}`, token: 'text.muted' }],
    [
      label('machine'),
      { text: c.host, token: 'text.accent' },
      c.stale
        ? { text: ` · stale: not answering, this is what it said at ${clock(published)}`, token: 'meter.warn' }
        : { text: ` · published ${clock(published)}`, token: 'text.muted' },
    ],
    // Its requests are listed below by their HOST:ID: the status line names none by this machine's #ID.
    statusLine({ ...r, asking: null }, now, c.queue_position ?? undefined, why),
    [
      label('agent'),
      { text: `${c.provider}/${c.workload}`, token: 'text.primary' },
      { text: ` · ${c.interactive ? 'interactive' : 'one-shot'}`, token: 'text.muted' },
    ],
  ];
  if (c.after.length > 0)
    lines.push([
      label('after'),
      { text: c.after.map((u) => `${c.host}:${u.slice(0, 8)}`).join(', '), token: 'text.primary' },
      { text: c.after_any ? ' · each to end, however' : ' · each to complete', token: 'text.muted' },
    ]);
  const w = c.worktree;
  if (w)
    lines.push([
      label('worktree'),
      { text: w.branch, token: 'text.accent' },
      { text: ` +${w.added} −${w.removed} in ${w.files} ${w.files === 1 ? 'file' : 'files'} · from ${w.base} · ${w.state}`, token: 'text.muted' },
    ]);
  const started = parseTime(c.started_at);
  const created = Date.parse(c.created_at);
  lines.push(
    [
      label('times'),
      {
        text: `created ${clock(created)}${started !== null ? ` · started ${clock(started)}` : ''}${c.ended_at ? ` · ended ${clock(Date.parse(c.ended_at))}` : ''} · elapsed ${dur(elapsedMs(r, now))}`,
        token: 'text.primary',
      },
    ],
    [
      label('usage'),
      {
        text: `turns ${c.turns} · tokens in ${tokensText(c.tokens.input)} out ${tokensText(c.tokens.output)} cached ${tokensText(c.tokens.cached)} · cost $${c.cost_usd.toFixed(4)}`,
        token: 'text.primary',
      },
    ],
    ...meterLines(r, now, started),
  );
  for (const a of c.approvals)
    lines.push([
      label('asks'),
      { text: `${c.host}:${a.id} `, token: 'status.blocked' },
      { text: a.summary, token: 'text.primary' },
      { text: a.question ? ' (a question)' : '', token: 'text.muted' },
    ]);
  lines.push([
    label(''),
    {
      text: `command, directory and output stay on ${c.host} · orcr logs ${r.name}`,
      token: 'text.muted',
    },
  ]);
  return lines;
}
