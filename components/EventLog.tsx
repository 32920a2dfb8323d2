// The journal's recent events, newest last, scrollable. The ring buffer
// keeps the last LOG_CAPACITY entries; only the visible slice is rendered.

import React from 'react';
import { Box } from 'ink';
import { Line, PaneTitle, useStale, useTui } from './context.js';
import { fit } from '../src/tui/view/format.js';
import { clock } from '../src/tui/model/numbers.js';
import type { LogEntry } from '../src/tui/state/event-log.js';
import type { Span } from '../src/tui/view/columns.js';

export interface EventLogProps {
  readonly width: number;
  readonly body: number;
}

function eventSpans(e: LogEntry, nameWidth: number): Span[] {
  return [
    { text: clock(e.ts) + ' ', token: 'text.muted' },
    { text: fit(e.type, 14) + ' ', token: e.token },
    { text: fit(e.name ?? (e.run ? e.run.slice(0, 8) : '—'), nameWidth) + ' ', token: 'text.primary' },
    { text: e.text, token: e.token === 'event.transition' ? 'text.muted' : e.token },
  ];
}

export function EventLog({ width, body }: EventLogProps): React.JSX.Element {
  const log = useTui((s) => s.log);
  useTui((s) => s.logVersion); // re-render when entries arrive
  const scroll = useTui((s) => s.logScroll);
  const focused = useTui((s) => s.pane === 'events');
  const cursor = useTui((s) => s.logCursor);
  const stale = useStale();
  const items = log.window(body, scroll);
  // The window's last line is `scroll` lines from the newest.
  const fromEnd = (i: number): number => scroll + items.length - 1 - i;
  const nameWidth = width >= 100 ? 24 : 16;
  // A selected line other than the newest holds the view where it is, as scrolling up does.
  const right = scroll > 0 ? `scrolled ${scroll} up · G follows` : cursor > 0 ? `${cursor} up selected · G follows` : log.size > 0 ? 'following' : '';
  return (
    <Box flexDirection="column" width={width} height={body + 1}>
      <PaneTitle title={`Events ${log.size}`} width={width} focused={focused} right={right} />
      {items.length === 0 ? (
        <Line spans={[{ text: '  no events yet', token: 'text.muted' }]} width={width} />
      ) : (
        items.map((e, i) => <Line key={e.seq} spans={eventSpans(e, nameWidth)} width={width} dim={stale} inverse={focused && fromEnd(i) === cursor} />)
      )}
    </Box>
  );
}
