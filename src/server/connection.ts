// One client connection's flow, bounded: what it sent and we have not yet
// handled, what we owe it and it has not yet read, and how long it may take
// to finish a request. A client that never reads its replies must not grow
// the supervisor without bound (measured before: 20,000 small requests took
// it from 103 MB to 780 MB, and another client's health check to 828 ms):
// while its replies wait, its requests are not read (the kernel's buffers,
// then its own writes, push back); past a limit of what is queued for it —
// replies and events alike — it is dropped. Requests beyond those in flight
// are read on up to a limit of their own: a socket not read never tells of
// its close, and a client that pipelined 200 waits and left would be held
// with them until the runs it waited for ended. A connection that sends part of
// a request and stops, or never says hello, is closed after a while; one
// that is merely quiet (a subscriber, a wait) is not.

import type net from 'node:net';
import { LineSplitter } from './frames.js';

export interface ConnectionLimits {
  /** Connections at once; the next one is told why and closed. */
  maxConnections: number;
  /** Bytes queued for a connection it has not read: past this it is dropped (it resumes from its last seq). */
  maxQueuedBytes: number;
  /** Bytes queued for a connection above which its requests are not read until it reads. */
  pauseQueuedBytes: number;
  /** Requests of one connection being handled at once; the rest wait, read but not handled. */
  maxInFlight: number;
  /** Bytes of requests read and waiting to be handled above which the connection is not read until they are. */
  maxWaitingBytes: number;
  /** How long a request may stay half sent, or a connection go without its hello. */
  halfRequestMs: number;
}

/** What one connection may use: enough for the TUI's first snapshot of a large fleet, not for a flood. */
export function defaultLimits(openFiles: number | null): ConnectionLimits {
  return {
    // Half the process's descriptors at most: the other half is for the journal, run files, spawns.
    maxConnections: Math.max(64, Math.min(4096, Math.floor((openFiles ?? 2048) / 2))),
    maxQueuedBytes: 16 * 1024 * 1024,
    pauseQueuedBytes: 1024 * 1024,
    // A wait takes one for as long as it waits; clients give each wait its own connection.
    maxInFlight: 8,
    maxWaitingBytes: 1024 * 1024,
    halfRequestMs: 30_000,
  };
}

/** The soft limit on open files ("Max open files" in /proc/self/limits), or null where it cannot be read. */
export function openFileLimit(read: () => string): number | null {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(read());
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

export class Connection {
  private readonly lines: LineSplitter;
  private readonly waiting: string[] = [];
  /** The length of what waits, in UTF-16 units (near enough to bytes for a bound). */
  private waitingSize = 0;
  private inFlight = 0;
  private paused = false;
  private done = false;
  private halfTimer: NodeJS.Timeout | null = null;
  greeted = false;

  constructor(
    readonly socket: net.Socket,
    private readonly limits: ConnectionLimits,
    private readonly handle: (line: string) => Promise<void>,
    /** A frame over the size limit: answered, then the connection is closed. */
    private readonly tooLarge: () => void,
  ) {
    this.lines = new LineSplitter();
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.pump());
    socket.on('close', () => this.close());
    this.armHalf();
  }

  /** Bytes written to it and not yet taken by the kernel. */
  get queued(): number {
    return this.socket.writableLength;
  }

  /** Reading its requests is stopped while it reads what it owes us. */
  get reading(): boolean {
    return !this.paused;
  }

  /** Write a reply or an event; a connection this far behind is dropped. False when it was. */
  send(line: string): boolean {
    if (this.done || this.socket.destroyed) return false;
    // What is queued already, not this line: one reply larger than the limit (a big listing) still goes out.
    if (this.socket.writableLength > this.limits.maxQueuedBytes) {
      this.socket.destroy();
      return false;
    }
    this.socket.write(line);
    return true;
  }

  private onData(chunk: Buffer): void {
    if (this.done) return;
    const got = this.lines.push(chunk);
    for (const line of got.lines) {
      if (line.trim() === '') continue;
      this.waiting.push(line);
      this.waitingSize += line.length;
    }
    if (got.tooLarge) {
      // What came before it is handled as far as it can be now; nothing after.
      this.pump();
      this.tooLarge();
      this.close();
      return;
    }
    this.armHalf();
    this.pump();
  }

  /** Handle what waits, as far as the limits allow; read more only once nothing waits. */
  private pump(): void {
    // A client that reads has nothing left queued in user space (the kernel took it all): its requests run
    // side by side. One that has fallen behind gets one at a time, so what waits for it stays near the mark.
    for (;;) {
      const queued = this.socket.writableLength;
      if (this.done || this.waiting.length === 0 || queued >= this.limits.pauseQueuedBytes) break;
      if (this.inFlight >= (queued > 0 ? 1 : this.limits.maxInFlight)) break;
      const line = this.waiting.shift()!;
      this.waitingSize -= line.length;
      this.inFlight++;
      void this.handle(line).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
    const stop = this.waitingSize >= this.limits.maxWaitingBytes || this.socket.writableLength >= this.limits.pauseQueuedBytes;
    if (stop && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (!stop && this.paused && !this.done) {
      this.paused = false;
      this.socket.resume();
    }
  }

  /** Closed if a request stays half sent, or no hello comes, for halfRequestMs. */
  private armHalf(): void {
    if (this.halfTimer) clearTimeout(this.halfTimer);
    this.halfTimer = null;
    if (this.done || (this.greeted && !this.lines.holding)) return;
    this.halfTimer = setTimeout(() => {
      if (this.greeted && !this.lines.holding) return;
      this.socket.destroy();
    }, this.limits.halfRequestMs);
    this.halfTimer.unref();
  }

  /** Said hello: a quiet connection is now a legitimate one. */
  greet(): void {
    this.greeted = true;
    this.armHalf();
  }

  private close(): void {
    this.done = true;
    this.waiting.length = 0;
    this.waitingSize = 0;
    if (this.halfTimer) clearTimeout(this.halfTimer);
  }
}
