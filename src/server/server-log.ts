// server.log, bounded: appended a line at a time, and when it passes its size
// it becomes server.log.1 (the older ones move up; the oldest kept is
// server.log.3). Owner-only, like everything in the home. Only the supervisor
// writes it; it never throws at its caller (a log that cannot be written must
// not stop the supervisor).

import fs from 'node:fs';

export class ServerLog {
  private fd: number | null = null;
  private size = 0;

  constructor(
    private readonly file: string,
    private readonly maxBytes = 10 * 1024 * 1024,
    private readonly keep = 3,
  ) {}

  write(line: string): void {
    try {
      if (this.fd === null) this.open();
      const buf = Buffer.from(line.endsWith('\n') ? line : line + '\n');
      fs.writeSync(this.fd!, buf);
      this.size += buf.length;
      if (this.size >= this.maxBytes) this.rotate();
    } catch {
      /* a log that cannot be written is not worth stopping for */
    }
  }

  private open(): void {
    this.fd = fs.openSync(this.file, 'a', 0o600);
    this.size = fs.fstatSync(this.fd).size;
  }

  private rotate(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
    for (let i = this.keep - 1; i >= 1; i--) {
      try {
        fs.renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
      } catch {
        /* not there yet */
      }
    }
    fs.renameSync(this.file, `${this.file}.1`);
    this.open();
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }
}
