// Keeping a home that runs for months bounded: ended runs older than the
// retention (config `retention.ended`, or `orcr gc --older-than`) go with
// their events, their run directories and the old part of the event log, in
// small batches that yield to the event loop between them; the pages they
// free go back to the file system. Runs that are not ended are never touched.

import type { GcResult } from '../protocol/results.js';
import fs from 'node:fs';
import { runDir } from '../config/home.js';
import type { Config } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import { monoNow } from './clock.js';

const BATCH = 500;
const EVENT_BATCH = 5000;
const yieldTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

/** The bytes of a run directory's files; null when there is no such directory. */
function dirBytes(dir: string): number | null {
  let n = 0;
  try {
    for (const f of fs.readdirSync(dir)) {
      try {
        n += fs.lstatSync(`${dir}/${f}`).size;
      } catch {
        /* gone */
      }
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
  }
  return n;
}

export class Retention {
  private timer: NodeJS.Timeout | null = null;
  /** The last collection asked for, while it runs (the next one waits for it). */
  private running: Promise<GcResult> | null = null;

  constructor(private readonly p: { home: Home; store: RunStore; config: () => Config; lifecycle: Pick<Lifecycle, 'background' | 'writes'> }) {}

  /** Apply `retention.ended` now and then: soon after start, then every hour (a pass with nothing to collect is one indexed query). */
  start(): void {
    this.stop();
    const tick = (): void => {
      const keep = this.p.config().retention.ended;
      if (keep === 'never' || !this.p.lifecycle.writes()) return;
      this.p.lifecycle.background(this.gc(keep, false));
    };
    const first = setTimeout(tick, 2000);
    first.unref();
    this.timer = setInterval(tick, 3_600_000);
    this.timer.unref();
    this.first = first;
  }

  private first: NodeJS.Timeout | null = null;

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.first) clearTimeout(this.first);
    this.timer = null;
    this.first = null;
  }

  /** `retention.ended` in ms, or null for "never". */
  keepMs(): number | null {
    const keep = this.p.config().retention.ended;
    return keep === 'never' ? null : keep;
  }

  /**
   * Collect ended runs older than `olderThanMs`, one collection at a time: a
   * call made while another collects waits for it, then collects what it
   * asked for itself (the one running may be the hourly pass, cutting at
   * retention.ended, not at this call's age). A pass after another finds
   * little left: one indexed query.
   */
  gc(olderThanMs: number, dryRun: boolean): Promise<GcResult> {
    if (dryRun) return this.estimate(olderThanMs);
    const mine = (this.running ?? Promise.resolve(null)).catch(() => null).then(() => this.collect(olderThanMs));
    this.running = mine;
    void mine
      .finally(() => {
        if (this.running === mine) this.running = null;
      })
      .catch(() => undefined);
    return mine;
  }

  /** What collect would remove now, counted as collect counts it. */
  private async estimate(olderThanMs: number): Promise<GcResult> {
    const before = monoNow() - olderThanMs;
    const plan = this.p.store.reader.gcPlan(before);
    let dirs = 0;
    for (const [i, uuid] of plan.uuids.entries()) {
      dirs += dirBytes(runDir(this.p.home, uuid)) ?? 0;
      if (i % BATCH === BATCH - 1) await yieldTurn();
    }
    return { runs: plan.uuids.length, bytes: plan.bytes + dirs, events: plan.events, dry_run: true, older_than_ms: olderThanMs };
  }

  private async collect(olderThanMs: number): Promise<GcResult> {
    const { store, home } = this.p;
    const before = monoNow() - olderThanMs;
    let runs = 0;
    let bytes = 0;
    let events = 0;
    for (;;) {
      if (!this.p.lifecycle.writes()) break;
      const gone = store.collectEnded(before, BATCH);
      runs += gone.uuids.length;
      events += gone.events;
      bytes += gone.bytes;
      for (const uuid of gone.uuids) {
        const dir = runDir(home, uuid);
        const had = dirBytes(dir);
        // A run that never started has no directory: nothing to remove (a removal that finds none still costs a thrown error).
        if (had === null) continue;
        bytes += had;
        await fs.promises.rm(dir, { recursive: true, force: true });
      }
      await yieldTurn();
      if (gone.uuids.length < BATCH) break;
    }
    // Found once a pass, not once a batch: it reads the whole log, and events written meanwhile are newer than `before`.
    const last = this.p.lifecycle.writes() ? store.reader.lastEventBefore(before) : null;
    while (last !== null) {
      if (!this.p.lifecycle.writes()) break;
      const pruned = store.pruneEvents(last, EVENT_BATCH);
      events += pruned.events;
      bytes += pruned.bytes;
      await yieldTurn();
      if (pruned.events < EVENT_BATCH) break;
    }
    store.compactUsage(before);
    // Freed pages back to the file system, a slice per turn.
    for (let i = 0; i < 1000 && this.p.lifecycle.writes(); i++) {
      const size = store.reader.fileBytes();
      store.vacuumSome(2000);
      await yieldTurn();
      if (store.reader.fileBytes() >= size) break;
    }
    if (this.p.lifecycle.writes()) store.checkpoint();
    if (runs > 0 || events > 0) {
      store.event(null, { type: 'gc', data: { runs, events, bytes, older_than_ms: olderThanMs } });
    }
    return { runs, bytes, events, dry_run: false, older_than_ms: olderThanMs };
  }
}
