// `!`: the agents' requests waiting for a person, oldest first across the
// fleet, and under them the selected one — its tool and what it asks, the
// rule "always" would add, its deadline, a question's options — answered
// with y, n, A or a digit. Renders the lines the view gives it; nothing else.

import React from 'react';
import { Box } from 'ink';
import { Line, PaneTitle, useTui } from './context.js';
import { requestLabel } from '../src/tui/model/fleet-names.js';
import { emptyQueueText, queueColumns, queueHeader, queueOffset, queueRowSpans, requestLines } from '../src/tui/view/approvals.js';

export interface ApprovalsProps {
  readonly width: number;
  readonly height: number;
}

/** Rows the list keeps however long the selected request's lines are. */
const LIST_MIN = 3;

export function Approvals({ width, height }: ApprovalsProps): React.JSX.Element {
  const requests = useTui((s) => s.requests);
  const queue = useTui((s) => s.queue);
  const now = useTui((s) => s.now);
  const rows = requests.ids.map((id) => requests.byId[id]!);
  const sel = queue.selected === null ? undefined : requests.byId[queue.selected];
  const detail = sel ? requestLines(sel, queue, now) : [];
  // The selected request right under the list; the list keeps a few rows, the request's lines take what is left.
  const room = Math.max(1, height - 2);
  const detailH = sel ? Math.min(detail.length + 1, Math.max(0, room - Math.min(rows.length, LIST_MIN))) : 0;
  const body = Math.max(1, Math.min(Math.max(1, rows.length), room - detailH));
  const offset = queueOffset(queue.cursor, body);
  const tagged = Object.keys(queue.tagged).length;
  const cols = queueColumns(width, rows);
  const title = `Approvals · ${rows.length === 0 ? 'none' : rows.length} waiting`;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <PaneTitle title={title} width={width} focused right={`${tagged ? `${tagged} tagged · ` : ''}! or esc back`} />
      <Line spans={queueHeader(cols)} width={width} />
      {rows.length === 0 ? <Line spans={[{ text: emptyQueueText(), token: 'text.muted' }]} width={width} /> : null}
      {rows.slice(offset, offset + body).map((r) => (
        <Line key={r.id} spans={queueRowSpans(r, cols, queue, now)} width={width} inverse={r.id === queue.selected} />
      ))}
      {sel && detailH > 0 ? (
        <PaneTitle title={`${requestLabel(sel)} · ${sel.question ? 'question' : sel.tool || 'tool'}${sel.host ? ` · on ${sel.host}` : ''}`} width={width} />
      ) : null}
      {detail.slice(0, Math.max(0, detailH - 1)).map((spans, i) => (
        <Line key={i} spans={spans} width={width} />
      ))}
    </Box>
  );
}
