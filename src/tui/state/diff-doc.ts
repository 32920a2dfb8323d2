// The pager's document for `d`: a run's diff against its base, as the
// supervisor read it when the view opened (a diff is a snapshot: it is not
// followed). Rows are made once per width.

import { diffRows, type DiffRow } from '../model/diff.js';

export class DiffDoc {
  private cache: { width: number; rows: DiffRow[] } | null = null;

  constructor(
    readonly uuid: string,
    readonly text: string,
  ) {}

  rows(_view: string, width: number): DiffRow[] {
    if (this.cache?.width !== width) this.cache = { width, rows: diffRows(this.text, width) };
    return this.cache.rows;
  }

  /** No tool results in a diff. */
  resultsIn(): number[] {
    return [];
  }
}
