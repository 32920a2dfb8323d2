// Text bound for a terminal, made safe. Anything an agent (or a user) wrote
// may carry escape sequences — an OSC 52 clipboard write, a title change, a
// cursor move — and must reach a screen as plain characters only. Pure, and
// free of dependencies: the server and every CLI verb load it.

/**
 * ESC-introduced sequences, as terminals parse them: CSI (`ESC [` … final
 * byte), OSC / DCS / SOS / PM / APC strings (up to BEL or ST), and two-byte
 * escapes. Their 8-bit C1 forms (U+009B CSI, U+009D OSC, …) too.
 */
const SEQUENCES =
  /(?:\x1b\[|\u009b)[\x20-\x3f]*[\x40-\x7e]?|(?:\x1b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[\s\S]*?(?:\x07|\x1b\\|\u009c|$)|\x1b[\x20-\x2f]*[\x30-\x7e]?/g;

/** C0 controls (but tab and newline, handled apart), DEL and C1 controls. */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

// Bidi overrides and isolates can make a line read differently from its bytes.
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line for a terminal: escape sequences removed, other controls (newlines
 * and tabs included) shown as a space, so a value can never move the cursor,
 * end a row early or change the terminal's state.
 */
export function safeLine(text: string): string {
  return text
    .replace(SEQUENCES, '')
    .replace(/[\t\n]/g, ' ')
    .replace(CONTROLS, ' ')
    .replace(BIDI, '');
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
  return /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/.test(text);
}
