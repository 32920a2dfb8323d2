// The pager's document: a run's output as transcript entries, its raw lines
// and its stderr, fed line by line as the connection reads them, and the
// rows each view takes at a width. Rows are rendered once and extended as
// lines arrive (an index of rendered entries): scrolling never re-reads the
// file or re-parses a line. Mutable like the event log's Ring; the store
// holds it with a version that changes when it grows.

import { createTranscript, type Entry, type InputRecord, type TranscriptBuilder } from '../../agents/transcript.js';
import type { Protocol } from '../../core/types.js';
import { entryRows, rawRows, type Row } from '../../text/transcript-lines.js';

/** What the pager shows: a transcript's three views, a run's diff (`d`, a DiffDoc) or a request's input (enter in the approvals queue, an InputDoc). */
export type PagerView = 'transcript' | 'raw' | 'stderr' | 'diff' | 'input';

/** A view of a run's output, followed as it grows (the others are snapshots read once). */
export const isTranscript = (v: PagerView): boolean => v === 'transcript' || v === 'raw' || v === 'stderr';

interface RowCache {
  key: string;
  rows: Row[];
  /** Items (entries, raw lines) rendered so far. */
  done: number;
  /** The first row of each rendered entry (transcript view). */
  starts: number[];
}

export class TranscriptDoc {
  readonly entries: Entry[] = [];
  readonly raw: string[] = [];
  readonly stderr: string[] = [];
  /** Output lines parsed so far of those read, while the rest is still being parsed; null once all are in. */
  loading: { read: number; total: number } | null = null;
  private readonly builder: TranscriptBuilder;
  private ended = false;
  private cache: RowCache | null = null;

  constructor(
    readonly uuid: string,
    protocol: Protocol | null,
    inputs: readonly InputRecord[] = [],
  ) {
    this.builder = createTranscript(protocol, { inputs });
  }

  /** New output lines (whole ones), with the inputs as recorded by now. */
  push(lines: readonly string[], inputs?: readonly InputRecord[]): void {
    if (inputs) this.builder.setInputs(inputs);
    for (const l of lines) {
      this.raw.push(l);
      this.entries.push(...this.builder.line(l));
    }
  }

  pushStderr(lines: readonly string[]): void {
    this.stderr.push(...lines);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** The run ended: what the adapter held back. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.entries.push(...this.builder.end());
  }

  /** Every row of a view at a width; rendered once, extended as the document grows. */
  rows(view: PagerView, width: number, expanded: readonly number[]): Row[] {
    const c = this.cacheFor(view, width, expanded);
    if (view === 'transcript') {
      const open = new Set(expanded);
      for (; c.done < this.entries.length; c.done++) {
        c.starts.push(c.rows.length);
        for (const r of entryRows(this.entries[c.done]!, width, open.has(c.done))) c.rows.push(r);
      }
    } else {
      const lines = view === 'raw' ? this.raw : this.stderr;
      for (; c.done < lines.length; c.done++) for (const r of rawRows(lines[c.done]!, width)) c.rows.push(r);
    }
    return c.rows;
  }

  /** Tool results (entry indexes) whose rows start in [from, to) of the transcript view as last rendered. */
  resultsIn(from: number, to: number): number[] {
    const c = this.cache;
    if (!c || !c.key.startsWith('transcript|')) return [];
    const out: number[] = [];
    for (let i = lowerBound(c.starts, from); i < c.starts.length && c.starts[i]! < to; i++) {
      if (this.entries[i]?.kind === 'tool_result') out.push(i);
    }
    return out;
  }

  private cacheFor(view: PagerView, width: number, expanded: readonly number[]): RowCache {
    const key = `${view}|${width}|${view === 'transcript' ? expanded.join(',') : ''}`;
    if (this.cache?.key !== key) this.cache = { key, rows: [], done: 0, starts: [] };
    return this.cache;
  }
}

function lowerBound(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
