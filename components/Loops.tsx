// `@`: the loops — schedule, next fire, last result, runs in flight — with one
// selected for `p` (pause/resume) and `f` (fire now). Renders the lines the
// view gives it; nothing else.

import React from 'react';
import { Box } from 'ink';
import { Line, PaneTitle, useTui } from './context.js';
import { emptyLoopsText, loopRowSpans, loopsHeader, loopsOffset } from '../src/tui/view/loops.js';

export interface LoopsProps {
  readonly width: number;
  readonly height: number;
}

export function Loops({ width, height }: LoopsProps): React.JSX.Element {
  const loops = useTui((s) => s.loops);
  const cursor = useTui((s) => s.loopsCursor);
  const now = useTui((s) => s.now);
  const rows = loops?.rows ?? [];
  const body = Math.max(0, height - 2);
  const offset = loopsOffset(cursor, body);
  return (
    <Box flexDirection="column" width={width} height={height}>
      <PaneTitle title={`Loops${loops ? ` · ${rows.length}` : ''}`} width={width} focused right="p pause/resume · f fire now · esc back" />
      <Line spans={loopsHeader(width)} width={width} />
      {rows.length === 0 ? <Line spans={[{ text: emptyLoopsText(loops), token: 'text.muted' }]} width={width} /> : null}
      {rows.slice(offset, offset + body).map((r, i) => (
        <Line key={r.name} spans={loopRowSpans(r, now, width)} width={width} inverse={offset + i === cursor} />
      ))}
    </Box>
  );
}
