// Runs as `orcr ps` lists them, for the SDK and `orcr mcp`: run.list answers
// a page at most, newest first (a home of months holds a million runs), so
// the whole listing is read page by page back to its start.

import { RUN_STATUSES, type RunStatus } from '../core/types.js';
import type { PublicRun } from '../protocol/views.js';
import { UsageError } from './usage-error.js';

export interface ListFilter {
  /** Ended runs too (default: active ones only). */
  all?: boolean;
  status?: RunStatus;
  provider?: string;
}

type Call = <T>(method: string, params: Record<string, unknown>) => Promise<T>;

/** Every run the filter selects, oldest first. */
export async function listRuns(call: Call, filter: ListFilter): Promise<PublicRun[]> {
  if (filter.status !== undefined && !(RUN_STATUSES as readonly unknown[]).includes(filter.status)) {
    throw new UsageError(`"status" must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(filter.status)}`);
  }
  if (filter.provider !== undefined && typeof filter.provider !== 'string') throw new UsageError(`"provider" must be a string, got ${JSON.stringify(filter.provider)}`);
  const pages: PublicRun[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await call<{ runs: PublicRun[]; next: number | null }>('run.list', { all: filter.all === true, status: filter.status, provider: filter.provider, before });
    pages.unshift(page.runs);
    if (page.next === null || page.next === undefined) return pages.flat();
    before = page.next;
  }
}
