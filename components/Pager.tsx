// `v` in details: the run's transcript full-screen — scrolled with j/k,
// PgUp/PgDn, g/G (G follows the end while the run works), searched with /,
// n and N, the raw lines (r) or stderr (e) a key away, tool results expanded
// with enter. `d` shows a run's diff in it the same way (scroll, search).
// Renders the rows the view gives it; nothing else.

import React from 'react';
import { Box, Text } from 'ink';
import { Line, PaneTitle, useTui } from './context.js';
import { followed, pagerRight, pagerTitle, READING, rowToken } from '../src/tui/view/transcript-rows.js';
import { pagerWindow } from '../src/tui/model/doc-window.js';

export interface PagerProps {
  readonly width: number;
  readonly height: number;
}

export function Pager({ width, height }: PagerProps): React.JSX.Element {
  const pager = useTui((s) => s.pager);
  const doc = useTui((s) => s.pagerDoc);
  const working = useTui((s) => (s.pager && followed(s.pager.view) ? s.runs.byId[s.pager.uuid]?.status !== 'ended' : false));
  const body = Math.max(1, height - 1);
  if (!pager || !doc) {
    return (
      <Box flexDirection="column" width={width} height={height}>
        <PaneTitle title={pager ? pagerTitle(pager.name, pager.view) : 'Transcript'} width={width} focused right="esc back" />
        <Line spans={[{ text: `  reading ${READING[pager?.view ?? 'transcript']}…`, token: 'text.muted' }]} width={width} />
      </Box>
    );
  }
  const { rows, top } = pagerWindow(doc, pager, width, body);
  const shown = rows.slice(top, top + body);
  const needle = pager.search.toLowerCase();
  return (
    <Box flexDirection="column" width={width} height={height}>
      <PaneTitle
        title={pagerTitle(pager.name, pager.view)}
        width={width}
        focused
        right={pagerRight(top, shown.length, rows.length, pager.follow, working, 'loading' in doc ? doc.loading : null)}
      />
      {shown.length === 0 ? (
        <Line
          spans={[
            {
              text: pager.view === 'stderr' ? '  nothing on stderr' : pager.view === 'diff' ? '  no changes against its base' : '  no output yet',
              token: 'text.muted',
            },
          ]}
          width={width}
        />
      ) : null}
      {shown.map((r, i) => (
        <Line
          key={i}
          spans={[{ text: r.text === '' ? ' ' : r.text, token: rowToken(r.style) }]}
          width={width}
          inverse={needle !== '' && top + i === pager.match && r.text.toLowerCase().includes(needle)}
        />
      ))}
      {shown.length < body ? <Text> </Text> : null}
    </Box>
  );
}
