// The supervisor's stats (caps, holders, waiters, holds, fleet budget), asked
// for on the clock and soon after slots move, at most one request in flight
// and one per 250 ms. An unchanged answer changes nothing in the store, so
// it draws no frame. It never talks to the store outside the next frame.

import { normalizeStats, type Stats } from '../state/stats.js';
import { reduceStats } from '../state/reducers.js';
import type { TuiStore } from '../state/store.js';
import type { Session } from './session.js';

export class StatsPoll {
  private inFlight = false;
  private timer: NodeJS.Timeout | null = null;
  private lastAt = 0;
  private lastKey = '';

  constructor(
    private readonly store: TuiStore,
    private readonly session: Session,
  ) {}

  /** Ask for stats within `delayMs`; they ride along with the next frame. */
  request(delayMs: number): void {
    if (this.timer || this.session.isStopped) return;
    const wait = Math.max(delayMs, this.lastAt + 250 - Date.now(), 0);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.load().then((stats) => {
        if (stats) this.session.batcher.defer((s) => reduceStats(s, stats));
      });
    }, wait);
  }

  /** Stats if they changed since the last call, else null (no store change, no render). */
  async load(): Promise<Stats | null> {
    const c = this.session.client;
    if (!c || this.inFlight) return null;
    this.inFlight = true;
    this.lastAt = Date.now();
    try {
      const raw = await c.call('stats');
      const key = JSON.stringify(raw);
      if (key === this.lastKey && this.store.getState().stats) return null;
      this.lastKey = key;
      return normalizeStats(raw);
    } catch {
      return null; // a dropped connection is reported by onClose
    } finally {
      this.inFlight = false;
    }
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
