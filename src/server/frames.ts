// The socket's framing, on the supervisor's side: requests are lines of UTF-8
// cut from a byte stream, each at most MAX_FRAME_BYTES bytes (bytes, not
// characters: a line of three-byte characters is three times its length) and
// nested at most MAX_NESTING levels deep (the JSON parser and every reader
// after it recurse; a line of 100,000 "[" would end in a stack overflow).

import { MAX_FRAME_BYTES } from '../protocol/wire.js';

const NEWLINE = 0x0a;

/** Lines out of a stream of chunks; `tooLarge` once a line passes `max` bytes (the stream is then done for). */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly max = MAX_FRAME_BYTES) {}

  /** Part of a line is held, its newline not yet come: a request half sent. */
  get holding(): boolean {
    return this.pendingBytes > 0;
  }

  push(chunk: Buffer): { lines: string[]; tooLarge: boolean } {
    const lines: string[] = [];
    let start = 0;
    // 0x0a never occurs inside a multi-byte UTF-8 sequence: cutting bytes there keeps every character whole.
    for (let nl = chunk.indexOf(NEWLINE, start); nl >= 0; nl = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.pendingBytes + piece.length > this.max) return { lines, tooLarge: true };
      lines.push((this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : piece).toString('utf8'));
      this.pending = [];
      this.pendingBytes = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.max) return { lines, tooLarge: true };
    if (rest.length > 0) this.pending.push(rest);
    return { lines, tooLarge: false };
  }
}

/** The id of a request that will not be parsed, when it leads the line as orcr's clients write it (`{"id":7,…`). */
export function leadingId(text: string): number | null {
  const m = /^\s*\{\s*"id"\s*:\s*(\d{1,15})\s*[,}]/.exec(text);
  return m ? Number(m[1]) : null;
}
