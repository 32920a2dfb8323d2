// The supervisor's read side for clients: runs as they stand (the live row
// where the run is active, the journal's otherwise), pages of runs and
// events, the snapshot a subscriber starts from, and what a subscriber is
// sent: committed events and rows changed without one. The handlers and the
// transport read through this, never the journal itself. Writes nothing:
// it has the run store's reader (journal/reader.ts) and its memory.

import type { RunEvent } from '../core/events.js';
import type { Run } from '../core/types.js';
import type { ListQuery } from '../journal/reader.js';
import type { RunStore } from './run-store.js';

/** Every active run (a run that started long ago and still works is not left out), then the newest ended ones up to this many in all. */
const SNAPSHOT_RUNS = 5000;
/** Far above any real fleet: the active runs of a snapshot are bounded too. */
const SNAPSHOT_ACTIVE = 50_000;

export interface Snapshot {
  /** In queue order. */
  runs: Run[];
  /** Runs the journal holds. */
  total: number;
}

export class Reads {
  private readonly reader: RunStore['reader'];

  constructor(private readonly store: Pick<RunStore, 'reader' | 'get' | 'onQuietSave'>) {
    this.reader = store.reader;
  }

  /** The run's live row, when it is active. */
  live(uuid: string): Run | null {
    return this.store.get(uuid) ?? null;
  }

  /** A run as it stands now, or null when the journal has none by that uuid. */
  getRun(uuid: string): Run | null {
    return this.live(uuid) ?? this.reader.getRun(uuid);
  }

  /** The journal's runs for a query (newest first), each as it stands now. */
  listRuns(q: ListQuery): Run[] {
    return this.reader.listRuns(q).map((r) => this.live(r.uuid) ?? r);
  }

  /**
   * A home of months sends a page, not its history: every active run, then
   * the newest ended ones, at most `ended` of them (a client that keeps only
   * a window of them asks for no more: the TUI's first snapshot of a large
   * home is what its memory peaks on).
   */
  snapshot(ended?: number, limit = SNAPSHOT_RUNS): Snapshot {
    const active = this.reader.listRuns({ limit: SNAPSHOT_ACTIVE });
    const room = Math.max(0, limit - active.length);
    const endedRuns = room === 0 || ended === 0 ? [] : this.reader.listRuns({ status: 'ended', limit: Math.min(room, ended ?? room) });
    const runs = [...endedRuns, ...active].sort((a, b) => a.queue_seq - b.queue_seq).map((r) => this.live(r.uuid) ?? r);
    return { runs, total: this.reader.countRuns() };
  }

  eventsSince(seq: number, limit: number): RunEvent[] {
    return this.reader.eventsSince(seq, limit);
  }

  /** The newest event's seq (0 for none). */
  lastSeq(): number {
    return this.reader.lastSeq();
  }

  /** The oldest event the journal still holds (retention removes older ones). */
  firstSeq(): number {
    return this.reader.firstSeq();
  }

  /** Hears every committed event, with the row written with it. */
  onEvent(fn: (event: RunEvent, row: Run | null) => void): () => void {
    return this.reader.onEvent(fn);
  }

  /** Hears of a run's row changed without an event (its last text or tool, its meters), once committed: for clients that show rows live. */
  onQuietChange(fn: (uuid: string) => void): void {
    this.store.onQuietSave(fn);
  }
}
