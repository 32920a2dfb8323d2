// Two lines: where we are and whether the supervisor is up; then the run
// counts by status, fleet budget meters (when reported) and provider holds.
// A third while config.json is refused or had values clamped: a person edits
// that file by hand and should not have to read server.log to learn it did
// not take.

import React, { useMemo } from 'react';
import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { Line, useTui } from './context.js';
import type { Span } from '../src/tui/view/columns.js';
import { bar, clock, dur, meterToken, percent, STATUS_GLYPH, statusToken, tokensText } from '../src/tui/view/format.js';
import { activeHolds, STATUSES } from '../src/tui/view/format.js';
import type { ClusterInfo, FleetMeter, Stats } from '../src/tui/state/stats.js';
import { fleetRate, sparkline } from '../src/tui/view/burn.js';
import { rateText } from '../src/tui/view/columns.js';

export interface HeaderProps {
  readonly width: number;
  /** 2, or 3 with a config notice (see hasConfigNotice). */
  readonly height?: number;
}

export function hasConfigNotice(stats: Stats | null): boolean {
  return stats !== null && (stats.configError !== null || stats.warnings.length > 0);
}

export function configSpans(stats: Pick<Stats, 'configError' | 'warnings'>): Span[] {
  const out: Span[] = [];
  if (stats.configError) {
    out.push(
      { text: `✗ config.json refused at ${clock(stats.configError.at)}: `, token: 'notice.error' },
      { text: stats.configError.message, token: 'text.primary' },
      { text: ' — the previous config stays in force', token: 'text.muted' },
    );
  }
  if (stats.warnings.length > 0) {
    if (out.length) out.push({ text: '  │ ', token: 'border' });
    out.push({ text: `⚠ config: `, token: 'meter.warn' }, { text: stats.warnings.join(' · '), token: 'text.primary' });
  }
  return out;
}

function tildify(p: string): string {
  const home = process.env.HOME;
  return home && (p === home || p.startsWith(home + '/')) ? '~' + p.slice(home.length) : p;
}

function fleetSpans(m: FleetMeter): Span[] {
  const f = m.fraction ?? 0;
  const [filled, empty] = bar(f, 6);
  const label = m.name === 'cost_usd' ? 'fleet cost' : `fleet ${m.name}`;
  const used = m.name === 'cost_usd' ? `$${m.used.toFixed(2)}` : m.name === 'tokens' ? tokensText(m.used) : String(m.used);
  const limit = m.limit === null ? '' : m.name === 'cost_usd' ? `$${m.limit.toFixed(2)}` : m.name === 'tokens' ? tokensText(m.limit) : String(m.limit);
  return [
    { text: `${label} `, token: 'text.muted' },
    { text: filled, token: meterToken(f) },
    { text: empty, token: 'meter.empty' },
    { text: ` ${used}/${limit} ${percent(f)}`, token: meterToken(f) },
  ];
}

/** The cluster as this machine sees it: its name, the machines up, and whether its database answers. */
export function clusterSpans(c: ClusterInfo, now: number): Span[] {
  const out: Span[] = [{ text: '  │ ', token: 'border' }, { text: `cluster ${c.name}`, token: 'text.accent' }];
  if (c.available) {
    out.push({ text: ` · ${c.machinesUp}/${c.machines} machine${c.machines === 1 ? '' : 's'} up · db ok`, token: 'text.muted' });
    if (c.notificationsLost) out.push({ text: ' · no notifications: polling', token: 'meter.warn' });
  } else {
    out.push({ text: ` ✗ database unavailable ${dur(Math.max(0, now - c.since))}: admitting nothing`, token: 'reason.bad' });
  }
  return out;
}

export function Header({ width, height = 2 }: HeaderProps): React.JSX.Element {
  const home = useTui((s) => s.home);
  const conn = useTui(useShallow((s) => ({ state: s.conn.state, pid: s.conn.pid, startedAt: s.conn.startedAt, starting: s.conn.starting, since: s.conn.since, error: s.conn.error })));
  const now = useTui((s) => s.now);
  const counts = useTui((s) => s.view.counts);
  const total = useTui((s) => s.view.total);
  const loaded = useTui((s) => s.loaded);
  const fleet = useTui((s) => s.stats?.fleet);
  const holds = useTui((s) => s.stats?.holds);
  const exceeded = useTui((s) => s.stats?.fleetExceeded ?? false);
  const configError = useTui((s) => s.stats?.configError ?? null);
  const warnings = useTui((s) => s.stats?.warnings);
  const paused = useTui((s) => s.stats?.paused ?? false);
  const cluster = useTui((s) => s.stats?.cluster ?? null);
  const burns = useTui((s) => s.burn);

  const line1: Span[] = [{ text: 'orcr ', token: 'text.accent' }, { text: tildify(home), token: 'text.primary' }, { text: '  ', token: 'text.primary' }];
  if (conn.state === 'up') {
    const up = conn.startedAt ? ` · up ${dur(now - conn.startedAt)}` : '';
    line1.push({ text: '● supervisor', token: 'reason.ok' }, { text: ` pid ${conn.pid ?? '?'}${up}`, token: 'text.muted' });
  } else if (conn.state === 'connecting') {
    line1.push({ text: conn.starting ? '◐ supervisor not running — starting…' : '◐ connecting…', token: 'status.starting' });
  } else {
    line1.push(
      { text: loaded ? '✗ supervisor gone — last state shown greyed; reconnecting…' : '✗ supervisor unavailable — retrying…', token: 'reason.bad' },
      { text: ` (${dur(now - conn.since)}; r starts one)`, token: 'text.muted' },
    );
    if (!loaded && conn.error) line1.push({ text: ` ${conn.error}`, token: 'text.muted' });
  }
  if (cluster && conn.state === 'up') line1.push(...clusterSpans(cluster, now));

  const line2: Span[] = [];
  for (const st of STATUSES) {
    // Narrow: zero counts make way for the meters and holds.
    if (width < 110 && counts[st] === 0) continue;
    if (line2.length) line2.push({ text: ' · ', token: 'text.muted' });
    line2.push({ text: `${STATUS_GLYPH[st]} ${counts[st]} ${st}`, token: counts[st] ? statusToken(st) : 'text.muted' });
  }
  line2.push({ text: ` (${total})`, token: 'text.muted' });
  if (paused) line2.push({ text: '  │ ', token: 'border' }, { text: '⏸ queue paused: nothing starts (P resumes)', token: 'meter.warn' });
  // The rate moves with the minute buckets (and new spend), not with every second's tick.
  const minute = Math.floor(now / 60_000);
  const burn = useMemo(() => fleetRate(burns, minute * 60_000), [burns, minute]);
  if (burn.tokensPerMin > 0 || burn.costPerHour > 0) {
    const rate = [burn.tokensPerMin > 0 ? `${tokensText(Math.round(burn.tokensPerMin))} tok/min` : '', burn.costPerHour > 0 ? rateText(burn) : ''].filter(Boolean).join(' · ');
    line2.push({ text: '  │ ', token: 'border' }, { text: 'burn ', token: 'text.muted' }, { text: sparkline(burn.spark.slice(-6)), token: 'meter.ok' }, { text: ` ${rate}`, token: 'text.primary' });
  }
  for (const m of fleet ?? []) line2.push({ text: '  │ ', token: 'border' }, ...fleetSpans(m));
  if (exceeded) line2.push({ text: '  │ ', token: 'border' }, { text: 'fleet budget exceeded: nothing new starts', token: 'reason.bad' });
  const held = holds ? activeHolds(holds, now) : [];
  if (held.length > 0) {
    line2.push({ text: '  │ ', token: 'border' });
    line2.push({ text: `hold ${held.map((h) => `${h.provider} ${dur(h.until - now)}`).join(', ')}`, token: 'event.hold' });
  }
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Line spans={line1} width={width} />
      <Line spans={line2} width={width} />
      {height > 2 && (configError || (warnings && warnings.length > 0)) ? <Line spans={configSpans({ configError, warnings: warnings ?? [] })} width={width} /> : null}
    </Box>
  );
}
