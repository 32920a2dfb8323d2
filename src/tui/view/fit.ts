// Lines made of parts of unequal worth (the header's counts, holds, meters
// and burn; the footer's notes): on a narrow terminal the least needed parts
// go whole, so nothing is cut mid-word while something could make way. Pure.

import type { Span } from './columns.js';
import { textWidth } from './format.js';

export interface Group {
  spans: Span[];
  /** Higher stays longer. */
  priority: number;
}

const spansWidth = (spans: readonly Span[]): number => spans.reduce((n, s) => n + textWidth(s.text), 0);

/** The groups that fit in `width`, highest priority first, kept in their order; the first one always. */
export function fitGroups(groups: readonly Group[], width: number): Span[] {
  if (groups.length === 0) return [];
  const keep = new Set<Group>([groups[0]!]);
  let used = spansWidth(groups[0]!.spans);
  const byWorth = groups.slice(1).sort((a, b) => b.priority - a.priority);
  for (const g of byWorth) {
    const w = spansWidth(g.spans);
    if (used + w > width) continue;
    keep.add(g);
    used += w;
  }
  return groups.filter((g) => keep.has(g)).flatMap((g) => g.spans);
}

/** The end of a path in `width` columns, a cut marked at its start: "…/runs/a-long-name". */
export function tailFit(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  if (width <= 1) return width === 1 ? '…' : '';
  const parts = Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text), (g) => g.segment);
  let out = '';
  let used = 1;
  for (let i = parts.length - 1; i >= 0; i--) {
    const w = textWidth(parts[i]!);
    if (used + w > width) break;
    out = parts[i]! + out;
    used += w;
  }
  return '…' + out;
}

export { spansWidth };
