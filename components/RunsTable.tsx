// The main pane: one line per run, only the visible window rendered. Each
// row selects its own record, so a usage event re-renders one row.

import React, { memo, useMemo } from 'react';
import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import type { TuiState } from '../src/tui/state/store.js';
import { Line, PaneTitle, useStale, useTui } from './context.js';
import { headerSpans, layoutColumns, rowSpans, type Column } from '../src/tui/view/columns.js';
import { queuedWhy } from '../src/tui/view/why.js';
import { sortWords, statusToken } from '../src/tui/view/format.js';
import { rateOf } from '../src/tui/view/burn.js';
import { listBody, olderLine } from '../src/tui/view/older.js';
import { clock } from '../src/tui/model/numbers.js';
import { listedRun, remoteWhy, staleMachine as staleOf } from '../src/tui/view/fleet-rows.js';

export interface RunsTableProps {
  readonly width: number;
  /** Rows of runs shown (the pane is two lines taller: title and column header). */
  readonly body: number;
}

interface RowProps {
  readonly uuid: string;
  readonly cols: readonly Column[];
  readonly width: number;
  readonly selected: boolean;
  readonly stale: boolean;
}

interface RowData {
  run: TuiState['runs']['byId'][string] | undefined;
  pos: number | undefined;
  now: number;
  stats: TuiState['stats'];
  why: ReturnType<typeof queuedWhy>;
  need: TuiState['view']['attention'][string] | null;
  tagged: boolean;
  burn: TuiState['burn'][string] | undefined;
  depth: number;
  folded: number | undefined;
  /** In cluster scope: the run's machine, and whether it has stopped answering; null otherwise. */
  host: string | null;
  staleMachine: boolean;
}

/**
 * Everything a row shows, in one selector that hands back the same object
 * while none of it changed: every store change runs each row's selectors (at
 * hundreds of events a second, a frame's worth of them per row), and the
 * queued run's WHY is worked out only when its run, the stats, its place or
 * the clock moved.
 */
function rowSelector(uuid: string): (s: TuiState) => RowData {
  let last: RowData | null = null;
  return (s) => {
    const run = listedRun(s, uuid);
    const face = s.fleet.faces[uuid];
    const host = s.scope === 'cluster' ? (face?.host ?? s.fleet.host ?? '') : null;
    const staleMachine = face !== undefined && staleOf(s, uuid);
    const pos = s.view.positions[uuid];
    const need = s.view.attention[uuid] ?? null;
    const tagged = s.tagged[uuid] === true;
    const burn = s.burn[uuid];
    const depth = s.view.depth?.[uuid] ?? 0;
    const folded = s.view.folded?.[uuid];
    const same =
      last !== null &&
      last.run === run &&
      last.pos === pos &&
      last.now === s.now &&
      last.need === need &&
      last.tagged === tagged &&
      last.burn === burn &&
      last.depth === depth &&
      last.folded === folded &&
      last.host === host &&
      last.staleMachine === staleMachine;
    if (last && same && last.stats === s.stats) return last;
    // Short: the row's PROVIDER column names the provider a limit holds.
    // Another machine's run says why in its machine's words (this machine's stats know nothing of its queue).
    const published = face ? remoteWhy(face, s.now) : null;
    let why = face
      ? published
        ? { text: published, token: statusToken(face.status) }
        : null
      : run?.status === 'queued'
        ? queuedWhy(run, s.stats, pos, s.now, { short: true }, (u) => s.runs.byId[u])
        : null;
    // The same words keep the same object: the row need not draw again for a stats poll that changed nothing it says.
    if (last?.why && why && why.text === last.why.text && why.token === last.why.token) why = last.why;
    // Only the stats moved, and nothing the row shows: keep the row as it is.
    if (last && same && last.why === why) {
      last.stats = s.stats;
      return last;
    }
    last = { run, pos, now: s.now, stats: s.stats, why, need, tagged, burn, depth, folded, host, staleMachine };
    return last;
  };
}

const RunRow = memo(function RunRow({ uuid, cols, width, selected, stale }: RowProps): React.JSX.Element | null {
  const select = useMemo(() => rowSelector(uuid), [uuid]);
  const { run, pos, now, why, need, tagged, burn, depth, folded, host, staleMachine } = useTui(select);
  if (!run) return null;
  const tree = depth > 0 || folded !== undefined ? { depth, folded } : null;
  const machine = host !== null ? { host, stale: staleMachine } : null;
  return (
    <Line
      spans={rowSpans(run, cols, now, pos, selected, why, need, tagged, burn ? rateOf(burn, now) : null, tree, machine)}
      width={width}
      inverse={selected}
      bold={tagged}
      dim={stale || staleMachine}
    />
  );
});

/** The MACHINE column's width in cluster scope (its longest host, `stale` included), 0 in this machine's. */
function machineWidth(s: TuiState): number {
  if (s.scope !== 'cluster') return 0;
  let w = (s.fleet.host ?? '').length;
  for (const m of s.fleet.machines) w = Math.max(w, m.host.length + (m.stale ? 8 : 0));
  return Math.max(1, w);
}

/** Which runs the pane lists, when the home is in a cluster: ` · this machine`, ` · cluster dev (3 machines)`. */
function scopeTitle(s: TuiState): string {
  if (s.scope === 'cluster') {
    const n = s.fleet.machines.length;
    return ` · cluster ${s.fleet.cluster ?? ''} (${n} machine${n === 1 ? '' : 's'})`;
  }
  // In a cluster, the key that shows the rest is said where the scope is.
  return s.stats?.cluster ? ' · this machine (m: cluster)' : '';
}

export function RunsTable({ width, body: paneBody }: RunsTableProps): React.JSX.Element {
  const older = useTui(olderLine);
  const body = listBody(paneBody, older !== null);
  const waiting = useTui((s) => s.view.counts.queued > 0);
  const worktrees = useTui((s) => s.view.worktrees === true);
  const needy = useTui((s) => Object.keys(s.view.attention).length);
  const machines = useTui(machineWidth);
  const cols = useMemo(() => layoutColumns(width, waiting, worktrees, needy > 0, machines), [width, waiting, worktrees, needy > 0, machines]);
  const scope = useTui(scopeTitle);
  const viewStale = useTui((s) => (s.scope === 'cluster' && s.fleet.staleSince !== null ? s.fleet.staleSince : null));
  const offset = useTui((s) => s.list.offset);
  const cursor = useTui((s) => s.list.cursor);
  const visible = useTui(useShallow((s) => s.view.ids.slice(s.list.offset, s.list.offset + body)));
  const shown = useTui((s) => s.view.ids.length);
  const total = useTui((s) => s.view.total);
  const filter = useTui((s) => s.filter);
  const showAll = useTui((s) => s.showAll);
  const sort = useTui((s) => s.sort);
  const tags = useTui((s) => Object.keys(s.tagged).length);
  const focused = useTui((s) => s.pane === 'runs');
  const loaded = useTui((s) => s.loaded);
  const stale = useStale();

  const right = [
    viewStale !== null ? `fleet view stale since ${clock(viewStale)}` : '',
    tags > 0 ? `${tags} tagged` : '',
    needy > 0 ? `${needy} need${needy === 1 ? 's' : ''} you` : '',
    filter ? `filter "${filter}"` : '',
    showAll ? 'all' : 'active only',
    sort.key === 'status' && !sort.reverse && !sort.group ? '' : `by ${sortWords(sort)}`,
    shown > body ? `${offset + 1}-${Math.min(shown, offset + body)} of ${shown}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
  let empty: string | null = null;
  if (shown === 0) {
    if (!loaded) empty = 'loading…';
    else if (total === 0) empty = 'no runs yet — press n to start one';
    else if (filter) empty = `no runs match "${filter}" (esc clears the filter)`;
    else empty = 'no active runs (a shows all)';
  }
  return (
    <Box flexDirection="column" width={width} height={paneBody + 2}>
      <PaneTitle title={`Runs${scope} ${shown}/${total}`} width={width} focused={focused} right={right} />
      <Line spans={headerSpans(cols)} width={width} />
      {empty !== null ? (
        <Line spans={[{ text: `  ${empty}`, token: 'text.muted' }]} width={width} />
      ) : (
        visible.map((uuid, i) => <RunRow key={uuid} uuid={uuid} cols={cols} width={width} selected={offset + i === cursor} stale={stale} />)
      )}
      {older !== null && paneBody > 1 ? <Line spans={[{ text: `  ${older}`, token: 'text.muted' }]} width={width} /> : null}
    </Box>
  );
}
