// The details view's output pane: the run's transcript (what `v` pages and
// `orcr logs --pretty` prints: the same document, the same rows), or its raw
// lines on request (`r`); the last rows that fit, scrolled up on request,
// and the pane's title. Pure: the Details component draws what this gives.

import type { Row } from '../../text/transcript-lines.js';
import type { TranscriptDoc } from '../state/transcript-doc.js';
import { outputRows } from '../model/doc-window.js';

export interface DetailsOutput {
  /** The rows on screen, oldest first. */
  shown: Row[];
  /** Every row of the view (for scrolling). */
  total: number;
  title: string;
  right: string;
}

export function detailsOutput(doc: TranscriptDoc | null, raw: boolean, width: number, height: number, scroll: number): DetailsOutput {
  if (!doc) return { shown: [], total: 0, title: 'Output', right: 'reading…' };
  const rows = outputRows(doc, raw, width);
  const end = Math.max(0, rows.length - scroll);
  const shown = rows.slice(Math.max(0, end - Math.max(0, height)), end);
  const lines = doc.raw.length;
  let title: string;
  if (doc.loading)
    title = `${raw ? 'Raw output' : 'Transcript'} · reading ${doc.loading.read.toLocaleString('en-US')} of ${doc.loading.total.toLocaleString('en-US')} lines…`;
  else if (lines === 0) title = raw ? 'Raw output (none yet)' : 'Transcript (nothing yet)';
  else if (rows.length === 0) title = 'Transcript (nothing to read yet; r: raw lines)';
  else title = raw ? `Raw output, ${lines.toLocaleString('en-US')} line${lines === 1 ? '' : 's'} (r: transcript)` : 'Transcript (r: raw lines)';
  const right = scroll > 0 ? `scrolled ${scroll} up · G follows` : doc.isEnded ? 'end' : 'following';
  return { shown, total: rows.length, title, right };
}
