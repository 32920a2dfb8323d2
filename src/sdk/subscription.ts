// Events as an async iterator: the client core's follow (src/client/follow.ts),
// with each replayed event's current row, and a history with a hole (events
// retention removed) refused as OrcrError `pruned` for the program to decide.

import { follow, type FollowItem } from '../client/follow.js';
import type { Home } from '../config/home.js';
import { OrcrError, toOrcrError } from './errors.js';

export type EventItem = Omit<FollowItem, 'name'>;

export function subscribe(home: Home, since: number, autoStart = true): AsyncIterableIterator<EventItem> {
  const inner = follow(home, {
    since,
    rows: true,
    autoStart,
    onPruned(from, first) {
      // As `events --follow` says it, but a program must choose to skip the hole: it resubscribes from there.
      throw new OrcrError(
        'pruned',
        `events ${from}–${first - 1} were removed by retention (retention.ended, orcr gc); subscribe({ since: ${first - 1} }) follows from ${first}`,
        { firstSeq: first },
      );
    },
  });
  const it: AsyncIterableIterator<EventItem> = {
    async next() {
      try {
        const r = await inner.next();
        return r.done ? r : { value: { event: r.value.event, run: r.value.run }, done: false };
      } catch (e) {
        throw toOrcrError(e);
      }
    },
    async return() {
      await inner.return!();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}
