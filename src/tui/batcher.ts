// Stream messages arrive one socket chunk at a time; applying each as its
// own store change would re-render the whole tree per event (Ink 6 renders
// synchronously outside input handlers). Queue them and flush on a short
// timer: at most one store change per frame, however fast the stream runs.

import type { StreamMessage } from '../client/client.js';

export class StreamBatcher {
  private queue: StreamMessage[] = [];
  private timer: NodeJS.Timeout | null = null;
  private held = false;
  private lastFlush = 0;

  /**
   * @param minGapMs least time between two flushes: under a sustained stream
   *                 the store changes at most 1000/minGapMs times a second
   */
  constructor(
    private readonly flushFn: (msgs: StreamMessage[]) => void,
    private readonly minGapMs = 50,
  ) {}

  push(m: StreamMessage): void {
    this.queue.push(m);
    this.arm();
  }

  private arm(): void {
    if (this.timer || this.held || this.queue.length === 0) return;
    // A first event after a quiet spell goes out on the next tick (events of the
    // same socket chunk still travel together); under a sustained stream,
    // flushes are spaced minGapMs apart. Holding the first event as well used
    // to add a frame of latency on top of Ink's own throttle.
    const wait = Math.max(0, this.lastFlush + this.minGapMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }

  /** Apply what is queued now (unless held). */
  flush(): void {
    if (this.held || this.queue.length === 0) return;
    const q = this.queue;
    this.queue = [];
    this.lastFlush = Date.now();
    this.flushFn(q);
  }

  /** Keep queuing but apply nothing (while a snapshot is on its way). */
  hold(): void {
    this.held = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  release(): void {
    this.held = false;
    this.arm();
  }

  /** Drop what is queued: a new snapshot supersedes it. */
  clear(): void {
    this.queue = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get pending(): number {
    return this.queue.length;
  }
}
