// The limiter pane's lines: each cap as a meter (used/limit), who holds its
// slots, who waits (count, first names, oldest wait), reserved slots, holds.
// Pure: stats and names come in as arguments.

import type { CapUsage } from '../../core/admission.js';
import { parseCap, providerCap } from '../../core/caps.js';
import type { Span } from './columns.js';
import { bar, dur, fit, meterToken } from './format.js';
import { quotaNear, quotaText, windowText, type QuotaView } from './quota.js';

export function capLabel(key: string): string {
  const cap = parseCap(key);
  if (cap === null) return key;
  return cap.kind === 'global' ? 'global' : `${cap.name} (${cap.kind})`;
}

function names(uuids: readonly string[], nameOf: (uuid: string) => string, max: number, total: number): string {
  const shown = uuids.slice(0, max).map(nameOf);
  const more = total - shown.length;
  return shown.join(', ') + (more > 0 ? `, +${more}` : '');
}

/**
 * One cap as lines of spans. `detailed` gives three lines (meter, holders,
 * waiting) for a tall side pane; otherwise everything is on one line. A
 * provider's cap says the usage windows its agents last reported (`quotas`).
 */
export function capLines(
  c: CapUsage,
  nameOf: (uuid: string) => string,
  now: number,
  labelWidth: number,
  detailed: boolean,
  compact = false,
  quotas: readonly QuotaView[] = [],
): Span[][] {
  const f = c.limit > 0 ? c.active / c.limit : c.active > 0 ? 1 : 0;
  const [filled, empty] = bar(f, 8);
  const held = c.held_until !== null && c.held_until > now;
  const meter: Span[] = [
    { text: fit(capLabel(c.cap), labelWidth) + ' ', token: 'text.primary' },
    { text: filled, token: meterToken(f) },
    { text: empty, token: 'meter.empty' },
    { text: ` ${fit(`${c.active}/${c.limit}`, 7)}`, token: meterToken(f) },
  ];
  if (c.reserved > 0) meter.push({ text: ` ${c.reserved} reserved`, token: 'text.muted' });
  if (held) meter.push({ text: ` hold ${dur(c.held_until! - now)}`, token: 'event.hold' });
  for (const q of quotasOf(c.cap, quotas)) meter.push({ text: ` · ${windowText(q, now)}`, token: quotaNear(q) ? 'event.hold' : 'text.muted' });
  const holders: Span[] =
    c.holders.length > 0
      ? [{ text: 'holders ', token: 'text.muted' }, { text: names(c.holders, nameOf, detailed ? 4 : 2, c.holders.length), token: 'status.working' }]
      : [{ text: 'no holders', token: 'text.muted' }];
  const waiting: Span[] =
    c.queued > 0
      ? [
          { text: `waiting ${c.queued}`, token: 'status.queued' },
          { text: ` (oldest ${dur(c.oldest_wait_ms)}): `, token: 'text.muted' },
          { text: names(c.waiting, nameOf, 3, c.queued), token: 'text.primary' },
        ]
      : [{ text: 'none waiting', token: 'text.muted' }];
  if (compact && !detailed) {
    // Narrow: the waiting line matters most; holders shrink to a count.
    const line: Span[] = [...meter, { text: '  ', token: 'text.muted' }];
    if (c.queued > 0) {
      line.push(
        { text: `waiting ${c.queued}`, token: 'status.queued' },
        { text: ` (oldest ${dur(c.oldest_wait_ms)}): `, token: 'text.muted' },
        { text: names(c.waiting, nameOf, 2, c.queued), token: 'text.primary' },
      );
    } else line.push({ text: 'none waiting', token: 'text.muted' });
    return [line];
  }
  if (detailed) {
    return [meter, [{ text: '  ', token: 'text.muted' }, ...holders], [{ text: '  ', token: 'text.muted' }, ...waiting]];
  }
  return [[...meter, { text: '  ', token: 'text.muted' }, ...holders, { text: '  │ ', token: 'border' }, ...waiting]];
}

/** The windows reported for a provider's cap (none for other caps). */
function quotasOf(key: string, quotas: readonly QuotaView[]): QuotaView[] {
  const cap = parseCap(key);
  return cap?.kind === 'provider' ? quotas.filter((q) => q.provider === cap.name) : [];
}

/** A line for each window of a provider that has no cap of its own to carry it (`quota claude 5h 91% · resets 16:50`). */
export function quotaLines(caps: readonly CapUsage[], quotas: readonly QuotaView[], now: number): Span[][] {
  return quotas
    .filter((q) => !caps.some((c) => c.cap === providerCap(q.provider)))
    .map((q) => [
      { text: 'quota ', token: 'text.muted' },
      { text: quotaText(q, now), token: quotaNear(q) ? 'event.hold' : 'text.primary' },
    ]);
}

// ---------------------------------------------------------------------------
// The focused limiter: a list of its caps, each followed by the runs holding
// its slots and the first runs waiting on it, one per line, so a holder or a
// waiter can be selected and opened.

export type LimiterRole = 'cap' | 'holder' | 'waiter' | 'more' | 'none';

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
    const item = (role: LimiterRole, uuid: string | null, place = 0): LimiterItem => ({ key: `${c.cap}\u0000${role}\u0000${uuid ?? ''}`, role, cap: c, uuid, place });
    items.push(item('cap', null));
    for (const u of c.holders) items.push(item('holder', u));
    c.waiting.forEach((u, i) => items!.push(item('waiter', u, i + 1)));
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

/** One line of the focused pane. */
export function itemSpans(it: LimiterItem, nameOf: (uuid: string) => string, now: number, labelWidth: number, quotas: readonly QuotaView[] = []): Span[] {
  switch (it.role) {
    case 'cap':
      return capLines(it.cap, nameOf, now, labelWidth, true, false, quotas)[0]!;
    case 'holder':
      return [{ text: '    holds  ', token: 'text.muted' }, { text: nameOf(it.uuid!), token: 'status.working' }];
    case 'waiter':
      return [{ text: `    waits  #${it.place} `, token: 'text.muted' }, { text: nameOf(it.uuid!), token: 'text.primary' }];
    case 'more':
      return [{ text: `    … ${it.cap.queued - it.cap.waiting.length} more waiting (oldest ${dur(it.cap.oldest_wait_ms)})`, token: 'text.muted' }];
    case 'none':
      return [{ text: '    no holders, none waiting', token: 'text.muted' }];
  }
}
