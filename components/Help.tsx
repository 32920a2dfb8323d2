// `?`: every key (from the one key map), the status glyphs, and the themes.

import React from 'react';
import { Box } from 'ink';
import { Line, PaneTitle, useTui } from './context.js';
import type { Span } from '../src/tui/view/columns.js';
import { fit, STATUS_GLYPH, statusToken } from '../src/tui/view/format.js';
import { helpEntries } from '../src/tui/view/key-hints.js';
import { STATUSES } from '../src/tui/view/format.js';

export interface HelpProps {
  readonly width: number;
  readonly height: number;
  readonly themes: readonly string[];
  readonly theme: string;
}

export function helpLines(width: number, themes: readonly string[], theme: string, demo = false): Span[][] {
  const entries = helpEntries();
  const colW = 34;
  const perRow = Math.max(1, Math.floor((width - 2) / colW));
  const lines: Span[][] = [];
  for (let i = 0; i < entries.length; i += perRow) {
    const row: Span[] = [{ text: '  ', token: 'text.muted' }];
    for (const e of entries.slice(i, i + perRow)) {
      row.push({ text: fit(e.label, 8), token: 'focus' }, { text: fit(e.hint, colW - 8), token: 'text.primary' });
    }
    lines.push(row);
  }
  lines.push([]);
  const legend: Span[] = [{ text: '  ', token: 'text.muted' }];
  for (const st of STATUSES) legend.push({ text: `${STATUS_GLYPH[st]} ${st}   `, token: statusToken(st) });
  legend.push({ text: '⟳ loop (yellow warned, red detected)', token: 'meter.warn' });
  lines.push(legend);
  lines.push([
    { text: '  themes: ', token: 'text.muted' },
    ...themes.map((t): Span => ({ text: t === theme ? `[${t}] ` : `${t} `, token: t === theme ? 'focus' : 'text.primary' })),
    { text: '(t cycles; remembered in tui.json)', token: 'text.muted' },
  ]);
  lines.push([{ text: '  tab focuses the limiter, then the event log: j/k select a holder, waiter or event, enter opens its run, x/w/s act on it.', token: 'text.muted' }]);
  lines.push([
    {
      text: demo ? '  q ends this demo: its agents and supervisor stop and its throw-away home is removed.' : '  q quits the TUI only: agents keep running under the supervisor.',
      token: 'text.muted',
    },
  ]);
  lines.push([{ text: '  new run: -a PROVIDER -p PROMPT [-n NAME] [-w WORKLOAD] …  or  -- COMMAND ARGS (quotes work as in a shell)', token: 'text.muted' }]);
  return lines;
}

export function Help({ width, height, themes, theme }: HelpProps): React.JSX.Element {
  const demo = useTui((s) => s.demo);
  const scroll = useTui((s) => s.helpScroll);
  const lines = helpLines(width, themes, theme, demo);
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
