// The terminal around the app: the alternate screen, and putting everything
// back (screen, cursor, raw mode) on every way out. It never draws: Ink does.

export const ENTER_ALT = '\x1b[?1049h\x1b[H\x1b[2J';
export const LEAVE_ALT = '\x1b[?1049l';
export const SHOW_CURSOR = '\x1b[?25h';
export const HIDE_CURSOR = '\x1b[?25l';

export class TerminalGuard {
  private inAlt = false;
  private restored = false;

  constructor(
    private readonly out: NodeJS.WriteStream = process.stdout,
    private readonly input: NodeJS.ReadStream = process.stdin,
  ) {}

  enter(): void {
    if (!this.out.isTTY) return;
    this.out.write(ENTER_ALT);
    this.inAlt = true;
  }

  /**
   * Lend the terminal to another program (an agent's CLI taking a run over)
   * for as long as `run` takes, then take it back: the main screen, cooked
   * input and a cursor for it; the alternate screen, raw input and a cleared
   * screen (for the caller to redraw) after.
   */
  handOver(run: () => void): void {
    const raw = this.input.isTTY === true && this.input.isRaw === true;
    try {
      if (raw) this.input.setRawMode(false);
      this.input.pause();
      if (this.out.isTTY) this.out.write(SHOW_CURSOR + (this.inAlt ? LEAVE_ALT : ''));
      run();
    } finally {
      if (this.out.isTTY) this.out.write((this.inAlt ? ENTER_ALT : '') + HIDE_CURSOR);
      if (raw) this.input.setRawMode(true);
      this.input.resume();
    }
  }

  /** Idempotent; safe from signal and error handlers. */
  restore(): void {
    if (this.restored) return;
    this.restored = true;
    try {
      if (this.input.isTTY && this.input.isRaw) this.input.setRawMode(false);
    } catch {
      /* stdin already gone */
    }
    try {
      if (this.out.isTTY) this.out.write(SHOW_CURSOR + (this.inAlt ? LEAVE_ALT : ''));
    } catch {
      /* stdout already gone */
    }
    this.inAlt = false;
  }
}
