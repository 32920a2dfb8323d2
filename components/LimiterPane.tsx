// The limiter: every cap from `stats` as a meter with its holders and its
// waiting line. Names come from the runs the store knows.

import React from 'react';
import { Box } from 'ink';
import { Line, PaneTitle, useStale, useTui } from './context.js';
import { capLabel, capLines } from '../src/tui/limiter.js';
import { textWidth } from '../src/tui/format.js';
import type { Span } from '../src/tui/columns.js';

export interface LimiterPaneProps {
  readonly width: number;
  /** Lines below the title. */
  readonly body: number;
  /** Side pane: three lines per cap. */
  readonly detailed?: boolean;
}

export function LimiterPane({ width, body, detailed = false }: LimiterPaneProps): React.JSX.Element {
  const stats = useTui((s) => s.stats);
  const byId = useTui((s) => s.runs.byId);
  const now = useTui((s) => s.now);
  const scroll = useTui((s) => s.limiterScroll);
  const focused = useTui((s) => s.pane === 'limiter');
  const stale = useStale();

  // A run the store does not hold (ended long ago, or not shown yet) still has a name in stats.
  const nameOf = (uuid: string): string => byId[uuid]?.name ?? stats?.names[uuid] ?? uuid.slice(0, 8);
  const caps = stats?.caps ?? [];
  const labelWidth = Math.min(22, Math.max(6, ...caps.map((c) => textWidth(capLabel(c.cap)) + 1)));
  const lines: Span[][] = [];
  for (const c of caps) lines.push(...capLines(c, nameOf, now, labelWidth, detailed, width < 110));
  const start = detailed ? Math.min(scroll * 3, Math.max(0, lines.length - body)) : Math.min(scroll, Math.max(0, lines.length - body));
  const visible = lines.slice(start, start + body);
  const right = stats ? `${stats.active} active · ${stats.queued} queued${lines.length > body ? ` · ${start + 1}-${start + visible.length}/${lines.length}` : ''}` : '';
  return (
    <Box flexDirection="column" width={width} height={body + 1}>
      <PaneTitle title="Limiter" width={width} focused={focused} right={right} />
      {stats === null ? <Line spans={[{ text: '  waiting for stats…', token: 'text.muted' }]} width={width} /> : visible.map((spans, i) => <Line key={start + i} spans={spans} width={width} dim={stale} />)}
    </Box>
  );
}
