// The store and the theme reach components through context; each component
// selects its own slice (primitives, or useShallow for arrays) so an update
// re-renders only what shows the changed data. Components import only the
// view model (src/tui/view) and the store's types: test/tui/rooms.test.ts
// fails on anything else.

import React, { createContext, memo, useContext } from 'react';
import { Box, Transform } from 'ink';
import { useStore } from 'zustand';
import type { TuiState, TuiStore } from '../src/tui/state/store.js';
import { NO_COLOR_THEME, tokenStyle, type Theme, type TokenStyle } from '../src/tui/view/theme.js';
import type { Token } from '../src/tui/model/tokens.js';
import type { Span } from '../src/tui/view/columns.js';
import { clipParts, type Part } from '../src/tui/view/line-clip.js';
import { textWidth, titleFit } from '../src/tui/view/format.js';
import { paintLine } from '../src/tui/view/painted.js';

export const StoreContext = createContext<TuiStore | null>(null);
export const ThemeContext = createContext<Theme>(NO_COLOR_THEME);

function useTuiStore(): TuiStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('orcr-tui components need a StoreContext provider');
  return store;
}

export function useTui<T>(selector: (s: TuiState) => T): T {
  return useStore(useTuiStore(), selector);
}

function useTheme(): Theme {
  return useContext(ThemeContext);
}

/** Greyed out while the supervisor is away: the state shown may be stale. */
export function useStale(): boolean {
  return useTui((s) => s.conn.state !== 'up' && s.loaded);
}

export interface LineProps {
  readonly spans: readonly Span[];
  /** Columns the line may use: cut to fit, an ellipsis marking the cut. Without it, the line must fit where it is put. */
  readonly width?: number;
  readonly inverse?: boolean;
  readonly dim?: boolean;
  readonly bold?: boolean;
}

/** Adjacent spans that look the same become one: fewer nodes and escape sequences per frame. */
function mergeSpans(theme: Theme, spans: readonly Span[]): Part<TokenStyle & { inverse?: boolean }>[] {
  const out: { text: string; style: TokenStyle & { inverse?: boolean }; key: string }[] = [];
  for (const sp of spans) {
    if (sp.text === '') continue;
    const style = sp.inverse ? { ...tokenStyle(theme, sp.token), inverse: true } : tokenStyle(theme, sp.token);
    // Spaces only need a colour for inverse/background; merge them into their neighbour.
    const key = `${style.color ?? ''}|${style.dimColor ? 1 : 0}|${style.bold ? 1 : 0}|${sp.inverse ? 1 : 0}`;
    const last = out[out.length - 1];
    if (last && (last.key === key || (sp.text.trim() === '' && !sp.inverse && !last.style.inverse))) last.text += sp.text;
    else out.push({ text: sp.text, style, key });
  }
  return out;
}

const BLANKS: string[] = [];
/** `n` spaces, one string per width: what Ink measures and caches stays a vocabulary of at most one key per column count. */
function blank(n: number): string {
  return (BLANKS[n] ??= ' '.repeat(n));
}

/**
 * One line, painted once into escape sequences (painted.ts) and handed to
 * Ink through <Transform>: Ink lays out and measures the child — a blank as
 * wide as the line — and writes what the transform returns in its place.
 * Two reasons. Ink's measure-text.js caches the size of every distinct text
 * it ever measured, keyed by the whole string, and never drops one: with the
 * line's own text as the child, every elapsed second of every row and every
 * event-log line would be a key kept for good; blanks are one key per width.
 * And nested <Text>s are painted again by Ink on every frame, every line,
 * changed or not; a painted string is copied as it is.
 */
function LineImpl({ spans, width, inverse, dim, bold }: LineProps): React.JSX.Element {
  const theme = useTheme();
  const parts = mergeSpans(theme, spans);
  const shown = width === undefined ? parts : clipParts(parts, width);
  const painted = paintLine(shown, { inverse, dim, bold });
  let cols = 0;
  for (const p of shown) cols += textWidth(p.text);
  // Ink calls this for each line of the laid-out blank: one, as the line never holds more than fits.
  const transform = (_line: string, index: number): string => (index === 0 ? painted : '');
  return <Transform transform={transform}>{blank(cols)}</Transform>;
}

/** Spans that read the same: callers build new arrays every render, mostly of the same words. */
function sameSpans(a: readonly Span[], b: readonly Span[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.text !== y.text || x.token !== y.token || (x.inverse ?? false) !== (y.inverse ?? false)) return false;
  }
  return true;
}

/**
 * A line draws again only when what it shows changed: a pane re-rendered for
 * one new line (the event log at hundreds of events a second) leaves its other
 * lines' Ink nodes untouched, so Ink's per-node caches keep them.
 */
export const Line = memo(
  LineImpl,
  (a, b) => a.width === b.width && a.inverse === b.inverse && a.dim === b.dim && a.bold === b.bold && sameSpans(a.spans, b.spans),
);

export interface TitleProps {
  readonly title: string;
  readonly width: number;
  readonly focused?: boolean;
  readonly right?: string;
}

/**
 * A pane's title as a rule: "─ Runs 12/33 ──────── right ─", one line. The
 * rule is a top border Ink draws itself: as text, a row of box-drawing
 * characters would be measured grapheme by grapheme on every frame.
 */
export function PaneTitle({ title: wholeTitle, width, focused, right: wholeRight }: TitleProps): React.JSX.Element {
  const theme = useTheme();
  const { title, right } = titleFit(wholeTitle, wholeRight ?? '', width);
  const token: Token = focused ? 'focus' : 'border';
  const rule = tokenStyle(theme, 'border');
  return (
    <Box flexDirection="row" width={width} height={1}>
      <Line spans={[{ text: `─ ${title} `, token }]} bold={focused} />
      <Box
        flexGrow={1}
        borderStyle="single"
        borderTop
        borderBottom={false}
        borderLeft={false}
        borderRight={false}
        borderColor={rule.color}
        borderDimColor={rule.dimColor}
      />
      {right ? <Line spans={[{ text: ` ${right} ─`, token: focused ? 'focus' : 'text.muted' }]} bold={focused} /> : null}
    </Box>
  );
}
