// The orders the runs list can be in: by status (the supervisor's own
// order, queued runs in admission order), by elapsed time, cost, tokens or
// name, reversed, grouped by provider, workload or repository. Pure.

import type { PublicRun } from '../../protocol/views.js';

/** Sort order: what needs a person first, then what runs, then what waits, then history. */
export const STATUS_RANK: Readonly<Record<string, number>> = { blocked: 0, idle: 1, working: 2, starting: 3, queued: 4, ended: 5 };

/** What the runs list is ordered by: `status` is the supervisor's own order (queued runs in admission order). */
export const SORT_KEYS = ['status', 'elapsed', 'cost', 'tokens', 'name'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface SortSpec {
  key: SortKey;
  /** Reversed: by status, the order upside down; otherwise smallest (or A) first instead of largest first. */
  reverse: boolean;
  /** Runs of one provider, workload or repository together, groups by name, the order above inside each. */
  group?: GroupKey | null;
}
const GROUP_KEYS = ['provider', 'workload', 'repo'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];
export const DEFAULT_SORT: SortSpec = { key: 'status', reverse: false };

export function isSortSpec(v: unknown): v is SortSpec {
  const o = v as Partial<SortSpec> | null;
  return (
    !!o &&
    typeof o === 'object' &&
    SORT_KEYS.includes(o.key as SortKey) &&
    typeof o.reverse === 'boolean' &&
    (o.group === undefined || o.group === null || GROUP_KEYS.includes(o.group))
  );
}

const startedMs = (r: PublicRun): number | null => (r.started_at ? Date.parse(r.started_at) : null);

/** Largest first (names: A first); ties in queue order. `now` is for a live run's elapsed time. */
export function sortCompare(key: Exclude<SortKey, 'status'>, now: number): (a: PublicRun, b: PublicRun) => number {
  const by = (f: (r: PublicRun) => number) => (a: PublicRun, b: PublicRun) => f(b) - f(a) || a.queue_seq - b.queue_seq;
  switch (key) {
    case 'elapsed':
      return by((r) => {
        const s = startedMs(r);
        return s === null ? -1 : (r.ended_at ? Date.parse(r.ended_at) : now) - s;
      });
    case 'cost':
      return by((r) => r.cost_usd);
    case 'tokens':
      return by((r) => r.tokens.input + r.tokens.output);
    case 'name':
      return (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.queue_seq - b.queue_seq);
  }
}

/** The folder name of the repository a run's worktree was made from; null for a run in place (or from a supervisor too old to say). */
export function repoName(r: PublicRun): string | null {
  if (!r.worktree?.repo) return null;
  const parts = r.worktree.repo.split('/').filter((p) => p !== '');
  return parts[parts.length - 1] ?? r.worktree.repo;
}

/** The name a run is grouped under; runs without a repository group after those with one. */
export function groupName(r: PublicRun, g: GroupKey): [number, string] {
  if (g !== 'repo') return [0, r[g]];
  const name = repoName(r);
  return name === null ? [1, ''] : [0, name];
}

/** Queued runs in the supervisor's admission order: the place it gives each (queue_position), then queue_seq for one it gives none. */
export function queueCompare(a: PublicRun, b: PublicRun): number {
  return (a.queue_position ?? Infinity) - (b.queue_position ?? Infinity) || a.queue_seq - b.queue_seq;
}

export function compareRuns(a: PublicRun, b: PublicRun): number {
  const ra = STATUS_RANK[a.status] ?? 9;
  const rb = STATUS_RANK[b.status] ?? 9;
  if (ra !== rb) return ra - rb;
  return a.queue_seq - b.queue_seq;
}
