// Figures: a median of repeated runs with its min–max, a target printed beside
// it, and for the quick form an order-of-magnitude floor or ceiling.

export interface Figure {
  /** Which bench item (1–7, or "latency"). */
  item: string;
  name: string;
  unit: string;
  median: number;
  min: number;
  max: number;
  /** How many repeated runs the median is over. */
  runs: number;
  /** Human text printed beside the figure, e.g. "≤ 3 ms". */
  target?: string;
  /** Whether the target is met; null when the figure has no target. */
  met?: boolean | null;
  /** Quick-form guard: a median below floor / above ceiling fails (set 10× off the target or a measured value). */
  floor?: number;
  ceiling?: number;
  note?: string;
}

export interface Skipped {
  item: string;
  name: string;
  reason: string;
}

export interface ItemResult {
  figures: Figure[];
  skipped: Skipped[];
}

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const pct = (xs: readonly number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export interface FigOpts {
  target?: string;
  /** Decides `met` from the median. */
  meets?: (median: number) => boolean;
  floor?: number;
  ceiling?: number;
  note?: string;
}

export function fig(item: string, name: string, unit: string, xs: readonly number[], o: FigOpts = {}): Figure {
  const m = median(xs);
  const f: Figure = { item, name, unit, median: m, min: Math.min(...xs), max: Math.max(...xs), runs: xs.length };
  if (o.target !== undefined) f.target = o.target;
  f.met = o.meets ? o.meets(m) : null;
  if (o.floor !== undefined) f.floor = o.floor;
  if (o.ceiling !== undefined) f.ceiling = o.ceiling;
  if (o.note !== undefined) f.note = o.note;
  return f;
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  if (a >= 1000) return Math.round(n).toLocaleString('en-US');
  if (a >= 100) return n.toFixed(0);
  if (a >= 10) return n.toFixed(1);
  if (a >= 1) return n.toFixed(2);
  return n.toFixed(3);
}

const HEAD = ['#', 'figure', 'median', 'min–max', 'n', 'target', 'ok'];

function rowsOf(figures: readonly Figure[], skipped: readonly Skipped[]): string[][] {
  const rows = figures.map((f) => [
    f.item,
    f.name,
    `${fmt(f.median)} ${f.unit}`.trim(),
    f.runs > 1 ? `${fmt(f.min)}–${fmt(f.max)}` : '',
    String(f.runs),
    f.target ?? '',
    f.met === true ? 'yes' : f.met === false ? 'MISS' : '',
  ]);
  for (const s of skipped) rows.push([s.item, s.name, 'skipped', '', '', s.reason, '']);
  return rows;
}

export function textTable(figures: readonly Figure[], skipped: readonly Skipped[]): string {
  const rows = rowsOf(figures, skipped);
  const widths = HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(HEAD), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export function markdownTable(figures: readonly Figure[], skipped: readonly Skipped[]): string {
  const esc = (s: string): string => s.replace(/\|/g, '\\|');
  const rows = rowsOf(figures, skipped);
  return [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}
