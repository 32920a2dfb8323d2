// `?`: every key (from the one key map) in columns that never touch, the
// status glyphs, and the themes. The lines are laid out by view/help.ts.

import React from 'react';
import { Box } from 'ink';
import { Line, PaneTitle, useTui } from './context.js';
import { helpEntries } from '../src/tui/view/key-hints.js';
import { helpLines } from '../src/tui/view/help.js';

export interface HelpProps {
  readonly width: number;
  readonly height: number;
  readonly themes: readonly string[];
  readonly theme: string;
  /** A user's theme file standing in for a built-in one, in words ('' when none). */
  readonly themeNote?: string;
}

export function Help({ width, height, themes, theme, themeNote }: HelpProps): React.JSX.Element {
  const demo = useTui((s) => s.demo);
  const scroll = useTui((s) => s.helpScroll);
  const lines = React.useMemo(() => helpLines(width, { entries: helpEntries(), themes, theme, themeNote, demo }), [width, themes, theme, themeNote, demo]);
  const body = Math.max(0, height - 1);
  const top = Math.max(0, Math.min(scroll, lines.length - body));
  const more = lines.length > body ? `${top + 1}-${Math.min(lines.length, top + body)} of ${lines.length} · j/k scroll · ` : '';
  return (
    <Box flexDirection="column" width={width} height={height}>
      <PaneTitle title="Help — keys" width={width} focused right={`${more}esc or ? closes`} />
      {lines.slice(top, top + body).map((spans, i) => (
        <Line key={i} spans={spans.length ? spans : [{ text: ' ', token: 'text.muted' }]} width={width} />
      ))}
    </Box>
  );
}
