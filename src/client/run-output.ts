// A run's output file as a client reads it (`orcr logs`, the TUI's details):
// where it is, its last lines in one bounded read from the end, all of it,
// and a follower that hands out whole new lines as it grows. Read-only: a
// client never writes, truncates or locks a run's files (the supervisor's own
// tailer, which records offsets, is src/runtime/tailer.ts).

import fs from 'node:fs';
import path from 'node:path';

export function outputFile(homeDir: string, uuid: string): string {
  return path.join(homeDir, 'runs', uuid, 'out');
}

export interface Tail {
  /** The last lines as written (a CRLF line keeps its \r). */
  lines: string[];
  /** File size when read, so a caller can skip re-reading an unchanged file. */
  size: number;
  missing: boolean;
}

/** The last `maxLines` lines, reading at most `maxBytes` from the end: a huge log costs one bounded read. */
export function readTail(file: string, maxLines = 200, maxBytes = 256 * 1024): Tail {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return { lines: [], size: 0, missing: true };
  }
  try {
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, maxBytes);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    let text = buf.toString('utf8');
    if (len < size) text = text.slice(text.indexOf('\n') + 1); // drop the partial first line
    const lines = text.split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return { lines: lines.slice(-maxLines), size, missing: false };
  } finally {
    fs.closeSync(fd);
  }
}

/** Every line (none for a missing file); a last line without its newline counts. */
export function readLines(file: string): string[] {
  return readAll(file).lines;
}

/**
 * Every line, and the offset just past the last whole one, from one read:
 * where a follower picks up without missing or repeating a line written meanwhile.
 */
export function readAll(file: string): { lines: string[]; wholeEnd: number } {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return { lines: [], wholeEnd: 0 };
  }
  const lines = buf.toString('utf8').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return { lines, wholeEnd: buf.lastIndexOf(10) + 1 };
}

/** Longest line kept whole; the rest of a longer line is dropped. */
const MAX_LINE_BYTES = 1024 * 1024;
const READ_CHUNK = 256 * 1024;

/**
 * Follows a growing output file from a byte offset. A change notification is
 * only a hint (fs.watch coalesces and may miss): every read goes from our own
 * offset to the current size, and a poll catches what a notification missed.
 * Lines are cut on bytes, so a character split across two reads comes out whole.
 */
export class OutputFollower {
  private offset: number;
  private partial: Buffer[] = [];
  private partialLen = 0;
  private watcher: fs.FSWatcher | null = null;
  private poll: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    readonly file: string,
    startOffset: number,
    private readonly onLines: (lines: string[]) => void,
    private readonly pollMs = 250,
  ) {
    this.offset = startOffset;
  }

  start(): void {
    try {
      this.watcher = fs.watch(this.file, { persistent: false }, () => this.read());
      this.watcher.on('error', () => undefined);
    } catch {
      // No file yet, or no inotify: the poll still delivers every line.
    }
    this.poll = setInterval(() => this.read(), this.pollMs);
    this.poll.unref();
    this.read();
  }

  /** Read everything there is now; safe to call at any time. */
  read(): void {
    if (this.closed) return;
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return; // not there (yet): the next hint or poll tries again
    }
    try {
      let size = fs.fstatSync(fd).size;
      if (size < this.offset) {
        // Truncated under us: start over from the top rather than wait forever.
        this.offset = 0;
        this.partial = [];
        this.partialLen = 0;
      }
      const lines: string[] = [];
      while (this.offset + this.partialLen < size) {
        const pos = this.offset + this.partialLen;
        const buf = Buffer.allocUnsafe(Math.min(READ_CHUNK, size - pos));
        const n = fs.readSync(fd, buf, 0, buf.length, pos);
        if (n <= 0) break;
        this.consume(buf.subarray(0, n), lines);
        if (pos + n >= size) size = fs.fstatSync(fd).size;
      }
      if (lines.length > 0) this.onLines(lines);
    } catch {
      // Gone meanwhile: the next read tries again.
    } finally {
      fs.closeSync(fd);
    }
  }

  private consume(chunk: Buffer, out: string[]): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      this.keep(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      out.push(Buffer.concat(this.partial).toString('utf8'));
      this.offset += this.partialLen + 1;
      this.partial = [];
      this.partialLen = 0;
      start = nl + 1;
    }
  }

  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    const room = Math.max(0, MAX_LINE_BYTES - this.partialLen);
    if (room > 0) this.partial.push(Buffer.from(piece.subarray(0, room)));
    // Counts every byte seen, kept or not, so the offset moves past what was dropped.
    this.partialLen += piece.length;
  }

  /** The bytes after the last whole line (a final line without its newline), once. */
  flushPartial(): string | null {
    if (this.partialLen === 0) return null;
    const text = Buffer.concat(this.partial).toString('utf8');
    this.offset += this.partialLen;
    this.partial = [];
    this.partialLen = 0;
    return text;
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    if (this.poll) clearInterval(this.poll);
  }
}

/** The inputs the supervisor recorded for a run (prompt first): `runs/<uuid>/inputs`, one JSON line each. */
export function readInputs(runDirectory: string): { text: string; out_bytes: number }[] {
  const out: { text: string; out_bytes: number }[] = [];
  for (const l of readLines(path.join(runDirectory, 'inputs'))) {
    try {
      const v = JSON.parse(l) as { text?: unknown; out_bytes?: unknown };
      if (typeof v.text === 'string') out.push({ text: v.text, out_bytes: typeof v.out_bytes === 'number' ? v.out_bytes : 0 });
    } catch {
      // A line cut by a crash: the others still read.
    }
  }
  return out;
}
