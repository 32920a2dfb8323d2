// Listings read page by page, for every client: run.list answers a page at
// most, newest first (a home of months holds a million runs), so the whole
// listing is read back to its start; `events` answers a page from a seq, so
// the journal is read forward to its end.

import type { RunEvent } from '../core/events.js';
import { RUN_STATUSES, type RunStatus } from '../core/types.js';
import type { Caller, PublicRun } from './methods.js';
import { UsageError } from './usage-error.js';

export interface ListFilter {
  /** Ended runs too (default: active ones only). */
  all?: boolean;
  status?: RunStatus;
  provider?: string;
}

/** Every run the filter selects, oldest first. */
export async function listRuns(c: Caller, filter: ListFilter): Promise<PublicRun[]> {
  if (filter.status !== undefined && !(RUN_STATUSES as readonly unknown[]).includes(filter.status)) {
    throw new UsageError(`"status" must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(filter.status)}`);
  }
  if (filter.provider !== undefined && typeof filter.provider !== 'string')
    throw new UsageError(`"provider" must be a string, got ${JSON.stringify(filter.provider)}`);
  const pages: PublicRun[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await c.call('run.list', { all: filter.all === true, status: filter.status, provider: filter.provider, before });
    pages.unshift(page.runs);
    if (page.next === null || page.next === undefined) return pages.flat();
    before = page.next;
  }
}

/** Most events one `events` call answers. */
const EVENT_PAGE = 10_000;

/** The journal's events after `since`, a page at a time (with the names of their runs), to its end as of each read. */
export async function* eventPages(c: Caller, since: number): AsyncGenerator<{ events: RunEvent[]; names: Record<string, string> }> {
  let cursor = since;
  for (;;) {
    const page = await c.call('events', { since: cursor, limit: EVENT_PAGE });
    yield { events: page.events, names: page.names ?? {} };
    if (page.events.length < EVENT_PAGE) return;
    cursor = page.events[page.events.length - 1]!.seq;
  }
}
