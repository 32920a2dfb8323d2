// The main pane: one line per run, only the visible window rendered. Each
// row selects its own record, so a usage event re-renders one row.

import React, { memo, useMemo } from 'react';
import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { Line, PaneTitle, useStale, useTui } from './context.js';
import { headerSpans, layoutColumns, rowSpans, type Column } from '../src/tui/view/columns.js';
import { queuedWhy } from '../src/tui/view/why.js';
import { sortWords } from '../src/tui/view/format.js';
import { rateOf } from '../src/tui/view/burn.js';
import { listBody, olderLine } from '../src/tui/view/older.js';

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

const RunRow = memo(function RunRow({ uuid, cols, width, selected, stale }: RowProps): React.JSX.Element | null {
  const run = useTui((s) => s.runs.byId[uuid]);
  const pos = useTui((s) => s.view.positions[uuid]);
  const now = useTui((s) => s.now);
  // What holds a queued row, as text: the row draws again only when that text changes, not with every stats poll.
  const why = useTui(
    useShallow((s) => {
      const r = s.runs.byId[uuid];
      return r?.status === 'queued' ? queuedWhy(r, s.stats, s.view.positions[uuid], s.now) : null;
    }),
  );
  const need = useTui((s) => s.view.attention[uuid] ?? null);
  const tagged = useTui((s) => s.tagged[uuid] === true);
  const burn = useTui((s) => s.burn[uuid]);
  const depth = useTui((s) => s.view.depth?.[uuid] ?? 0);
  const folded = useTui((s) => s.view.folded?.[uuid]);
  if (!run) return null;
  const tree = depth > 0 || folded !== undefined ? { depth, folded } : null;
  return <Line spans={rowSpans(run, cols, now, pos, selected, why, need, tagged, burn ? rateOf(burn, now) : null, tree)} width={width} inverse={selected} bold={tagged} dim={stale} />;
});

export function RunsTable({ width, body: paneBody }: RunsTableProps): React.JSX.Element {
  const older = useTui(olderLine);
  const body = listBody(paneBody, older !== null);
  const waiting = useTui((s) => s.view.counts.queued > 0);
  const worktrees = useTui((s) => s.view.worktrees === true);
  const cols = useMemo(() => layoutColumns(width, waiting, worktrees), [width, waiting, worktrees]);
  const offset = useTui((s) => s.list.offset);
  const cursor = useTui((s) => s.list.cursor);
  const visible = useTui(useShallow((s) => s.view.ids.slice(s.list.offset, s.list.offset + body)));
  const shown = useTui((s) => s.view.ids.length);
  const total = useTui((s) => s.view.total);
  const filter = useTui((s) => s.filter);
  const showAll = useTui((s) => s.showAll);
  const sort = useTui((s) => s.sort);
  const needy = useTui((s) => Object.keys(s.view.attention).length);
  const tags = useTui((s) => Object.keys(s.tagged).length);
  const focused = useTui((s) => s.pane === 'runs');
  const loaded = useTui((s) => s.loaded);
  const stale = useStale();

  const right = [
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
      <PaneTitle title={`Runs ${shown}/${total}`} width={width} focused={focused} right={right} />
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
