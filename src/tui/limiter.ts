// The limiter pane's lines: each cap as a meter (used/limit), who holds its
// slots, who waits (count, first names, oldest wait), reserved slots, holds.

import type { CapUsage } from '../core/admission.js';
import type { Span } from './columns.js';
import { bar, dur, fit, meterToken } from './format.js';

export function capLabel(cap: string): string {
  if (cap === 'global') return 'global';
  const i = cap.indexOf(':');
  return i > 0 ? `${cap.slice(i + 1)} (${cap.slice(0, i)})` : cap;
}

function names(uuids: readonly string[], nameOf: (uuid: string) => string, max: number, total: number): string {
  const shown = uuids.slice(0, max).map(nameOf);
  const more = total - shown.length;
  return shown.join(', ') + (more > 0 ? `, +${more}` : '');
}

/**
 * One cap as lines of spans. `detailed` gives three lines (meter, holders,
 * waiting) for a tall side pane; otherwise everything is on one line.
 */
export function capLines(
  c: CapUsage,
  nameOf: (uuid: string) => string,
  now: number,
  labelWidth: number,
  detailed: boolean,
  compact = false,
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
