// The end of a run's output file, bounded (run.tail: `logs HOST:RUN` reads
// another machine's run this way, through a command whose answer is a row):
// at most `maxBytes` read from its end, whole lines only, the last `lines`.

import fs from 'node:fs';

export function readTail(file: string, lines: number, maxBytes: number): { lines: string[]; truncated: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], truncated: false };
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    const n = buf.length === 0 ? 0 : fs.readSync(fd, buf, 0, buf.length, start);
    let text = buf.subarray(0, n).toString('utf8');
    // A line cut by the byte bound is dropped: only whole lines are shown.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    const all = text.split('\n');
    if (all.at(-1) === '') all.pop();
    const out = all.slice(-lines);
    return { lines: out, truncated: start > 0 || out.length < all.length };
  } finally {
    fs.closeSync(fd);
  }
}
