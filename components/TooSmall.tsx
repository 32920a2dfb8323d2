// A terminal too small for the panes: one short notice, wrapped to fit,
// instead of panes wrapped into fragments. Only q (and ctrl+c) work meanwhile.

import React from 'react';
import { Box } from 'ink';
import { Line } from './context.js';
import { tooSmallLines } from '../src/tui/view/too-small.js';

export interface TooSmallProps {
  readonly columns: number;
  readonly rows: number;
  /** A key other than q was pressed while this was shown. */
  readonly ignored?: boolean;
}

export function TooSmall({ columns, rows, ignored = false }: TooSmallProps): React.JSX.Element {
  const height = Math.max(1, rows - 1);
  return (
    <Box flexDirection="column" width={columns} height={height}>
      {tooSmallLines(columns, rows, ignored)
        .slice(0, height)
        .map((spans, i) => (
          <Line key={i} spans={spans} width={columns} />
        ))}
    </Box>
  );
}
