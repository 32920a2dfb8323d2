// The limiter pane's lines: each cap as a meter (used/limit), who holds its
// slots, who waits (count, first names, oldest wait), reserved slots, holds.
// Pure: stats and names come in as arguments.

import type { CapUsage } from '../../core/admission.js';
import { parseCap, providerCap } from '../../core/caps.js';
import type { Span } from './columns.js';
import { bar, dur, fit, meterToken } from './format.js';
import { quotaNear, quotaText, windowText, type QuotaView } from './quota.js';
import type { LimiterItem } from '../model/limiter-items.js';

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
      ? [
          { text: 'holders ', token: 'text.muted' },
          { text: names(c.holders, nameOf, detailed ? 4 : 2, c.holders.length), token: 'status.working' },
        ]
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

/** One line of the focused pane. */
export function itemSpans(it: LimiterItem, nameOf: (uuid: string) => string, now: number, labelWidth: number, quotas: readonly QuotaView[] = []): Span[] {
  switch (it.role) {
    case 'cap':
      return capLines(it.cap, nameOf, now, labelWidth, true, false, quotas)[0]!;
    case 'holder':
      return [
        { text: '    holds  ', token: 'text.muted' },
        { text: nameOf(it.uuid!), token: 'status.working' },
      ];
    case 'waiter':
      return [
        { text: `    waits  #${it.place} `, token: 'text.muted' },
        { text: nameOf(it.uuid!), token: 'text.primary' },
      ];
    case 'more':
      return [{ text: `    … ${it.cap.queued - it.cap.waiting.length} more waiting (oldest ${dur(it.cap.oldest_wait_ms)})`, token: 'text.muted' }];
    case 'none':
      return [{ text: '    no holders, none waiting', token: 'text.muted' }];
  }
}
