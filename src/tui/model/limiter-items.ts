// The focused limiter's lines: each cap, then the runs holding its slots and
// the first runs waiting on it, one per line, so a holder or a waiter can be
// selected and opened. The store moves its selection over them
// (state/navigation.ts) and the view draws them (view/limiter.ts). Pure.

import type { CapUsage } from '../../core/admission.js';

type LimiterRole = 'cap' | 'holder' | 'waiter' | 'more' | 'none';

export interface LimiterItem {
  /** Stable across stats refreshes while the same run holds or waits on the same cap. */
  key: string;
  role: LimiterRole;
  cap: CapUsage;
  uuid: string | null;
  /** Waiters: 1-based place in this cap's line (admission order). */
  place: number;
}

const itemsCache = new WeakMap<readonly CapUsage[], LimiterItem[]>();

/** The focused pane's lines (computed once per stats). */
export function limiterItems(caps: readonly CapUsage[]): LimiterItem[] {
  let items = itemsCache.get(caps);
  if (items) return items;
  items = [];
  for (const c of caps) {
    const item = (role: LimiterRole, uuid: string | null, place = 0): LimiterItem => ({
      key: `${c.cap}\u0000${role}\u0000${uuid ?? ''}`,
      role,
      cap: c,
      uuid,
      place,
    });
    items.push(item('cap', null));
    for (const u of c.holders) items.push(item('holder', u));
    c.waiting.forEach((u, i) => items.push(item('waiter', u, i + 1)));
    if (c.queued > c.waiting.length) items.push(item('more', null));
    if (c.holders.length === 0 && c.queued === 0) items.push(item('none', null));
  }
  itemsCache.set(caps, items);
  return items;
}

export const selectable = (it: LimiterItem | undefined): boolean => it !== undefined && (it.role === 'holder' || it.role === 'waiter');

/** The selectable line nearest `from` going `dir` (+1 down, -1 up), `from` itself included; -1 if none that way. */
export function nextSelectable(items: readonly LimiterItem[], from: number, dir: 1 | -1): number {
  for (let i = from; i >= 0 && i < items.length; i += dir) if (selectable(items[i])) return i;
  return -1;
}
