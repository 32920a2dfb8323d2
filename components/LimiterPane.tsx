// The limiter: every cap from `stats` as a meter with its holders and its
// waiting line. Focused, it lists each cap's holders and first waiters one
// per line, to select one and open its run. Names come from the runs the
// store knows, else from stats. A provider's usage windows ride on its cap's
// line, or on a line of their own where it has no cap.

import React from 'react';
import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { Line, PaneTitle, useStale, useTui } from './context.js';
import { capLabel, capLines, itemSpans, quotaLines } from '../src/tui/view/limiter.js';
import { limiterItems } from '../src/tui/model/limiter-items.js';
import { textWidth } from '../src/tui/view/format.js';
import type { Span } from '../src/tui/view/columns.js';

export interface LimiterPaneProps {
  readonly width: number;
  /** Lines below the title. */
  readonly body: number;
  /** Side pane: three lines per cap. */
  readonly detailed?: boolean;
}

export function LimiterPane({ width, body, detailed = false }: LimiterPaneProps): React.JSX.Element {
  const stats = useTui((s) => s.stats);
  // Only the names of the runs the caps list: the pane draws again when one of them
  // changes, not with every row of the fleet (every frame of a busy stream).
  const listed = useTui(
    useShallow((s) => {
      const out: Record<string, string> = {};
      for (const c of s.stats?.caps ?? []) {
        for (const u of c.holders) out[u] = s.runs.byId[u]?.name ?? '';
        for (const u of c.waiting) out[u] = s.runs.byId[u]?.name ?? '';
      }
      return out;
    }),
  );
  const now = useTui((s) => s.now);
  const focused = useTui((s) => s.pane === 'limiter');
  const offset = useTui((s) => s.limiterList.offset);
  const cursor = useTui((s) => (s.limiterKey === null ? -1 : s.limiterList.cursor));
  const stale = useStale();

  // A run the store does not hold (ended long ago, or not shown yet) still has a name in stats.
  const nameOf = (uuid: string): string => listed[uuid] || (stats?.names[uuid] ?? uuid.slice(0, 8));
  const caps = stats?.caps ?? [];
  const quotas = stats?.quotas ?? [];
  const labelWidth = Math.min(22, Math.max(6, ...caps.map((c) => textWidth(capLabel(c.cap)) + 1)));
  let right = stats ? `${stats.active} active · ${stats.queued} queued` : '';
  let content: React.JSX.Element[];
  if (stats === null) {
    content = [<Line key="none" spans={[{ text: '  waiting for stats…', token: 'text.muted' }]} width={width} />];
  } else if (focused) {
    const items = limiterItems(caps);
    const shown = items.slice(offset, offset + body);
    content = shown.map((it, i) => (
      <Line key={it.key} spans={itemSpans(it, nameOf, now, labelWidth, quotas)} width={width} inverse={offset + i === cursor} dim={stale} />
    ));
  } else {
    const lines: Span[][] = [];
    for (const c of caps) lines.push(...capLines(c, nameOf, now, labelWidth, detailed, width < 110, quotas));
    lines.push(...quotaLines(caps, quotas, now));
    if (lines.length > body) right += ` · ${body} of ${lines.length} lines (tab lists all)`;
    content = lines.slice(0, body).map((spans, i) => <Line key={i} spans={spans} width={width} dim={stale} />);
  }
  return (
    <Box flexDirection="column" width={width} height={body + 1}>
      <PaneTitle title="Limiter" width={width} focused={focused} right={right} />
      {content}
    </Box>
  );
}
