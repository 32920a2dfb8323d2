// `$`: where the fleet's money and tokens went over its budget's window — by
// provider, by workload, and minute by minute over the last hour. Renders the
// lines the view gives it; nothing else.

import React from 'react';
import { Box } from 'ink';
import { Line, PaneTitle, useTui } from './context.js';
import { spendLines } from '../src/tui/view/spend.js';

export interface SpendProps {
  readonly width: number;
  readonly height: number;
}

export function Spend({ width, height }: SpendProps): React.JSX.Element {
  const spend = useTui((s) => s.spend);
  const lines = spend ? spendLines(spend, width) : [[{ text: '  reading the figures…', token: 'text.muted' as const }]];
  const window = spend ? (spend.window === 'all' ? 'all time' : `the last ${spend.window}`) : '';
  return (
    <Box flexDirection="column" width={width} height={height}>
      <PaneTitle title={`Spend${window ? ` · runs live in ${window}` : ''}`} width={width} focused right="$ or esc back" />
      {lines.slice(0, Math.max(0, height - 1)).map((spans, i) => (
        <Line key={i} spans={spans.length ? spans : [{ text: ' ', token: 'text.muted' }]} width={width} />
      ))}
    </Box>
  );
}
