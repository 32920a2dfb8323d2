// The last lines of a run's output file (<home>/runs/<uuid>/out), read from
// the end so a huge log costs one bounded read, and made terminal-safe: an
// agent's escape sequences would fight the TUI for the terminal.

import fs from 'node:fs';
import path from 'node:path';
import { safeLine } from '../../text/terminal-text.js';

export function outputFile(homeDir: string, uuid: string): string {
  return path.join(homeDir, 'runs', uuid, 'out');
}

export interface Tail {
  lines: string[];
  /** File size when read, so a caller can skip re-reading an unchanged file. */
  size: number;
  missing: boolean;
}

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
    // A CRLF line's \r would show as a trailing space; a tab is worth two.
    const clean = (l: string): string => safeLine((l.endsWith('\r') ? l.slice(0, -1) : l).replace(/\t/g, '  '));
    return { lines: lines.slice(-maxLines).map(clean), size, missing: false };
  } finally {
    fs.closeSync(fd);
  }
}
