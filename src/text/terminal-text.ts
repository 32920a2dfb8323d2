// Text bound for a terminal: made safe, and measured in columns. Anything an
// agent (or a user) wrote may carry escape sequences — an OSC 52 clipboard
// write, a title change, a cursor move — and must reach a screen as plain
// characters only. Pure: no I/O; used by the CLI's human output and the TUI.

import stringWidth from 'string-width';

/**
 * ESC-introduced sequences, as terminals parse them: CSI (`ESC [` … final
 * byte), OSC / DCS / SOS / PM / APC strings (up to BEL or ST), and two-byte
 * escapes. Their 8-bit C1 forms (U+009B CSI, U+009D OSC, …) too.
 */
const SEQUENCES =
  // eslint-disable-next-line no-control-regex
  /(?:\x1b\[|\u009b)[\x20-\x3f]*[\x40-\x7e]?|(?:\x1b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\x07|\x1b\\|\u009c|$)|\x1b[\x20-\x2f]*[\x30-\x7e]?/g;

/** C0 controls (but tab and newline, handled apart), DEL and C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

// Bidi overrides and isolates can make a line read differently from its bytes.
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line for a terminal: escape sequences removed, other controls (newlines
 * and tabs included) shown as a space, so a value can never move the cursor,
 * end a row early or change the terminal's state.
 */
export function safeLine(text: string): string {
  return text.replace(SEQUENCES, '').replace(/[\t\n]/g, ' ').replace(CONTROLS, ' ').replace(BIDI, '');
}

/** Like safeLine, but newlines kept (tabs become two spaces): for multi-line text. */
export function safeText(text: string): string {
  return text
    .replace(SEQUENCES, '')
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, '  ')
    .replace(CONTROLS, (c) => (c === '\n' ? c : ' '))
    .replace(BIDI, '');
}

/** Does the text hold anything safeLine would change (a control or a sequence)? */
export function hasControls(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(text);
}

/** Columns a (safe) string takes on a terminal: wide CJK and emoji count two, combining marks none. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** Cut to at most `width` columns, marking a cut with an ellipsis. */
export function truncateDisplay(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  if (width === 1) return '…';
  let out = '';
  let used = 0;
  for (const { segment } of graphemes(text)) {
    const w = displayWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return out + '…';
}

/** Pad with spaces to `width` columns (never cuts). */
export function padDisplay(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const pad = width - displayWidth(text);
  if (pad <= 0) return text;
  return align === 'left' ? text + ' '.repeat(pad) : ' '.repeat(pad) + text;
}

let segmenter: Intl.Segmenter | null = null;
function graphemes(text: string): Iterable<{ segment: string }> {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}
