// Publishing this machine's runs into the cluster's fleet view (orcr_run).
// What changed is heard after each commit of the journal (every event, and
// every quiet save: meters, text), and only its uuid is kept: a dirty set,
// bounded by the runs. One timer flushes it — at most once per
// publish_interval, at most publish_batch runs in one transaction (the rest
// at the next), each run's face as it is then — so a busy machine writes a
// few times a second however many events its agents make. A flush that
// fails (the database away) puts its runs back and is tried again a second
// later. The same timer sweeps now and then: this machine's ended runs past
// view_retention, and every machine's rows once it is gone (gone_after). At
// join and after an outage (the link's start): every active and recently
// ended run is published again and this machine's other rows are deleted.

import { takeBatch } from '../core/fleet-view.js';
import type { ClusterDb } from '../limiter/pg-db.js';
import { keepOnly, publishFaces, sweepRows } from '../limiter/pg-runs.js';
import type { ClusterRunFace } from '../protocol/views.js';

/** How long a failed flush waits before it is tried again. */
const RETRY_MS = 1000;
/** How often rows past their time are swept: half the shorter of the two times, within 1–10 s. */
function sweepEvery(s: PublishSettings): number {
  return Math.min(10_000, Math.max(1000, Math.floor(Math.min(s.retentionMs, s.goneAfterMs) / 2)));
}

interface PublishSettings {
  intervalMs: number;
  batch: number;
  retentionMs: number;
  goneAfterMs: number;
}

export interface PublisherDeps {
  db: Pick<ClusterDb, 'tx' | 'toDb' | 'measureOffset'>;
  cluster: string;
  host: string;
  /** A run's face by uuid, null once the journal no longer has it. */
  face: (uuid: string) => ClusterRunFace | null;
  /** What a resync publishes: the active runs and those ended within the retention. */
  current: (retentionMs: number) => string[];
  settings: () => PublishSettings;
  log: (msg: string) => void;
  now?: () => number;
}

export class FleetPublisher {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
  private flushing = false;
  /** Until the first resync (the link's start), changes are kept, not written. */
  private started = false;
  private closed = false;
  private lastFlush = 0;
  private lastSweep = 0;
  private retryAt = 0;
  /** The database's failure said in server.log, until a flush succeeds again. */
  private failing = false;
  /** Flushes committed (each one transaction): what the bench counts. */
  flushes = 0;

  constructor(private readonly p: PublisherDeps) {}

  private now(): number {
    return (this.p.now ?? Date.now)();
  }

  /** A run changed (committed): its face goes with the next flush. */
  mark(uuid: string): void {
    if (this.closed) return;
    this.dirty.add(uuid);
    this.schedule();
  }

  /** At join and after an outage: this machine's rows become exactly its current runs, each published again. */
  async resync(): Promise<void> {
    if (this.closed) return;
    const keep = this.p.current(this.p.settings().retentionMs);
    try {
      // Ends are written on the database's clock: this machine's against it, measured again at each (re)join.
      await this.p.db.measureOffset(true);
      await this.p.db.tx((c) => keepOnly(c, this.p.cluster, this.p.host, keep));
    } catch (e) {
      // The flush that follows says it, and the next start resyncs again.
      this.failed(e);
    }
    for (const uuid of keep) this.dirty.add(uuid);
    this.started = true;
    this.schedule();
  }

  /** Runs waiting for a flush (bounded by the runs of this machine). */
  get pending(): number {
    return this.dirty.size;
  }

  private schedule(): void {
    if (!this.started || this.closed || this.flushing) return;
    const now = this.now();
    const s = this.p.settings();
    // Nothing to write: wake for the next sweep only.
    const at = this.dirty.size > 0 ? Math.max(this.lastFlush + s.intervalMs, this.retryAt) : Math.max(this.lastSweep + sweepEvery(s), this.retryAt);
    // One timer: kept when it fires soon enough, else (a sweep's wait, and now a run to write) set sooner.
    if (this.timer !== null) {
      if (this.timerAt <= at) return;
      clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        void this.flush();
      },
      Math.max(0, at - now),
    );
    this.timer.unref();
  }

  private async flush(): Promise<void> {
    if (this.closed) return;
    this.flushing = true;
    const s = this.p.settings();
    const uuids = takeBatch(this.dirty, s.batch);
    const faces: ClusterRunFace[] = [];
    const gone: string[] = [];
    for (const uuid of uuids) {
      const face = this.p.face(uuid);
      if (face) faces.push(face);
      else gone.push(uuid);
    }
    const sweep = this.now() - this.lastSweep >= sweepEvery(s);
    try {
      await this.p.db.tx(async (c) => {
        // A run's end on the database's clock (this machine's may be off): the retention counts from it.
        const ended = faces.map((f) => (f.ended_at === null ? null : this.p.db.toDb(Date.parse(f.ended_at))));
        if (uuids.length > 0) await publishFaces(c, this.p.cluster, this.p.host, faces, ended, gone);
        if (sweep) await sweepRows(c, this.p.cluster, this.p.host, s.retentionMs, s.goneAfterMs);
      });
      if (sweep) this.lastSweep = this.now();
      if (uuids.length > 0) this.flushes++;
      if (this.failing) this.p.log('fleet view: publishing again');
      this.failing = false;
      this.retryAt = 0;
    } catch (e) {
      // Back in the set (a newer mark of the same run is the same work): written when the database answers.
      for (const uuid of uuids) this.dirty.add(uuid);
      this.failed(e);
    } finally {
      this.lastFlush = this.now();
      this.flushing = false;
      this.schedule();
    }
  }

  private failed(e: unknown): void {
    this.retryAt = this.now() + RETRY_MS;
    if (!this.failing) this.p.log(`fleet view: cannot publish (${(e as Error)?.message ?? String(e)}); trying again each second`);
    this.failing = true;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
