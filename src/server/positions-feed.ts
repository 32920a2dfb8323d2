// The queue positions subscribers are kept up to date with: each queued run's
// place in admission order, as the run's view gives it (queue_position). A
// run's place moves without an event about it (a run ahead of it started, or
// one of a higher priority was queued), so the transport sends the places
// that changed since it last sent them, in a rows message; a connection
// that has just subscribed is sent all of them once, whatever it missed
// between its snapshot and then. A place is null when the run has none now
// (it left the queue, or while a cluster's database is away no place is
// known). Clients show these figures and work out no order of their own.

import type { QueuePositions } from '../protocol/wire.js';

export class PositionsFeed {
  private sent = new Map<string, number>();

  /** The places that changed since the last call, from the places as they are now; null when none did. */
  changes(current: ReadonlyMap<string, number>): QueuePositions | null {
    const changed: QueuePositions = {};
    let any = false;
    for (const [uuid, pos] of current) {
      if (this.sent.get(uuid) !== pos) {
        changed[uuid] = pos;
        any = true;
      }
    }
    for (const uuid of this.sent.keys()) {
      if (!current.has(uuid)) {
        changed[uuid] = null;
        any = true;
      }
    }
    this.sent = new Map(current);
    return any ? changed : null;
  }
}
