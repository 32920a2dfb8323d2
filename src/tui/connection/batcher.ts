// One store change per frame. Stream messages arrive one socket chunk at a
// time, and stats and the clock change on their own timers; applying each as
// its own store change would draw a whole frame for each (Ink renders the
// whole tree, synchronously, per change). So they queue here and go out
// together on a short timer: under a busy stream the store changes at most
// 1000/minGapMs times a second, whatever else is going on. It holds
// messages and changes; it never interprets them.

import type { Incoming } from '../state/runs.js';
import type { Patch, TuiState } from '../state/store.js';

/** A store change that can wait for the next frame; a function sees the state as of that frame. */
export type Deferred = Patch | ((s: TuiState) => Patch);

export class FrameBatcher {
  private queue: Incoming[] = [];
  private deferred: Deferred[] = [];
  private timer: NodeJS.Timeout | null = null;
  private held = false;
  private lastFlush = 0;

  /**
   * @param flushFn  applies one frame's stream messages and deferred changes as one store change
   * @param minGapMs least time between two flushes
   */
  constructor(
    private readonly flushFn: (msgs: Incoming[], deferred: Deferred[]) => void,
    private readonly minGapMs = 50,
  ) {}

  push(m: Incoming): void {
    this.queue.push(m);
    this.arm();
  }

  /** Apply `d` with the next frame (stats, the clock, details): it rides along instead of drawing one of its own. */
  defer(d: Deferred): void {
    this.deferred.push(d);
    this.arm();
  }

  private ready(): boolean {
    return this.deferred.length > 0 || (!this.held && this.queue.length > 0);
  }

  private arm(): void {
    if (this.timer || !this.ready()) return;
    // A first change after a quiet spell goes out on the next tick (events of
    // the same socket chunk still travel together); under a sustained stream,
    // flushes are spaced minGapMs apart.
    const wait = Math.max(0, this.lastFlush + this.minGapMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }

  /** Apply what is queued now (stream messages stay queued while held). */
  flush(): void {
    if (!this.ready()) return;
    const msgs = this.held ? [] : this.queue;
    if (!this.held) this.queue = [];
    const deferred = this.deferred;
    this.deferred = [];
    this.lastFlush = Date.now();
    this.flushFn(msgs, deferred);
  }

  /** Keep queuing stream messages but apply none (while a snapshot is on its way); deferred changes still go out. */
  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.arm();
  }

  /** Drop the queued stream messages: a new snapshot supersedes them. */
  clear(): void {
    this.queue = [];
  }

  /** Drop everything and stop the timer (the TUI is closing). */
  stop(): void {
    this.queue = [];
    this.deferred = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get pending(): number {
    return this.queue.length + this.deferred.length;
  }
}

/** The deferred changes in order, each seeing the state the ones before it made; returns their merged patch and that state. */
export function applyDeferred(s: TuiState, deferred: readonly Deferred[]): { patch: Patch; state: TuiState } {
  const patch: Patch = {};
  let state = s;
  for (const d of deferred) {
    const p = typeof d === 'function' ? d(state) : d;
    Object.assign(patch, p);
    state = { ...state, ...p };
  }
  return { patch, state };
}
