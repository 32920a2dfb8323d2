// The pager's document for enter/v in the approvals queue: a request's whole
// input, as the supervisor gave it when asked (a snapshot: it never grows).
// Rows are made once per width.

import { inputRows, type InputRow } from '../model/request-input.js';

export class InputDoc {
  private cache: { width: number; rows: InputRow[] } | null = null;

  constructor(
    /** The request's id. */
    readonly id: number,
    readonly input: unknown,
    /** approval.get cut its JSON at 1 MiB: `input` is the text it kept. */
    readonly truncated: boolean,
  ) {}

  rows(_view: string, width: number): InputRow[] {
    if (this.cache?.width !== width) this.cache = { width, rows: inputRows(this.id, this.input, this.truncated, width) };
    return this.cache.rows;
  }

  /** No tool results in an input. */
  resultsIn(): number[] {
    return [];
  }
}
