// Two lines: where we are and whether the supervisor is up; then the run
// counts by status, the requests waiting for you, fleet budget meters (when
// reported) and provider holds.
// A third while config.json is refused or had values clamped: a person edits
// that file by hand and should not have to read server.log to learn it did
// not take.

import React, { useMemo } from 'react';
import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { Line, useTui } from './context.js';
import type { Span } from '../src/tui/view/columns.js';
import { bar, dur, meterToken, percent, STATUS_GLYPH, statusToken, textWidth } from '../src/tui/view/format.js';
import { clock, tokensText } from '../src/tui/model/numbers.js';
import { activeHolds, STATUSES } from '../src/tui/view/format.js';
import type { ClusterInfo, FleetMeter, Stats } from '../src/tui/state/stats.js';
import type { ConnState } from '../src/tui/state/store.js';
import type { RunsView } from '../src/tui/state/runs-view.js';
import { fleetRate, sparkline, type Rate } from '../src/tui/view/burn.js';
import { rateText } from '../src/tui/view/columns.js';
import { fitGroups, spansWidth, tailFit, type Group } from '../src/tui/view/fit.js';
import { quotaNear, quotaText } from '../src/tui/view/quota.js';

export interface HeaderProps {
  readonly width: number;
  /** 2, or 3 with a config notice (see hasConfigNotice). */
  readonly height?: number;
}

export function hasConfigNotice(stats: Stats | null): boolean {
  return stats !== null && (stats.configError !== null || stats.warnings.length > 0 || stats.degraded !== null);
}

function configSpans(stats: Pick<Stats, 'configError' | 'warnings' | 'degraded'>): Span[] {
  const out: Span[] = [];
  // The journal cannot be written (a full disk): first, since nothing starts until it can.
  if (stats.degraded) {
    out.push(
      { text: '✗ the journal cannot be written: ', token: 'notice.error' },
      { text: stats.degraded, token: 'text.primary' },
      { text: ' — nothing starts until it can', token: 'text.muted' },
    );
  }
  if (stats.configError) {
    if (out.length) out.push({ text: '  │ ', token: 'border' });
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
function clusterSpans(c: ClusterInfo, now: number): Span[] {
  const out: Span[] = [
    { text: '  │ ', token: 'border' },
    { text: `cluster ${c.name}`, token: 'text.accent' },
  ];
  if (c.available) {
    // The machines are known from the first heartbeat on: none said until then (not "0/0 up").
    const up = c.machines > 0 ? ` · ${c.machinesUp}/${c.machines} machine${c.machines === 1 ? '' : 's'} up` : '';
    out.push({ text: `${up} · db ok`, token: 'text.muted' });
    if (c.notificationsLost) out.push({ text: ' · no notifications: polling', token: 'meter.warn' });
  } else {
    out.push({ text: ` ✗ database unavailable ${dur(Math.max(0, now - c.since))}: admitting nothing`, token: 'reason.bad' });
  }
  return out;
}

/** The supervisor's state as groups of the first line, each with how long it stays as the line narrows. */
function supervisorGroups(conn: ConnState, now: number, loaded: boolean, listMode: boolean): Group[] {
  const sup: Group[] = [];
  if (conn.state === 'up') {
    sup.push(
      { spans: [{ text: '● supervisor', token: 'reason.ok' }], priority: 100 },
      { spans: [{ text: ` pid ${conn.pid ?? '?'}`, token: 'text.muted' }], priority: 50 },
    );
    if (conn.startedAt) sup.push({ spans: [{ text: ` · up ${dur(now - conn.startedAt)}`, token: 'text.muted' }], priority: 20 });
  } else if (conn.state === 'connecting') {
    sup.push({ spans: [{ text: conn.starting ? '◐ supervisor not running — starting…' : '◐ connecting…', token: 'status.starting' }], priority: 100 });
  } else {
    sup.push(
      { spans: [{ text: loaded ? '✗ supervisor gone' : '✗ supervisor unavailable', token: 'reason.bad' }], priority: 100 },
      { spans: [{ text: loaded ? ' — last state shown greyed' : '', token: 'reason.bad' }], priority: 30 },
      { spans: [{ text: loaded ? '; reconnecting…' : ' — retrying…', token: 'reason.bad' }], priority: 40 },
      { spans: [{ text: ` (${dur(now - conn.since)}; ${listMode ? 'r' : 'r in the list'} starts one)`, token: 'text.muted' }], priority: 60 },
    );
    if (!loaded && conn.error) sup.push({ spans: [{ text: ` ${conn.error}`, token: 'text.muted' }], priority: 10 });
  }
  return sup;
}

/** The first line: orcr, the home's path, the supervisor's state and the cluster's. */
function firstLine(home: string, conn: ConnState, cluster: ClusterInfo | null, width: number, now: number, loaded: boolean, listMode: boolean): Span[] {
  // The supervisor's state first; its pid, uptime and cluster make way on a narrow terminal, then the home's path shrinks.
  const sup = supervisorGroups(conn, now, loaded, listMode);
  if (cluster && conn.state === 'up') {
    const spans = clusterSpans(cluster, now);
    sup.push({ spans, priority: cluster.available ? 30 : 90 });
  }
  const homeText = tildify(home);
  // The path keeps up to 32 columns of itself before the pid and uptime are shown ("…/orcr-demo-x"); what they leave it, after.
  const homeWant = Math.min(textWidth(homeText), Math.max(12, Math.min(32, width - 7 - spansWidth(sup[0]!.spans))));
  const right = fitGroups(sup, width - 7 - homeWant);
  return [
    { text: 'orcr ', token: 'text.accent' },
    { text: tailFit(homeText, Math.max(1, width - 7 - spansWidth(right))), token: 'text.primary' },
    { text: '  ', token: 'text.primary' },
    ...right,
  ];
}

/** The run counts by status, then the total; `terse`: the glyphs without their words (`● 3 · ▲ 2`). */
function countSpans(counts: RunsView['counts'], total: number, width: number, terse = false): Span[] {
  const out: Span[] = [];
  for (const st of STATUSES) {
    // Narrow: zero counts make way for the meters and holds.
    if (width < 110 && counts[st] === 0) continue;
    if (out.length) out.push({ text: ' · ', token: 'text.muted' });
    out.push({ text: `${STATUS_GLYPH[st]} ${counts[st]}${terse ? '' : ` ${st}`}`, token: counts[st] ? statusToken(st) : 'text.muted' });
  }
  out.push({ text: ` (${total})`, token: 'text.muted' });
  return out;
}

const BAR: Span = { text: '  │ ', token: 'border' };

/** The fleet's burn rate, with a sparkline of its last minutes; null while nothing is spent. */
function burnGroup(burn: Rate): Group | null {
  if (!(burn.tokensPerMin > 0 || burn.costPerHour > 0)) return null;
  const rate = [burn.tokensPerMin > 0 ? `${tokensText(Math.round(burn.tokensPerMin))} tok/min` : '', burn.costPerHour > 0 ? rateText(burn) : '']
    .filter(Boolean)
    .join(' · ');
  return {
    spans: [
      BAR,
      { text: 'burn ', token: 'text.muted' },
      { text: sparkline(burn.spark.slice(-6)), token: 'meter.ok' },
      { text: ` ${rate}`, token: 'text.primary' },
    ],
    priority: 40,
  };
}

/** What the second line shows of the fleet. */
interface FleetLine {
  counts: RunsView['counts'];
  total: number;
  paused: boolean;
  burn: Rate;
  fleet: FleetMeter[] | undefined;
  exceeded: boolean;
  holds: Stats['holds'] | undefined;
  quotas: Stats['quotas'] | undefined;
  /** Requests waiting for a person across the fleet. */
  asking: number;
}

/** The second line: the counts, then what stops runs from starting, the meters and the burn rate, as the width allows. */
function secondLine(f: FleetLine, width: number, now: number): Span[] {
  // What stops runs from starting stays longest; the meters, then the burn rate, make way first.
  const asking: Span[] = f.asking > 0 ? [BAR, { text: `⚑ ${f.asking} to approve`, token: 'status.blocked' }] : [];
  // An agent stands still until someone answers: what waits is kept, the counts lose their words first.
  let counts = countSpans(f.counts, f.total, width);
  if (spansWidth(counts) + spansWidth(asking) > width) counts = countSpans(f.counts, f.total, width, true);
  const groups: Group[] = [{ spans: counts, priority: 100 }];
  if (f.asking > 0) groups.push({ spans: asking, priority: 99 }, { spans: [{ text: ' (! opens)', token: 'text.muted' }], priority: 35 });
  if (f.paused) groups.push({ spans: [BAR, { text: '⏸ queue paused: nothing starts (P resumes)', token: 'meter.warn' }], priority: 90 });
  const burn = burnGroup(f.burn);
  if (burn) groups.push(burn);
  for (const m of f.fleet ?? []) groups.push({ spans: [BAR, ...fleetSpans(m)], priority: 60 });
  if (f.exceeded) groups.push({ spans: [BAR, { text: 'fleet budget exceeded: nothing new starts', token: 'reason.bad' }], priority: 85 });
  const held = f.holds ? activeHolds(f.holds, now) : [];
  if (held.length > 0)
    groups.push({ spans: [BAR, { text: `hold ${held.map((h) => `${h.provider} ${dur(h.until - now)}`).join(', ')}`, token: 'event.hold' }], priority: 80 });
  // A usage window near its end (80%, or the agent's warning): before the limit stops runs midway.
  const near = (f.quotas ?? []).filter(quotaNear);
  if (near.length > 0) groups.push({ spans: [BAR, { text: near.map((q) => quotaText(q, now)).join(', '), token: 'meter.warn' }], priority: 70 });
  return fitGroups(groups, width);
}

export function Header({ width, height = 2 }: HeaderProps): React.JSX.Element {
  const home = useTui((s) => s.home);
  const conn = useTui(
    useShallow((s) => ({
      state: s.conn.state,
      pid: s.conn.pid,
      startedAt: s.conn.startedAt,
      starting: s.conn.starting,
      since: s.conn.since,
      error: s.conn.error,
    })),
  );
  const now = useTui((s) => s.now);
  const counts = useTui((s) => s.view.counts);
  const total = useTui((s) => s.view.total);
  const loaded = useTui((s) => s.loaded);
  const fleet = useTui((s) => s.stats?.fleet);
  const holds = useTui((s) => s.stats?.holds);
  const quotas = useTui((s) => s.stats?.quotas);
  const exceeded = useTui((s) => s.stats?.fleetExceeded ?? false);
  const configError = useTui((s) => s.stats?.configError ?? null);
  const warnings = useTui((s) => s.stats?.warnings);
  const degraded = useTui((s) => s.stats?.degraded ?? null);
  const paused = useTui((s) => s.stats?.paused ?? false);
  const cluster = useTui((s) => s.stats?.cluster ?? null);
  const burns = useTui((s) => s.burn);
  const listMode = useTui((s) => s.mode === 'list');
  const asking = useTui((s) => s.requests.ids.length);
  // The rate moves with the minute buckets (and new spend), not with every second's tick.
  const minute = Math.floor(now / 60_000);
  const burn = useMemo(() => fleetRate(burns, minute * 60_000), [burns, minute]);

  const line1 = firstLine(home, conn, cluster, width, now, loaded, listMode);
  const line2 = secondLine({ counts, total, paused, burn, fleet, exceeded, holds, quotas, asking }, width, now);
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Line spans={line1} width={width} />
      <Line spans={line2} width={width} />
      {height > 2 && (configError || degraded || (warnings && warnings.length > 0)) ? (
        <Line spans={configSpans({ configError, warnings: warnings ?? [], degraded })} width={width} />
      ) : null}
    </Box>
  );
}
