// Which rows of a document a screen shows: the pager's window over its
// document and the rows of details' output. The store moves over them
// (scrolling, search, expanding results) and the view draws them, so both
// read them from here; the documents themselves are the store's.

/** A document that lays each of its views out as rows at a width (a transcript, a diff). */
export interface RowSource<V extends string, R> {
  rows(view: V, width: number, expanded: readonly number[]): R[];
}

/** Where a pager stands over its document. */
export interface WindowAt<V extends string> {
  view: V;
  /** First row shown when not following. */
  top: number;
  /** Showing the end, and staying there as rows arrive. */
  follow: boolean;
  expanded: readonly number[];
}

/** The rows a document (or any of a union of documents: a transcript or a diff) lays out. */
export type RowOf<D extends RowSource<never, unknown>> = ReturnType<D['rows']>[number];

/** Rows of the view now showing, and the first row on screen (the last page while following). */
export function pagerWindow<V extends string, D extends RowSource<V, unknown>>(
  doc: D,
  p: WindowAt<V>,
  width: number,
  height: number,
): { rows: RowOf<D>[]; top: number } {
  const rows = doc.rows(p.view, width, p.expanded) as RowOf<D>[];
  const maxTop = Math.max(0, rows.length - Math.max(1, height));
  return { rows, top: p.follow ? maxTop : Math.min(p.top, maxTop) };
}

/** Every row of details' output at a width: the transcript, or the raw lines (`r`). */
export function outputRows<R>(doc: RowSource<'transcript' | 'raw', R> | null, raw: boolean, width: number): R[] {
  return doc ? doc.rows(raw ? 'raw' : 'transcript', width, []) : [];
}
