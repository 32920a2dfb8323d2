// A real terminal for tests, with nothing to install: a pseudo-terminal
// (node-pty, built from source at `npm install`) whose output a real terminal
// emulator (@xterm/headless, xterm.js without a browser) reads. A test starts
// a command in it, types keys, resizes it, and reads what a person would see:
// the screen's text, a cell's colour, whether the alternate screen is on and
// the cursor shown, what a frame left behind. What the emulator answers (a
// cursor position report, device attributes) goes back to the program, as a
// terminal's would. Every wait polls the screen; nothing sleeps a fixed time.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { IPty } from 'node-pty';
import type { Terminal as XTerm } from '@xterm/headless';
import { until } from './harness.js';

// Both are CommonJS: required, so that their exports are what their types say under any loader.
const require = createRequire(import.meta.url);
const pty = require('node-pty') as typeof import('node-pty');
const { Terminal: XTermClass } = require('@xterm/headless') as typeof import('@xterm/headless');

/** Names a test types, as tmux's send-keys spells them, to the bytes a terminal sends. */
const KEYS: Record<string, string> = {
  Enter: '\r',
  Escape: '\x1b',
  Tab: '\t',
  BSpace: '\x7f',
  Space: ' ',
  Up: '\x1b[A',
  Down: '\x1b[B',
  Right: '\x1b[C',
  Left: '\x1b[D',
  Home: '\x1b[H',
  End: '\x1b[F',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
};

/** A key name (`Enter`, `C-c`, `Up`) or a single character, as the bytes a terminal sends for it. */
function keyBytes(key: string): string {
  if (KEYS[key] !== undefined) return KEYS[key];
  const ctrl = key.match(/^C-([a-z@\[\\\]^_])$/i);
  if (ctrl) return String.fromCharCode(ctrl[1]!.toUpperCase().charCodeAt(0) & 0x1f);
  return key;
}

/** A cell's foreground colour: "default", "p196" (palette index) or "#ff0000" (truecolour). */
export type Colour = string;

export interface StartOptions {
  cols?: number;
  rows?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** One program on one pseudo-terminal, read through one emulator. */
export class PtyScreen {
  readonly pty: IPty;
  private readonly term: XTerm;
  private cursorVisible = true;
  private exited: { code: number; signal?: number } | null = null;
  private pending = 0;

  constructor(file: string, args: string[], opts: StartOptions = {}) {
    const cols = opts.cols ?? 120;
    const rows = opts.rows ?? 40;
    this.term = new XTermClass({ cols, rows, allowProposedApi: true, scrollback: 1000 });
    // DECTCEM (CSI ? 25 h / l): xterm.js keeps it private, so it is followed here; false lets xterm.js handle it too.
    const cursor =
      (shown: boolean) =>
      (params: (number | number[])[]): boolean => {
        if (params.some((p) => p === 25)) this.cursorVisible = shown;
        return false;
      };
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, cursor(true));
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, cursor(false));
    const env = opts.env ?? process.env;
    // node-pty sets TERM to `name`: the caller's TERM (a test's TERM=dumb) is the name.
    this.pty = pty.spawn(file, args, { name: env.TERM ?? 'xterm-256color', cols, rows, cwd: opts.cwd ?? process.cwd(), env });
    this.pty.onData((d) => {
      this.pending++;
      this.term.write(d, () => this.pending--);
    });
    this.pty.onExit((e) => (this.exited = { code: e.exitCode, signal: e.signal }));
    this.term.onData((d) => {
      if (!this.exited) this.pty.write(d);
    });
  }

  get pid(): number {
    return this.pty.pid;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** The visible rows as text, trailing blanks trimmed (tmux capture-pane's form). */
  lines(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  /** The visible screen, without trailing empty rows. */
  screen(): string {
    return this.lines().join('\n').replace(/\n+$/, '');
  }

  /** The screen with rows that the terminal wrapped joined again: a long path never splits what a test looks for. */
  joined(): string {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.term.rows; y++) {
      const line = b.getLine(b.viewportY + y);
      const text = line?.translateToString(true) ?? '';
      if (line?.isWrapped && out.length > 0) out[out.length - 1] += text;
      else out.push(text);
    }
    return out.join('\n').replace(/\n+$/, '');
  }

  /** The foreground colour of the first cell of `text` on visible row `row`, or null when the row does not show it. */
  colourOf(row: number, text: string): Colour | null {
    const b = this.term.buffer.active;
    const line = b.getLine(b.viewportY + row);
    if (!line) return null;
    // Columns, not string offsets: a wide character takes two cells.
    for (let x = 0; x < this.term.cols; x++) {
      if (line.translateToString(false, x, x + text.length) !== text) continue;
      const cell = line.getCell(x)!;
      if (cell.isFgDefault()) return 'default';
      if (cell.isFgRGB()) return `#${cell.getFgColor().toString(16).padStart(6, '0')}`;
      return `p${cell.getFgColor()}`;
    }
    return null;
  }

  /** Whether the program switched to the alternate screen (and has not switched back). */
  altScreen(): boolean {
    return this.term.buffer.active.type === 'alternate';
  }

  cursorShown(): boolean {
    return this.cursorVisible;
  }

  /** Where the cursor is, 0-based, on the visible screen. */
  cursor(): { x: number; y: number } {
    const b = this.term.buffer.active;
    return { x: b.cursorX, y: b.cursorY };
  }

  /** Whether everything the program wrote has been read by the emulator. */
  settled(): boolean {
    return this.pending === 0;
  }

  /** How the program ended, or null while it runs. */
  exit(): { code: number; signal?: number } | null {
    return this.exited;
  }

  /** Keys by name (`Enter`, `Escape`, `C-c`) or single characters, one after another. */
  keys(...keys: string[]): void {
    for (const k of keys) this.pty.write(keyBytes(k));
  }

  /** Text typed as it is. */
  type(text: string): void {
    this.pty.write(text);
  }

  /** The terminal changes size: the program gets SIGWINCH and the emulator re-flows. */
  resize(cols: number, rows: number): void {
    this.pty.resize(cols, rows);
    this.term.resize(cols, rows);
  }

  async waitFor(pred: (screen: string) => boolean, what: string, ms = 30_000): Promise<string> {
    let last = '';
    try {
      return await until(
        () => {
          last = this.screen();
          return pred(last) ? last : null;
        },
        what,
        ms,
        50,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\nscreen:\n${last}`);
    }
  }

  /** The terminal goes away, as a closed window: the master side closes, the program gets SIGHUP and its writes fail. */
  close(): void {
    try {
      this.pty.kill('SIGHUP');
    } catch {
      /* gone */
    }
    // node-pty's destroy closes the master and SIGHUPs the process again once it is closed.
    (this.pty as unknown as { destroy?: () => void }).destroy?.();
  }

  /** Close the terminal and end what still runs in its process group. */
  kill(): void {
    const pid = this.pty.pid;
    this.close();
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    this.term.dispose();
  }
}

/** The children of a process, from /proc. */
export function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
