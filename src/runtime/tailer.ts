// Follows an agent's output file from a byte offset and hands out whole lines.
//
// A file-change notification is only a hint (fs.watch coalesces and may drop
// events; chokidar ignores further changes for 50 ms after each one it
// reports, and falls behind a file that keeps growing): every read goes from
// our own offset to the current size, and a slow safety poll catches anything
// a notification missed. A descriptor is kept only while the file is being
// written to, and only for a few files at once (HELD_MAX, shared by every
// tailer of the process); an idle file's is let go (IDLE_MS): a thousand
// idle runs hold none (a supervisor's limit is often 1,024), and a file that
// is written to without pause is not opened again for every line. Lines are split on bytes, so a multi-byte character
// split across two reads is decoded whole.

import fs from 'node:fs';

/** Longest line we keep; the rest of a longer line is dropped and noted. */
export const MAX_LINE_BYTES = 1024 * 1024;
const READ_CHUNK = 256 * 1024;
/** Descriptors kept open between reads, by every tailer of this process together. */
const HELD_MAX = 64;
/** A descriptor kept this long without new data is let go (releaseIdle). */
const IDLE_MS = 5_000;
let held = 0;

export interface TailLine {
  text: string;
  /** Byte offset of the line's first byte: where a cut line can be read whole again (readLineAt). */
  start: number;
  /** Byte offset just past this line's newline: where a restart resumes. */
  end: number;
  /** The line was longer than MAX_LINE_BYTES and was cut. */
  truncated: boolean;
}

export class Tailer {
  private offset: number;
  private partial: Buffer[] = [];
  private partialLen = 0;
  private partialDropped = false;
  private watcher: fs.FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;
  /** Kept between reads while the file is written to (see HELD_MAX). */
  private fd: number | null = null;
  private lastDataAt = 0;

  constructor(
    readonly file: string,
    startOffset: number,
    private readonly onLines: (lines: TailLine[]) => void,
    private readonly pollMs = 500,
  ) {
    this.offset = startOffset;
  }

  /** @param watch  watch the file itself; false when the owner watches its directory and calls read(). */
  start(watch = true): void {
    try {
      if (watch) {
        this.watcher = fs.watch(this.file, { persistent: false }, () => this.read());
        this.watcher.on('error', () => undefined);
      }
    } catch {
      // The poll below still delivers every line.
    }
    // pollMs 0: the owner re-reads (one sweep for many tailers).
    if (this.pollMs > 0) {
      this.poll = setInterval(() => this.read(), this.pollMs);
      this.poll.unref();
    }
    this.read();
  }

  /**
   * Read everything available now; safe to call at any time (e.g. at process
   * exit). False when the file is there but could not be read (out of
   * descriptors, an I/O error): what it holds is still to come, and the
   * caller reads again later. A file not made yet is nothing to read (true).
   */
  read(): boolean {
    if (this.closed) return true;
    let fd = this.fd;
    if (fd === null) {
      try {
        fd = fs.openSync(this.file, 'r');
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'ENOENT';
      }
    }
    let got = false;
    try {
      let size = fs.fstatSync(fd).size;
      if (size < this.offset) {
        // Truncated under us: start over from the top rather than wait forever.
        this.offset = 0;
        this.resetPartial();
      }
      const lines: TailLine[] = [];
      while (this.offset + this.partialLen < size) {
        const pos = this.offset + this.partialLen;
        const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, size - pos));
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n <= 0) break;
        got = true;
        this.consume(buf.subarray(0, n), pos, lines);
        if (pos + n >= size) size = fs.fstatSync(fd).size;
      }
      if (lines.length > 0) this.onLines(lines);
      return true;
    } catch {
      // An I/O error mid-read: the next hint or poll retries from our offset.
      got = false;
      return false;
    } finally {
      this.keepOrClose(fd, got);
    }
  }

  /** Keep the descriptor of a file that had something to read, while there is room; else close it. */
  private keepOrClose(fd: number, got: boolean): void {
    if (got) this.lastDataAt = Date.now();
    if (this.fd === fd) {
      if (got || Date.now() - this.lastDataAt < IDLE_MS) return;
      this.fd = null;
      held--;
    } else if (got && held < HELD_MAX) {
      this.fd = fd;
      held++;
      return;
    }
    fs.closeSync(fd);
  }

  /** The bytes seen (whole lines and the partial one): a file longer than this has something to read. */
  get seen(): number {
    return this.offset + this.partialLen;
  }

  /** Let go of a descriptor kept for a file that has been quiet a while (the owner's sweep calls it). */
  releaseIdle(now = Date.now()): void {
    if (this.fd === null || now - this.lastDataAt < IDLE_MS) return;
    this.dropFd();
  }

  private dropFd(): void {
    if (this.fd === null) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = null;
    held--;
  }

  private consume(chunk: Buffer, chunkPos: number, out: TailLine[]): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        this.keepPartial(chunk.subarray(start));
        return;
      }
      this.keepPartial(chunk.subarray(start, nl));
      const end = chunkPos + nl + 1;
      let text = Buffer.concat(this.partial, Math.min(this.partialLen, MAX_LINE_BYTES)).toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      out.push({ text, start: this.offset, end, truncated: this.partialDropped });
      this.offset = end;
      this.resetPartial();
      start = nl + 1;
    }
  }

  private keepPartial(piece: Buffer): void {
    if (piece.length === 0) return;
    const room = MAX_LINE_BYTES - Math.min(this.partialLen, MAX_LINE_BYTES);
    if (room > 0) this.partial.push(Buffer.from(piece.subarray(0, room)));
    if (piece.length > room) this.partialDropped = true;
    // partialLen counts every byte seen (kept or not), so reads advance past dropped bytes.
    this.partialLen += piece.length;
  }

  private resetPartial(): void {
    this.partial = [];
    this.partialLen = 0;
    this.partialDropped = false;
  }

  /** Bytes after the last whole line: a final line without a newline, at exit. */
  flushPartial(): TailLine | null {
    if (this.partialLen === 0) return null;
    const text = Buffer.concat(this.partial).toString('utf8');
    const end = this.offset + this.partialLen;
    const line = { text, start: this.offset, end, truncated: this.partialDropped };
    this.offset = end;
    this.resetPartial();
    return line;
  }

  /**
   * A line of the file read whole, past MAX_LINE_BYTES, from `start` to its
   * newline (`end` as the tailer gave it), when it is at most `max` bytes:
   * for the few lines a reader must have whole. Null when it is longer, or
   * the file cannot be read.
   */
  static readLineAt(file: string, start: number, end: number, max: number): string | null {
    const length = end - start - 1;
    if (length < 0 || length > max) return null;
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      return null;
    }
    try {
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const n = fs.readSync(fd, buf, got, length - got, start + got);
        if (n === 0) return null;
        got += n;
      }
      const text = buf.toString('utf8');
      return text.endsWith('\r') ? text.slice(0, -1) : text;
    } catch {
      return null;
    } finally {
      fs.closeSync(fd);
    }
  }

  get position(): number {
    return this.offset;
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.poll) clearInterval(this.poll);
    this.dropFd();
  }
}
