// What the transcript pager shows and where it stands: the run, the view,
// the first row on screen or following the end, the search and its match,
// the tool results expanded; and the document it pages. The store holds
// these, pager.ts moves them, model/doc-window.ts says which rows show.

import type { DiffDoc } from './diff-doc.js';
import type { InputDoc } from './input-doc.js';
import type { PagerView, TranscriptDoc } from './transcript-doc.js';

export interface PagerState {
  uuid: string;
  name: string;
  view: PagerView;
  /** First row shown when not following. */
  top: number;
  /** Showing the end, and staying there as rows arrive. */
  follow: boolean;
  search: string;
  /** The row of the last match found, for highlighting. */
  match: number | null;
  /** Tool results (entry indexes) shown whole. */
  expanded: number[];
  /** Bumped when the document grows, so the pager redraws. */
  version: number;
  /** Where esc goes: details for a transcript; the list or details for a diff (`d` opens it from either); the queue for a request's input. */
  back?: 'details' | 'list' | 'approvals';
  /** The request whose input it shows (view `input`). */
  request?: number;
}

/** What the pager pages: a transcript (fed as the run writes), a diff or a request's input. */
export type PagerDoc = TranscriptDoc | DiffDoc | InputDoc;
