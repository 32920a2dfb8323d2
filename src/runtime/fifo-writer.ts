// One run's input FIFO and the input still to be written to it, in order.
// The FIFO is opened non-blocking (retried while it or its reader is not
// there yet) and written through a net.Socket over the fd, so libuv writes
// what the pipe takes and the rest when epoll says it has room again: no
// write is ever cut short, and nothing blocks or polls the event loop.

import fs from 'node:fs';
import net from 'node:net';
import { isResourceLimit } from './os-limits.js';

export interface FifoWriterOptions {
  /**
   * Input could not be delivered: the path is not a FIFO, cannot be opened,
   * or its reader went away. What was pending is dropped (the message says
   * how much); later writes start over.
   */
  onError?: (e: Error) => void;
  /** First wait before opening again while the FIFO or its reader is missing; doubles up to maxRetryMs. Default 10. */
  retryMs?: number;
  /** Default 250. */
  maxRetryMs?: number;
}

const { O_WRONLY, O_NONBLOCK } = fs.constants;

/**
 * Owns one FIFO path's pending input. The fd is held only while there is
 * something to write: once everything is in the pipe it is closed, so that
 * the agent's EOF still depends on the wrapper alone (which closes its end
 * on SIGUSR1). Until close(), a write to a FIFO that does not exist yet (or
 * has no reader yet) is kept and retried on a short timer.
 */
/** Told once whether a write reached the pipe whole (true) or was dropped (false). */
export type Written = (ok: boolean) => void;

export class FifoWriter {
  private queue: { buf: Buffer; done: Written | null }[] = [];
  /** What was handed to the socket and not yet said to be in the pipe. */
  private flying = new Set<Written>();
  private queued = 0;
  private socket: net.Socket | null = null;
  private inflight = 0;
  private timer: NodeJS.Timeout | null = null;
  private delay: number;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly path: string,
    private readonly opts: FifoWriterOptions = {},
  ) {
    this.delay = opts.retryMs ?? 10;
  }

  /** Bytes accepted by write() and not yet in the pipe. */
  get pendingBytes(): number {
    return this.queued + this.inflight;
  }

  /**
   * Queue text (UTF-8) or bytes. False once closed: nothing was queued.
   * `done` hears once whether it all reached the pipe or was dropped.
   */
  write(data: string | Uint8Array, done?: Written): boolean {
    if (this.closed) return false;
    // A copy: the caller may reuse its buffer before the pipe has room.
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    if (buf.length === 0) {
      done?.(true);
      return true;
    }
    if (this.socket) {
      this.send(this.socket, buf, done ?? null);
    } else {
      this.queue.push({ buf, done: done ?? null });
      this.queued += buf.length;
      if (this.timer === null) this.open();
    }
    return true;
  }

  /** Resolves once everything written so far is in the pipe and the fd is closed (or the writer closed, or input was lost). */
  idle(): Promise<void> {
    if (this.pendingBytes === 0 && this.socket === null) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stop: close the fd, drop what is pending, stop retrying. Returns the bytes dropped. */
  close(): number {
    const dropped = this.pendingBytes;
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.drop();
    return dropped;
  }

  private open(): void {
    this.timer = null;
    if (this.closed || this.queued === 0) return;
    let fd: number;
    try {
      fd = fs.openSync(this.path, O_WRONLY | O_NONBLOCK);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOENT: the wrapper has not made the FIFO yet; ENXIO: nobody has it open for reading yet;
      // EMFILE/ENFILE: no descriptor to spare now (a passing state: the input waits, it is not lost).
      if (code === 'ENOENT' || code === 'ENXIO' || isResourceLimit(e)) {
        this.timer = setTimeout(() => this.open(), this.delay);
        this.delay = Math.min(this.delay * 2, this.opts.maxRetryMs ?? 250);
        return;
      }
      return this.lose(`cannot open it: ${(e as Error).message}`);
    }
    this.delay = this.opts.retryMs ?? 10;
    let isFifo = false;
    try {
      isFifo = fs.fstatSync(fd).isFIFO();
    } catch {
      /* reported below */
    }
    if (!isFifo) {
      fs.closeSync(fd);
      return this.lose('it is not a FIFO');
    }
    const socket = new net.Socket({ fd, readable: false, writable: true });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (socket === this.socket) this.lose(e.code === 'EPIPE' ? 'its reader went away' : e.message);
    });
    this.socket = socket;
    const queue = this.queue;
    this.queue = [];
    this.queued = 0;
    for (const q of queue) this.send(socket, q.buf, q.done);
  }

  private send(socket: net.Socket, buf: Buffer, done: Written | null): void {
    this.inflight += buf.length;
    if (done) this.flying.add(done);
    socket.write(buf, (err) => {
      if (err || socket !== this.socket) return; // the 'error' listener reports it
      if (done) {
        this.flying.delete(done);
        done(true);
      }
      this.inflight -= buf.length;
      if (this.inflight === 0) {
        this.socket = null;
        socket.destroy();
        this.wakeIdle();
      }
    });
  }

  private lose(why: string): void {
    const bytes = this.pendingBytes;
    this.drop();
    this.opts.onError?.(new Error(`input for ${this.path} not delivered (${bytes} bytes dropped): ${why}`));
  }

  private drop(): void {
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    const lost = [...this.flying, ...this.queue.flatMap((q) => (q.done ? [q.done] : []))];
    this.flying = new Set();
    this.queue = [];
    this.queued = 0;
    this.inflight = 0;
    for (const done of lost) done(false);
    this.wakeIdle();
  }

  private wakeIdle(): void {
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
