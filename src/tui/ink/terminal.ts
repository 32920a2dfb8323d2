// What must hold on every way out of the TUI, whatever Ink managed to do:
// input cooked and a cursor to type with — and the main screen back if Ink's
// own unmount (which leaves the alternate screen it entered) never ran.
// Ink draws, enters the alternate screen, and lends the terminal out for a
// take-over (suspendTerminal); this never draws.

const LEAVE_ALT = '\x1b[?1049l';
const SHOW_CURSOR = '\x1b[?25h';

/** Idempotent; safe from signal and error handlers, and when the terminal is gone. */
export function restoreTerminal(opts: { leftAlt: boolean }, out: NodeJS.WriteStream = process.stdout, input: NodeJS.ReadStream = process.stdin): void {
  try {
    if (input.isTTY && input.isRaw) input.setRawMode(false);
  } catch {
    /* stdin already gone */
  }
  try {
    if (out.isTTY && out.writable) out.write(SHOW_CURSOR + (opts.leftAlt ? '' : LEAVE_ALT));
  } catch {
    /* stdout already gone */
  }
}
