// One sink's outbox: notifications go out one at a time, in order, each tried
// a bounded number of times with a growing pause between tries. Nothing here
// waits on the caller's thread: push() returns at once, and a sink that is
// down for long loses its oldest notifications rather than growing without end.

import type { Message, Sink } from './notify-sinks.js';

/** Tries per notification: the first and three retries. */
export const ATTEMPTS = 4;
/** Pause before the first retry; doubled before each next one (0.5s, 1s, 2s). */
const BACKOFF_MS = 500;
/** Notifications waiting for one sink, at most. */
export const MAX_QUEUED = 100;

export class SinkQueue {
  private queue: Message[] = [];
  private busy = false;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  /** Ends a pause between tries early (on close). */
  private wake: (() => void) | null = null;

  constructor(
    readonly sink: Sink,
    private readonly log: (msg: string) => void,
  ) {}

  push(msg: Message): void {
    if (this.closed) return;
    if (this.queue.length >= MAX_QUEUED) {
      this.queue.shift();
      this.log(`notify: ${this.sink.label} is behind (${MAX_QUEUED} notifications waiting): the oldest was dropped`);
    }
    this.queue.push(msg);
    if (!this.busy) void this.drain();
  }

  /** Stop: nothing more is tried; an attempt under way finishes on its own. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wake?.();
    if (this.queue.length > 0) this.log(`notify: ${this.sink.label}: ${this.queue.length} notification(s) not sent (no longer configured, or stopping)`);
    this.queue = [];
  }

  private async drain(): Promise<void> {
    this.busy = true;
    try {
      while (!this.closed && this.queue.length > 0) {
        const msg = this.queue.shift()!;
        await this.deliver(msg);
      }
    } finally {
      this.busy = false;
    }
  }

  private async deliver(msg: Message): Promise<void> {
    let last = '';
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (this.closed) return;
      try {
        await this.sink.send(msg);
        if (attempt > 1) this.log(`notify: ${this.sink.label}: delivered on attempt ${attempt}`);
        return;
      } catch (e) {
        // fetch says only "fetch failed"; the reason (refused, reset, a redirect) is its cause.
        const cause = (e as { cause?: { message?: string } })?.cause?.message;
        last = `${(e as Error)?.message ?? String(e)}${cause ? `: ${cause}` : ''}`;
      }
      if (attempt < ATTEMPTS) {
        const pause = BACKOFF_MS * 2 ** (attempt - 1);
        this.log(`notify: ${this.sink.label}: attempt ${attempt}/${ATTEMPTS} failed (${last}); retrying in ${pause} ms`);
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(resolve, pause);
          this.timer.unref();
        });
        this.timer = null;
        this.wake = null;
      }
    }
    this.log(`notify: ${this.sink.label}: gave up after ${ATTEMPTS} attempts (${last}); the notification is lost`);
  }
}
