// FifoWriter against real FIFOs and a real, slow reader in another process:
// megabytes arrive byte-exact and in order, a writer made before the FIFO or
// its reader exists still delivers, and the event loop keeps turning.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FifoWriter } from '../../src/runtime/fifo-writer.js';
import { NODE, ROOT, until } from '../support/harness.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
  vi.restoreAllMocks();
});

/** How many times the writer has tried to open `file` so far (each failed try is a retry to come). */
function countOpens(file: string): () => number {
  const spy = vi.spyOn(fs, 'openSync');
  return () => spy.mock.calls.filter(([p]) => p === file).length;
}

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-fifo-'));
  cleanup.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

function mkfifo(file: string): void {
  const r = spawnSync('mkfifo', ['-m', '600', file]);
  if (r.status !== 0) throw new Error(`mkfifo ${file}: ${r.stderr}`);
}

// Like the wrapper, the reader holds the FIFO open read-write (so it never
// sees EOF between writes) and reads slowly: 16 KiB, then a 1 ms nap.
const READER = `
const fs = require('fs'), crypto = require('crypto');
const [file, want, napEvery] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const fd = fs.openSync(file, fs.constants.O_RDWR);
process.stdout.write('open\\n');
const h = crypto.createHash('sha256'), buf = Buffer.alloc(16384);
let got = 0, reads = 0;
while (got < want) {
  const n = fs.readSync(fd, buf, 0, Math.min(buf.length, want - got), null);
  h.update(buf.subarray(0, n));
  got += n;
  if (++reads % napEvery === 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}
process.stdout.write(JSON.stringify({ got, sha: h.digest('hex') }) + '\\n');
`;

interface Reader {
  child: ChildProcess;
  opened: Promise<void>;
  result: Promise<{ got: number; sha: string }>;
}

/** A slow reader; with `make`, it makes the FIFO first (as the wrapper does). */
function reader(file: string, want: number, opts: { make?: boolean; napEvery?: number } = {}): Reader {
  const args = ['-e', READER, file, String(want), String(opts.napEvery ?? 1)];
  const child = opts.make
    ? spawn('/bin/sh', ['-c', 'mkfifo -m 600 "$1" && shift && exec "$@"', 'sh', file, NODE, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(NODE, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanup.push(() => child.kill('SIGKILL'));
  let out = '';
  let onOpen: () => void;
  const opened = new Promise<void>((r) => (onOpen = r));
  const result = new Promise<{ got: number; sha: string }>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.startsWith('open\n')) onOpen();
      const last = out.split('\n').find((l) => l.startsWith('{'));
      if (last) resolve(JSON.parse(last) as { got: number; sha: string });
    });
    child.on('exit', (code) => reject(new Error(`reader exited ${code} after: ${out}`)));
  });
  return { child, opened, result };
}

/** Deterministic bytes, so any reordering, loss or duplication changes the hash. */
function payload(size: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i += 4) b.writeUInt32LE(i >>> 2, i);
  return b;
}

const sha = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');

/** Write `data` in pieces of varying size, some as text, some right away, some on later turns. */
async function writeInPieces(w: FifoWriter, data: Buffer): Promise<void> {
  let at = 0;
  let i = 0;
  while (at < data.length) {
    const size = [1, 7, 4096, 65_536, 65_537, 300_000, 1_000_000][i % 7]!;
    const piece = data.subarray(at, at + size);
    expect(w.write(i % 3 === 0 ? piece : new Uint8Array(piece))).toBe(true);
    at += piece.length;
    if (i++ % 5 === 0) await new Promise((r) => setImmediate(r));
  }
}

const fdsTo = (file: string): number =>
  fs.readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;

describe('FifoWriter', () => {
  it.each([1, 10])('a slow reader receives %d MB written in pieces, byte-exact and in order', async (mb) => {
    const file = path.join(tmp(), 'in');
    mkfifo(file);
    const data = payload(mb * 1024 * 1024);
    const r = reader(file, data.length, { napEvery: mb === 1 ? 1 : 4 });
    await r.opened;
    const errors: Error[] = [];
    const w = new FifoWriter(file, { onError: (e) => errors.push(e) });
    cleanup.push(() => w.close());
    // The loop keeps turning while megabytes wait for a slow reader.
    let worstGap = 0;
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
    }, 5);
    cleanup.push(() => clearInterval(tick));
    await writeInPieces(w, data);
    expect(w.pendingBytes).toBeGreaterThan(64 * 1024); // more than a pipe holds: the rest waits its turn
    expect(await r.result).toEqual({ got: data.length, sha: sha(data) });
    await w.idle();
    clearInterval(tick);
    expect(w.pendingBytes).toBe(0);
    expect(errors).toEqual([]);
    expect(worstGap).toBeLessThan(1_000);
    // Drained: the fd is let go, so EOF for the agent depends on the wrapper alone.
    expect(fdsTo(file)).toBe(0);
  });

  it('a writer made before the FIFO exists delivers once it and its reader appear', async () => {
    const file = path.join(tmp(), 'in');
    const data = payload(1024 * 1024);
    const opens = countOpens(file);
    const w = new FifoWriter(file);
    cleanup.push(() => w.close());
    w.write(data.subarray(0, 100_000));
    w.write(data.subarray(100_000));
    expect(w.pendingBytes).toBe(data.length);
    // Some ENOENT retries go by first: the first try and two more.
    await until(() => opens() >= 3, 'two retries of the open');
    expect(w.pendingBytes).toBe(data.length);
    const r = reader(file, data.length, { make: true });
    expect(await r.result).toEqual({ got: data.length, sha: sha(data) });
    await w.idle();
    expect(w.pendingBytes).toBe(0);
  });

  it('a writer to a FIFO with no reader yet (ENXIO) delivers once the reader opens it', async () => {
    const file = path.join(tmp(), 'in');
    mkfifo(file);
    const opens = countOpens(file);
    const w = new FifoWriter(file);
    cleanup.push(() => w.close());
    w.write('first line\n');
    w.write('second line\n');
    // ENXIO retries go by with the input kept.
    await until(() => opens() >= 3, 'two retries of the open');
    expect(w.pendingBytes).toBe(23);
    const r = reader(file, 23);
    expect(await r.result).toEqual({ got: 23, sha: sha(Buffer.from('first line\nsecond line\n')) });
  });

  it('says when the path is not a FIFO, and drops nothing silently', async () => {
    const file = path.join(tmp(), 'in');
    fs.writeFileSync(file, '');
    const errors: string[] = [];
    const w = new FifoWriter(file, { onError: (e) => errors.push(e.message) });
    w.write('hello');
    expect(errors).toEqual([`input for ${file} not delivered (5 bytes dropped): it is not a FIFO`]);
    expect(w.pendingBytes).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
    w.close();
  });

  it('says when the reader went away with input still pending', async () => {
    const file = path.join(tmp(), 'in');
    mkfifo(file);
    // A reader that takes 64 KiB and leaves, with nobody else holding the FIFO.
    const child = spawn('/bin/sh', ['-c', 'exec head -c 65536 "$1" >/dev/null', 'sh', file], { stdio: 'ignore' });
    cleanup.push(() => child.kill('SIGKILL'));
    const errors: string[] = [];
    const w = new FifoWriter(file, { onError: (e) => errors.push(e.message) });
    cleanup.push(() => w.close());
    w.write(payload(1024 * 1024));
    await until(() => errors.length > 0, 'the writer to hear the reader is gone');
    expect(errors[0]).toMatch(new RegExp(`^input for ${file} not delivered \\(\\d+ bytes dropped\\): its reader went away$`));
    expect(w.pendingBytes).toBe(0);
    await w.idle();
  });

  it('close() drops what is pending, stops retrying, and refuses later writes', async () => {
    const dir = tmp();
    const file = path.join(dir, 'in');
    const twinFile = path.join(dir, 'twin');
    // The twin: same retry timer, armed just after this writer's, never closed.
    // Timers of one delay fire in the order they were armed, so by the time the
    // twin has delivered, a retry of this writer (had close() not stopped it) has come too.
    const schedule = { retryMs: 10, maxRetryMs: 10 };
    const w = new FifoWriter(file, schedule);
    w.write('never delivered');
    const twin = new FifoWriter(twinFile, schedule);
    cleanup.push(() => twin.close());
    twin.write('delivered');
    expect(w.close()).toBe(15);
    expect(w.pendingBytes).toBe(0);
    expect(w.write('more')).toBe(false);
    await w.idle();
    // The FIFOs appear, each with a reader that would take anything.
    mkfifo(file);
    mkfifo(twinFile);
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const twinFd = fs.openSync(twinFile, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    await twin.idle();
    const buf = Buffer.alloc(16);
    expect(buf.toString('utf8', 0, fs.readSync(twinFd, buf))).toBe('delivered');
    expect(fs.readSync(fd, buf)).toBe(0);
    fs.closeSync(fd);
    fs.closeSync(twinFd);
  });

  it('out of descriptors (EMFILE), keeps the input and delivers it once one is free', async () => {
    const d = tmp();
    const fifo = path.join(d, 'in');
    mkfifo(fifo);
    const out = path.join(d, 'out');
    const reader = spawn('sh', ['-c', `cat "${fifo}" > "${out}"`]);
    cleanup.push(() => reader.kill('SIGKILL'));
    const writer = `
      import fs from 'node:fs';
      const { FifoWriter } = await import(${JSON.stringify(path.join(ROOT, 'dist/src/runtime/fifo-writer.js'))});
      const held = [];
      try { for (;;) held.push(fs.openSync('/dev/null', 'r')); } catch (e) { if (e.code !== 'EMFILE') throw e; }
      const lost = [];
      const w = new FifoWriter(${JSON.stringify(fifo)}, { onError: (e) => lost.push(e.message) });
      w.write('kept through EMFILE\\n');
      // Its first open has failed by now (write opens at once): before, the input was dropped there.
      const lostAtOnce = lost.length;
      for (const fd of held.splice(0)) fs.closeSync(fd);
      await w.idle();
      w.close();
      console.log(JSON.stringify({ lostAtOnce, lost }));
    `;
    const r = spawnSync('prlimit', ['--nofile=64:64', '--', NODE, '--input-type=module', '-e', writer], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ lostAtOnce: 0, lost: [] });
    await until(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8') === 'kept through EMFILE\n', 'the input to arrive');
  });
});
