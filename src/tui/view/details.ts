// The details pane's record lines for one run: identity, state, process,
// every meter with its ceiling, loop state, command and cwd. Pure: the
// process and output figures come in from the store, never read here.

import type { PublicRun } from '../../protocol/views.js';
import type { Span, Why } from './columns.js';
import { coarse } from './approvals.js';
import { repoName } from '../state/sort.js';
import { agentWaitText } from '../../text/waiting.js';
import { askingText, denialsMark } from '../../text/approvals.js';
import { bar, bytesText, dur, elapsedMs, GOOD_REASONS, meterLabel, meterText, meterToken, parseTime, percent, STATUS_GLYPH, statusToken } from './format.js';
import { clock, tokensText } from '../model/numbers.js';

export interface ProcInfo {
  cpu: number | null;
  rssBytes: number | null;
  pids: number[];
}

export const label = (text: string): Span => ({ text: text.padEnd(10), token: 'text.muted' });

/** Shell-quote an argv for display, so what is shown could be pasted. */
function quoteArgv(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export function statusLine(r: PublicRun, now: number, queuePos: number | undefined, why: Why): Span[] {
  const status: Span[] = [label('status'), { text: `${STATUS_GLYPH[r.status] ?? '?'} ${r.status}`, token: statusToken(r.status) }];
  if (r.status === 'ended') {
    status.push(
      { text: ` ${r.exit_reason ?? ''}`, token: GOOD_REASONS.has(r.exit_reason ?? '') ? 'reason.ok' : 'reason.bad' },
      { text: `${r.exit_detail ? ` (${r.exit_detail})` : ''}${r.exit_code !== null ? ` · exit code ${r.exit_code}` : ''}`, token: 'text.muted' },
    );
  } else if (r.status === 'blocked') {
    status.push({ text: ` ${r.blocked_kind ?? 'unknown'}`, token: 'status.blocked' });
    // A limit its agent waits out by itself: it goes on by itself, orcr only holds its provider meanwhile.
    const waits = agentWaitText(r, now, { short: true });
    if (waits) status.push({ text: ` · ${waits}`, token: 'event.hold' });
    // What its agent asks, and how many more wait.
    if (r.asking) status.push(...askingSpans(r.asking, now));
  } else if (r.status === 'queued') {
    const place = queuePos ?? r.queue_position;
    status.push({
      text: `${place === null || place === undefined ? (r.waiting?.reason === 'after' ? ' not in the queue yet' : ' #? in the queue') : ` #${place} in the queue`}, waiting ${dur(now - Date.parse(r.created_at))}`,
      token: 'text.muted',
    });
    if (why) status.push({ text: ' · held back by ', token: 'text.muted' }, { text: why.text, token: why.token });
  }
  status.push({ text: ` · since ${clock(Date.parse(r.status_at))}`, token: 'text.muted' });
  const held = r.held_until ? Date.parse(r.held_until) : null;
  if (held !== null && held > now) status.push({ text: ` · ${r.provider} on hold for ${dur(held - now)}`, token: 'event.hold' });
  return status;
}

/** What a run blocked on its agent's request waits for: `approve Bash: npm test · #12 · 2 more · deadline in 58m · ! answers`. */
function askingSpans(a: NonNullable<PublicRun['asking']>, now: number): Span[] {
  const deadline = parseTime(a.deadline_at);
  return [
    { text: ` · ${askingText({ status: 'blocked', blocked_kind: 'approval', asking: { ...a, more: 0 } }) ?? a.summary}`, token: 'status.blocked' },
    {
      text: ` · #${a.id}${a.more > 0 ? ` · ${a.more} more` : ''}${deadline !== null ? ` · its deadline decides in ${coarse(deadline - now)}` : ''} · ! answers`,
      token: 'text.muted',
    },
  ];
}

function processLine(r: PublicRun, proc: ProcInfo | null): Span[] {
  const procSpans: Span[] = [label('process')];
  if (r.pid === null) procSpans.push({ text: 'not started', token: 'text.muted' });
  else {
    procSpans.push({ text: `pgid ${r.pid}`, token: 'text.primary' });
    if (proc && proc.pids.length > 0) {
      procSpans.push({
        text: ` · cpu ${proc.cpu === null ? '…' : `${proc.cpu.toFixed(1)}%`} · rss ${proc.rssBytes === null ? '…' : bytesText(proc.rssBytes)} · ${proc.pids.length} process${proc.pids.length === 1 ? '' : 'es'}`,
        token: 'text.primary',
      });
    } else if (r.status !== 'ended') procSpans.push({ text: ' · no live processes in the group', token: 'text.muted' });
    else procSpans.push({ text: ' · exited', token: 'text.muted' });
  }
  return procSpans;
}

function worktreeLine(r: PublicRun, w: NonNullable<PublicRun['worktree']>): Span[] {
  return [
    label('worktree'),
    { text: w.branch, token: 'text.accent' },
    { text: ' ', token: 'text.muted' },
    { text: `+${w.added}`, token: 'reason.ok' },
    { text: ' ', token: 'text.muted' },
    { text: `−${w.removed}`, token: 'reason.bad' },
    {
      text: ` in ${w.files} ${w.files === 1 ? 'file' : 'files'} · ${repoName(r) === null ? '' : `repo ${repoName(r)} `}from ${w.base} · ${w.state} · ${w.path}`,
      token: 'text.muted',
    },
  ];
}

/** Each ceiling as a meter (time counted to now while the run goes), or one line when there is none. */
export function meterLines(r: PublicRun, now: number, started: number | null): Span[][] {
  const lines: Span[][] = [];
  const meters = Object.entries(r.budget).map(([name, m]) => {
    let used = m.used;
    let fraction = m.fraction;
    if (name === 'time_ms' && r.status !== 'ended' && started !== null) {
      used = now - started;
      fraction = m.limit === null ? null : m.limit === 0 ? Infinity : used / m.limit;
    }
    return { name, used, limit: m.limit, fraction };
  });
  if (meters.every((m) => m.limit === null || m.fraction === null)) {
    // No ceilings at all: one line instead of a column of empty meters.
    return [
      [
        label('ceilings'),
        {
          text: `none (${meters.map((m) => `${meterLabel(m.name)} ${meterText(m.name, m.used, null).replace(' (no ceiling)', '')}`).join(' · ')})`,
          token: 'text.muted',
        },
      ],
    ];
  }
  for (const m of meters) {
    const spans: Span[] = [label(meterLabel(m.name))];
    if (m.limit === null || m.fraction === null) {
      spans.push({ text: `${'·'.repeat(12)} ${meterText(m.name, m.used, null)}`, token: 'text.muted' });
    } else {
      const [filled, empty] = bar(m.fraction, 12);
      spans.push(
        { text: filled, token: meterToken(m.fraction) },
        { text: empty, token: 'meter.empty' },
        { text: ` ${meterText(m.name, m.used, m.limit)} ${percent(m.fraction)}`, token: meterToken(m.fraction) },
      );
    }
    lines.push(spans);
  }
  return lines;
}

export function detailLines(r: PublicRun, proc: ProcInfo | null, now: number, queuePos: number | undefined, why: Why = null): Span[][] {
  const lines: Span[][] = [];
  lines.push([label('run'), { text: r.name, token: 'text.accent' }, { text: `  ${r.uuid}`, token: 'text.muted' }]);
  lines.push(statusLine(r, now, queuePos, why));
  lines.push([
    label('agent'),
    { text: `${r.provider}/${r.workload}`, token: 'text.primary' },
    {
      text: ` · protocol ${r.protocol ?? '(detecting)'} · ${r.interactive ? 'interactive' : 'one-shot'}${r.session_id ? ` · session ${r.session_id}` : ''}`,
      token: 'text.muted',
    },
  ]);
  lines.push(processLine(r, proc));
  lines.push([label('command'), { text: quoteArgv(r.command), token: 'text.primary' }]);
  lines.push([label('cwd'), { text: r.cwd, token: 'text.primary' }]);
  // `run --after`: what it waits (or waited) for, and what waits for it now.
  if ((r.after ?? []).length > 0)
    lines.push([
      label('after'),
      { text: r.after.map((u) => u.slice(0, 8)).join(', '), token: 'text.primary' },
      { text: r.after_any ? ' · each to end, however' : ' · each to complete', token: 'text.muted' },
    ]);
  if ((r.dependents ?? []).length > 0) lines.push([label('waited by'), { text: r.dependents.map((u) => u.slice(0, 8)).join(', '), token: 'text.primary' }]);
  if (r.worktree) lines.push(worktreeLine(r, r.worktree));
  const started = parseTime(r.started_at);
  const created = Date.parse(r.created_at);
  lines.push([
    label('times'),
    {
      text: `created ${clock(created)}${started !== null ? ` · started ${clock(started)} (queued ${dur(started - created)})` : ''}${r.ended_at ? ` · ended ${clock(Date.parse(r.ended_at))}` : ''} · elapsed ${dur(elapsedMs(r, now))}`,
      token: 'text.primary',
    },
  ]);
  lines.push([
    label('usage'),
    {
      text: `turns ${r.turns} · inputs ${r.input_seq} · tokens in ${tokensText(r.tokens.input)} out ${tokensText(r.tokens.output)} cached ${tokensText(r.tokens.cached)} · cost $${r.cost_usd.toFixed(4)}`,
      token: 'text.primary',
    },
  ]);
  lines.push(...meterLines(r, now, started));
  const denied = denialsMark(r);
  if (denied)
    lines.push([
      label('denied'),
      { text: denied, token: 'reason.bad' },
      { text: ': tool calls its agent CLI refused by its own settings, nobody asked (the event log names them)', token: 'text.muted' },
    ]);
  const loop = r.loop;
  lines.push([
    label('loop'),
    loop.detected || loop.warned
      ? {
          text: `⟳ ${loop.detected ? 'detected' : ''}${loop.warned ? `${loop.detected ? ', ' : ''}warned` : ''} · ${loop.repetitions} repetitions`,
          token: loop.warned ? 'meter.warn' : 'reason.bad',
        }
      : { text: 'none', token: 'text.muted' },
  ]);
  if (r.last_tool || r.last_text) {
    lines.push([
      label('last'),
      {
        text: `${r.last_tool ? `tool ${r.last_tool}` : ''}${r.last_tool && r.last_text ? ' · ' : ''}${r.last_text ? `"${r.last_text.replace(/\s+/g, ' ')}"` : ''}`,
        token: 'text.primary',
      },
    ]);
  }
  return lines;
}
