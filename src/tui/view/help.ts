// The help screen's lines at a width: the keys in columns that never touch
// (two spaces between a key and its text, three between columns), each
// description wrapped inside its column instead of cut, read down each
// column; then the glyphs, the themes and a few notes, wrapped to the width.
// Pure: the Help component draws what this gives.

import { wrap } from '../../text/transcript-lines.js';
import type { Span } from './columns.js';
import { STATUS_GLYPH, STATUSES, statusToken, textWidth } from './format.js';
import type { Token } from '../model/tokens.js';

interface HelpEntry {
  label: string;
  hint: string;
}

const INDENT = 2;
/** Between a key and its description. */
const KEY_GAP = 2;
/** Between two columns. */
const COLUMN_GAP = 3;
/** A description narrower than this reads badly: fewer columns then. */
const MIN_HINT = 20;

interface Laid {
  columns: { label: string; lines: string[] }[][];
  rows: number;
  colWidth: number;
}

/** Entries down `k` columns, balanced by the rows they take; null when a description would get too narrow. */
function layIn(entries: readonly HelpEntry[], width: number, k: number, labelW: number): Laid | null {
  const colWidth = Math.floor((width - INDENT - COLUMN_GAP * (k - 1)) / k);
  const hintW = colWidth - labelW - KEY_GAP;
  if (hintW < MIN_HINT && k > 1) return null;
  const cells = entries.map((e) => ({ label: e.label, lines: wrap(e.hint, Math.max(1, hintW)) }));
  const total = cells.reduce((n, c) => n + c.lines.length, 0);
  const target = Math.ceil(total / k);
  const columns: { label: string; lines: string[] }[][] = [[]];
  let used = 0;
  for (const c of cells) {
    // A column is full at its share of the rows; the last one takes the rest.
    if (used > 0 && used + c.lines.length > target && columns.length < k) {
      columns.push([]);
      used = 0;
    }
    columns[columns.length - 1]!.push(c);
    used += c.lines.length;
  }
  const rows = Math.max(...columns.map((col) => col.reduce((n, c) => n + c.lines.length, 0)));
  return { columns, rows, colWidth };
}

/**
 * The keys' lines: as many columns as make the list shortest (each
 * description at least MIN_HINT wide), or fewer when that is as short.
 */
function keyLines(entries: readonly HelpEntry[], width: number): Span[][] {
  if (entries.length === 0) return [];
  const labelW = Math.max(...entries.map((e) => textWidth(e.label)));
  let best: Laid | null = null;
  for (let k = 1; k <= entries.length; k++) {
    const laid = layIn(entries, width, k, labelW);
    if (!laid) break;
    if (!best || laid.rows < best.rows) best = laid;
  }
  const laid = best!;
  // Each column as rows of [key, text] (a wrapped description's rows have no key).
  const grid = laid.columns.map((col) => col.flatMap((c) => c.lines.map((line, i) => ({ key: i === 0 ? c.label : '', text: line }))));
  const out: Span[][] = [];
  for (let r = 0; r < laid.rows; r++) {
    const row: Span[] = [{ text: ' '.repeat(INDENT), token: 'text.muted' }];
    grid.forEach((col, ci) => {
      const cell = col[r];
      const last = ci === grid.length - 1;
      if (!cell) {
        if (!last) row.push({ text: ' '.repeat(laid.colWidth + COLUMN_GAP), token: 'text.muted' });
        return;
      }
      row.push({ text: cell.key + ' '.repeat(labelW - textWidth(cell.key) + KEY_GAP), token: 'focus' });
      const pad = last ? 0 : laid.colWidth - labelW - KEY_GAP - textWidth(cell.text) + COLUMN_GAP;
      row.push({ text: cell.text + ' '.repeat(Math.max(0, pad)), token: 'text.primary' });
    });
    out.push(row);
  }
  return out;
}

/** Items laid left to right, `sep` apart, a new line when the next does not fit; an item wider than a line is wrapped. */
function flowLines(items: readonly Span[], width: number, sep = '  '): Span[][] {
  const room = Math.max(1, width - INDENT);
  const out: Span[][] = [];
  let line: Span[] = [];
  let used = 0;
  const flush = (): void => {
    if (line.length) out.push([{ text: ' '.repeat(INDENT), token: 'text.muted' }, ...line]);
    line = [];
    used = 0;
  };
  const sepW = textWidth(sep);
  for (const it of items) {
    for (const [i, piece] of wrap(it.text, room).entries()) {
      const w = textWidth(piece);
      if (used > 0 && (i > 0 || used + sepW + w > room)) flush();
      if (used > 0) {
        line.push({ text: sep, token: 'text.muted' });
        used += sepW;
      }
      line.push({ text: piece, token: it.token, ...(it.inverse ? { inverse: true } : {}) });
      used += w;
    }
  }
  flush();
  return out;
}

/** A paragraph in one colour, wrapped to the width. */
function noteLines(text: string, token: Token, width: number): Span[][] {
  return wrap(text, Math.max(1, width - INDENT)).map((l) => [
    { text: ' '.repeat(INDENT), token: 'text.muted' },
    { text: l, token },
  ]);
}

export interface HelpInput {
  entries: readonly HelpEntry[];
  themes: readonly string[];
  theme: string;
  /** Built-in themes a user file stands in for, in words (themeListNote); '' when none. */
  themeNote?: string;
  demo?: boolean;
}

/** Every line of the help screen at a width. */
export function helpLines(width: number, h: HelpInput): Span[][] {
  const lines: Span[][] = [...keyLines(h.entries, width), []];
  const legend: Span[] = STATUSES.map((st) => ({ text: `${STATUS_GLYPH[st]} ${st}`, token: statusToken(st) }));
  legend.push({ text: '⟳ loop (yellow warned, red detected)', token: 'meter.warn' });
  lines.push(...flowLines(legend, width, '   '));
  const themes: Span[] = [{ text: 'themes:', token: 'text.muted' }];
  for (const t of h.themes) themes.push({ text: t === h.theme ? `[${t}]` : t, token: t === h.theme ? 'focus' : 'text.primary' });
  themes.push({ text: '(t cycles; remembered in tui.json)', token: 'text.muted' });
  if (h.themeNote) themes.push({ text: `· ${h.themeNote}`, token: 'meter.warn' });
  lines.push(...flowLines(themes, width, ' '));
  lines.push(
    ...noteLines(
      'tab focuses the limiter, then the event log: j/k select a holder, waiter or event, enter opens its run, x/w/s act on it.',
      'text.muted',
      width,
    ),
  );
  lines.push(
    ...noteLines(
      h.demo
        ? 'q ends this demo: its agents and supervisor stop and its throw-away home is removed.'
        : 'q quits the TUI only: agents keep running under the supervisor.',
      'text.muted',
      width,
    ),
  );
  lines.push(...noteLines('new run: -a PROVIDER -p PROMPT [-n NAME] [-w WORKLOAD] …  or  -- COMMAND ARGS (quotes work as in a shell)', 'text.muted', width));
  return lines;
}
