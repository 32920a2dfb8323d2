// What subscribers are sent besides their replies: every committed event with
// its run's row; rows that changed without an event, coalesced; and the queue
// positions that moved (positions-feed.ts), after the events that moved them.

import type { RunEvent } from '../core/events.js';
import type { Run } from '../core/types.js';
import type { PublicRun } from '../protocol/views.js';
import type { EventMessage, RowsMessage } from '../protocol/wire.js';
import type { Conn } from './conn.js';
import { PositionsFeed } from './positions-feed.js';
import type { Lifecycle } from './lifecycle.js';
import type { Queries } from './queries.js';
import type { Reads } from './reads.js';

/** Rows that changed without an event are sent at most this often. */
const ROWS_EVERY_MS = 250;
/** Queue positions that moved are sent this soon after the change that moved them, and at most this often. */
const POSITIONS_EVERY_MS = 50;
/** And looked at this often whatever happened: a cluster's queue moves with other machines' runs. */
const POSITIONS_POLL_MS = 1000;
/** The events after which a queued run's place may have moved: a run came into the queue or left it, the priorities or the limiter changed. */
const QUEUE_EVENTS: ReadonlySet<string> = new Set([
  'queued',
  'starting',
  'ended',
  'adopted',
  'lease_lost',
  'config_reloaded',
  'supervisor_started',
  'cluster_joined',
  'cluster_available',
  'cluster_unavailable',
]);

const send = (c: Conn, line: string): void => void c.flow.send(line);

/** What the socket reads for itself: each committed event with its row, rows changed without one, the queue's places, the mode. */
export interface Feed {
  reads: Pick<Reads, 'onEvent' | 'getRun' | 'live' | 'onQuietChange' | 'lastSeq'>;
  queries: Pick<Queries, 'view' | 'positions'>;
  lifecycle: Pick<Lifecycle, 'degraded'>;
  /** A journal that cannot be written, as thrown: the supervisor degrades, and it was absorbed; anything else is not. */
  absorbs(e: unknown): e is Error;
}

export class SubscriberFeed {
  /** Closed: the supervisor stops after this, and nothing its stop commits may reach for the journal it closes. */
  private closed = false;
  private readonly quiet = new Set<string>();
  private quietTimer: NodeJS.Timeout | null = null;
  private readonly positions = new PositionsFeed();
  private positionsTimer: NodeJS.Timeout | null = null;
  private positionsAt = 0;
  private readonly positionsPoll: NodeJS.Timeout;

  constructor(
    private readonly s: Feed,
    private readonly conns: ReadonlySet<Conn>,
  ) {
    s.reads.onEvent((event, written) => this.event(event, written));
    s.reads.onQuietChange((uuid) => this.quietChange(uuid));
    this.positionsPoll = setInterval(() => this.schedulePositions(), POSITIONS_POLL_MS);
    this.positionsPoll.unref();
  }

  /** A connection subscribed: with `rows`, it is sent every place soon. */
  subscribed(): void {
    this.schedulePositions();
  }

  /** Nothing more is scheduled; what is already due may still go out until cancelPending. */
  close(): void {
    this.closed = true;
  }

  cancelPending(): void {
    if (this.quietTimer !== null) clearTimeout(this.quietTimer);
    if (this.positionsTimer !== null) clearTimeout(this.positionsTimer);
    clearInterval(this.positionsPoll);
  }

  private event(event: RunEvent, written: Run | null): void {
    let line: string | null = null;
    for (const c of this.conns) {
      if (!c.subscribed) continue;
      if (line === null) {
        // The row written with the event is the state it explains; otherwise the run as it is now.
        const run = written ?? (event.run ? this.s.reads.getRun(event.run) : null);
        const msg: EventMessage = { type: 'event', event, run: run ? this.s.queries.view(run) : null };
        line = JSON.stringify(msg) + '\n';
      }
      send(c, line);
    }
    // Output and meters come by the hundred a second and move no one in the queue.
    if (QUEUE_EVENTS.has(event.type)) this.schedulePositions();
  }

  private rowsWanted(): boolean {
    let wanted = false;
    for (const c of this.conns) wanted ||= c.rows;
    return wanted;
  }

  // A row that changed without an event (the agent's last words or tool, its
  // output offset) reaches the clients that show rows live, coalesced: a run
  // printing without pause costs one message per 250 ms, not one per line.
  private quietChange(uuid: string): void {
    if (!this.rowsWanted() || this.closed) return;
    this.quiet.add(uuid);
    if (this.quietTimer === null) {
      this.quietTimer = setTimeout(() => this.flushQuiet(), ROWS_EVERY_MS);
      this.quietTimer.unref();
    }
  }

  // `seq` is the last event sent before it, so a client that has applied a
  // later event knows this row is older than the one it holds.
  private flushQuiet(): void {
    this.quietTimer = null;
    const runs: PublicRun[] = [];
    for (const uuid of this.quiet) {
      const run = this.s.reads.live(uuid);
      if (run) runs.push(this.s.queries.view(run));
    }
    this.quiet.clear();
    if (runs.length === 0) return;
    const msg: RowsMessage = { type: 'rows', seq: this.s.reads.lastSeq(), runs };
    const line = JSON.stringify(msg) + '\n';
    for (const c of this.conns) if (c.subscribed && c.rows) send(c, line);
  }

  // A queued run's place moves with other runs' events, not its own: the
  // places that moved follow the events that moved them (after the whole
  // commit's events, and at most every 50 ms), as one rows message.
  private schedulePositions(): void {
    if (this.positionsTimer !== null || this.closed) return;
    if (!this.rowsWanted()) return;
    this.positionsTimer = setTimeout(() => this.flushPositions(), Math.max(0, this.positionsAt + POSITIONS_EVERY_MS - Date.now()));
    this.positionsTimer.unref();
  }

  private flushPositions(): void {
    this.positionsTimer = null;
    this.positionsAt = Date.now();
    let all: string | null = null;
    let changed: string | null = null;
    const current = this.s.queries.positions();
    const moved = this.positions.changes(current);
    const seq = this.s.reads.lastSeq();
    for (const c of this.conns) {
      if (!c.subscribed || !c.rows) continue;
      if (c.positionsDue) {
        c.positionsDue = false;
        all ??= JSON.stringify({ type: 'rows', seq, runs: [], positions: Object.fromEntries(current) } satisfies RowsMessage) + '\n';
        send(c, all);
      } else if (moved !== null) {
        changed ??= JSON.stringify({ type: 'rows', seq, runs: [], positions: moved } satisfies RowsMessage) + '\n';
        send(c, changed);
      }
    }
  }
}
