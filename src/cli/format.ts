// Human-readable output for the CLI verbs. NO_COLOR and non-TTY output get no escapes.

import { formatDuration } from '../config/duration.js';
import type { PublicRun } from '../server/view.js';

const useColor = (): boolean => !process.env.NO_COLOR && process.stdout.isTTY === true && process.env.TERM !== 'dumb';

const COLORS: Record<string, string> = {
  queued: '\x1b[90m',
  starting: '\x1b[36m',
  working: '\x1b[32m',
  idle: '\x1b[34m',
  blocked: '\x1b[33m',
  ended: '\x1b[37m',
};

export function paintStatus(status: string, text = status): string {
  return useColor() && COLORS[status] ? `${COLORS[status]}${text}\x1b[0m` : text;
}

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  return [fmt(headers), ...rows.map(fmt)].join('\n');
}

export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function statusWord(r: PublicRun): string {
  if (r.status === 'ended') return `ended:${r.exit_reason}`;
  if (r.status === 'blocked') return `blocked:${r.blocked_kind ?? 'unknown'}`;
  if (r.status === 'queued' && r.queue_position !== null) return `queued#${r.queue_position}`;
  return r.status;
}

export function elapsed(r: PublicRun, now = Date.now()): string {
  const start = r.started_at ? Date.parse(r.started_at) : Date.parse(r.created_at);
  const end = r.ended_at ? Date.parse(r.ended_at) : now;
  return formatDuration(Math.max(0, end - start));
}

export function psTable(runs: PublicRun[]): string {
  if (runs.length === 0) return 'no runs';
  const rows = runs.map((r) => {
    const word = statusWord(r);
    return [
      r.name,
      r.uuid.slice(0, 8),
      paintStatus(r.status, word) + ' '.repeat(Math.max(0, 18 - word.length)),
      `${r.provider}/${r.workload}`,
      String(r.turns),
      tokens(r.tokens.input + r.tokens.output),
      r.cost_usd ? `$${r.cost_usd.toFixed(2)}` : '-',
      elapsed(r),
    ];
  });
  return table(['NAME', 'ID', 'STATUS'.padEnd(18), 'PROVIDER/WORKLOAD', 'TURNS', 'TOKENS', 'COST', 'ELAPSED'], rows);
}

export function showRun(r: PublicRun): string {
  const lines: [string, string][] = [
    ['name', r.name],
    ['uuid', r.uuid],
    ['status', statusWord(r)],
    ['exit', r.exit_reason ? `${r.exit_reason}${r.exit_detail ? ` (${r.exit_detail})` : ''}, code ${r.exit_code ?? '-'}` : '-'],
    ['provider', r.provider],
    ['workload', r.workload],
    ['protocol', r.protocol ?? '(detecting)'],
    ['command', JSON.stringify(r.command)],
    ['cwd', r.cwd],
    ['pid', r.pid === null ? '-' : String(r.pid)],
    ['turns', `${r.turns} (input ${r.input_seq})`],
    ['tokens', `in ${r.tokens.input}, out ${r.tokens.output}, cached ${r.tokens.cached}`],
    ['cost', `$${r.cost_usd.toFixed(4)}`],
  ];
  for (const [name, m] of Object.entries(r.budget)) {
    if (m.limit !== null) lines.push([`budget ${name}`, `${m.used}/${m.limit} (${Math.round((m.fraction ?? 0) * 100)}%)`]);
  }
  if (r.loop.detected || r.loop.warned) lines.push(['loop', `detected, ${r.loop.repetitions} repetitions${r.loop.warned ? ', warned' : ''}`]);
  if (r.session_id) lines.push(['session', r.session_id]);
  if (r.last_tool) lines.push(['last tool', r.last_tool]);
  if (r.last_text) lines.push(['last text', r.last_text.replace(/\s+/g, ' ').slice(0, 200)]);
  lines.push(['created', r.created_at], ['started', r.started_at ?? '-'], ['ended', r.ended_at ?? '-']);
  const w = Math.max(...lines.map(([k]) => k.length));
  return lines.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}
