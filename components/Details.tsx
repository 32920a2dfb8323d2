// `enter`: the selected run's whole record, its process group's CPU and
// memory, and its output as a transcript (the raw lines with `r`), followed
// as it grows. `esc` returns to the list.

import React from 'react';
import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { Line, PaneTitle, useStale, useTui } from './context.js';
import { detailLines } from '../src/tui/view/details.js';
import { queuedWhy } from '../src/tui/view/why.js';
import { detailsOutput } from '../src/tui/view/details-output.js';
import { rowToken } from '../src/tui/view/transcript-rows.js';
import { remoteDetailLines } from '../src/tui/view/fleet-details.js';
import { listedRun } from '../src/tui/view/fleet-rows.js';

export interface DetailsProps {
  readonly width: number;
  readonly height: number;
}

/** Lines of the record shown above the output (the rest of the height goes to the output tail). */
function recordHeight(total: number, height: number): number {
  return Math.min(total, Math.max(4, height - 6));
}

export function Details({ width, height }: DetailsProps): React.JSX.Element {
  const uuid = useTui((s) => s.selected);
  const run = useTui((s) => (s.selected ? listedRun(s, s.selected) : undefined));
  // Another machine's run: what its machine published of it (cluster scope).
  const face = useTui((s) => (s.selected ? s.fleet.faces[s.selected] : undefined));
  const pos = useTui((s) => (s.selected ? s.view.positions[s.selected] : undefined));
  const now = useTui((s) => s.now);
  const details = useTui(useShallow((s) => (s.details && s.details.uuid === uuid ? s.details : null)));
  const stats = useTui((s) => (run?.status === 'queued' ? s.stats : null));
  const stale = useStale();
  // The document grows in place: its version is what changes when lines arrive.
  const doc = useTui((s) => s.outputDoc);
  useTui((s) => s.outputVersion);

  if (!run) {
    return (
      <Box flexDirection="column" width={width} height={height}>
        <PaneTitle title="Details" width={width} focused />
        <Line spans={[{ text: '  no run selected (esc returns)', token: 'text.muted' }]} width={width} />
      </Box>
    );
  }
  if (face) {
    const lines = remoteDetailLines(face, run, now);
    return (
      <Box flexDirection="column" width={width} height={height}>
        <PaneTitle title={`Details: ${run.name}`} width={width} focused right={`on ${face.host} · esc back`} />
        {lines.slice(0, Math.max(1, height - 1)).map((spans, i) => (
          <Line key={i} spans={spans} width={width} dim={stale || face.stale} />
        ))}
      </Box>
    );
  }
  const record = detailLines(run, details, now, pos, queuedWhy(run, stats, pos, now));
  const recH = recordHeight(record.length, height - 2);
  const outH = Math.max(0, height - 2 - recH);
  const raw = details?.raw ?? false;
  const out = detailsOutput(doc && doc.uuid === uuid ? doc : null, raw, width, outH, details?.scroll ?? 0);
  return (
    <Box flexDirection="column" width={width} height={height}>
      <PaneTitle title={`Details: ${run.name}`} width={width} focused right="esc back" />
      {record.slice(0, recH).map((spans, i) => (
        <Line key={i} spans={spans} width={width} dim={stale} />
      ))}
      <PaneTitle title={out.title} width={width} right={out.right} />
      {out.shown.map((r, i) => (
        <Line key={i} spans={[{ text: r.text === '' ? ' ' : r.text, token: rowToken(r.style) }]} width={width} />
      ))}
    </Box>
  );
}
