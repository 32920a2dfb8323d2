// Real terminals for the TUI tests. `Term`: orcr-tui on a pseudo-terminal
// read by a terminal emulator (test/support/terminal.ts: node-pty and
// @xterm/headless, both from npm), one per window a test opens. `TmuxTerm`:
// a private tmux server, only for what is about tmux itself (a take-over
// opens a tmux window); its tests need tmux (TMUX_NEED says why they skip).
// Every wait polls the screen; nothing sleeps a fixed time.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { childrenOf, PtyScreen, type Colour } from '../support/terminal.js';
import type { Need } from '../support/skip.js';
import { until } from '../support/harness.js';
import { TUI, type Home } from './home.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
/** tmux is optional: only a take-over inside tmux needs it, and .ci/run installs it. */
export const TMUX_NEED: Need = {
  reason: HAS_TMUX ? null : 'no tmux (apt-get install tmux): the take-over into a new tmux window is not tested',
  optional: true,
};

/** Live processes (zombies aside) whose environment or command line names `dir`, this one aside. */
export function processesMentioning(dir: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      const env = fs.readFileSync(`/proc/${e}/environ`, 'latin1');
      const cmd = fs.readFileSync(`/proc/${e}/cmdline`, 'latin1');
      if (env.includes(dir) || cmd.includes(dir)) out.push(Number(e));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

const shq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The command a window runs: orcr-tui, then its exit status on the screen,
 * then a shell's wait (the tty stays, in cooked mode). The shell shares the
 * TUI's process group, so a ctrl-c reaches it too: its trap keeps it alive to
 * say the status (a trap, unlike an ignored signal, is not inherited).
 */
function tuiCommand(args: string[]): string {
  return `trap : INT; ${shq(process.execPath)} ${shq(TUI)} ${args.map(shq).join(' ')}; echo "[exit $?]"; exec sleep 600`;
}

/** orcr-tui on real pseudo-terminals, one per window a test starts; reads and keys go to the last one started. */
export class Term {
  private readonly windows = new Map<string, PtyScreen>();
  private current: PtyScreen | null = null;

  constructor(
    private readonly home: Home,
    readonly cols = 120,
    readonly rows = 40,
  ) {}

  /** Start orcr-tui in a new window; the window stays after it exits so its last words can be read. */
  start(name: string, args: string[] = [], env: Record<string, string> = {}): void {
    const base: NodeJS.ProcessEnv = { ...process.env };
    for (const k of ['CI', 'CONTINUOUS_INTEGRATION', 'TMUX', 'TMUX_PANE']) delete base[k];
    const size = this.current ? { cols: this.current.cols, rows: this.current.rows } : { cols: this.cols, rows: this.rows };
    const screen = new PtyScreen('/bin/sh', ['-c', tuiCommand(args)], {
      ...size,
      env: { ...base, ORCR_HOME: this.home.dir, TERM: 'xterm-256color', NO_COLOR: '1', ...env },
    });
    this.windows.get(name)?.kill();
    this.windows.set(name, screen);
    this.current = screen;
  }

  private get w(): PtyScreen {
    if (!this.current) throw new Error('no window started');
    return this.current;
  }

  screen(): string {
    return this.w.screen();
  }

  /** The screen with lines the terminal wrapped joined again: a long path never splits what a test looks for. */
  joined(): string {
    return this.w.joined();
  }

  /** The colour `text` is drawn in on row `row` ("#ff0000", "p196", "default"), or null when not shown there. */
  colourOf(row: number, text: string): Colour | null {
    return this.w.colourOf(row, text);
  }

  altScreen(): boolean {
    return this.w.altScreen();
  }

  cursorShown(): boolean {
    return this.w.cursorShown();
  }

  keys(...keys: string[]): void {
    this.w.keys(...keys);
  }

  type(text: string): void {
    this.w.type(text);
  }

  resize(cols: number, rows: number): void {
    this.w.resize(cols, rows);
  }

  waitFor(pred: (screen: string) => boolean, what: string, ms = 30_000): Promise<string> {
    return this.w.waitFor(pred, what, ms);
  }

  /** The orcr-tui process: the child of the window's shell. */
  tuiPid(): number {
    const pid = childrenOf(this.w.pid).find((c) => {
      try {
        return fs.readFileSync(`/proc/${c}/cmdline`, 'latin1').includes('tui/main.js');
      } catch {
        return false;
      }
    });
    if (!pid) throw new Error('orcr-tui is not running in the window');
    return pid;
  }

  /** Every window goes away at once, as a terminal closed under its programs (SIGHUP, writes failing). */
  close(): void {
    for (const w of this.windows.values()) w.close();
  }

  kill(): void {
    for (const w of this.windows.values()) w.kill();
    this.windows.clear();
    this.current = null;
  }
}

/** One private tmux server per test: a terminal we can type into and read, for what is about tmux itself. */
export class TmuxTerm {
  private static n = 0;
  readonly socket = `orcr-tui-test-${process.pid}-${++TmuxTerm.n}`;

  constructor(
    private readonly home: Home,
    readonly cols = 120,
    readonly rows = 40,
  ) {}

  private tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /** Start orcr-tui in a new window; the pane stays after it exits so its last words can be read. */
  start(name: string, args: string[] = [], env: Record<string, string> = {}): void {
    const extra = Object.entries(env)
      .map(([k, v]) => `${k}=${shq(v)} `)
      .join('');
    const cmd =
      `env -u CI -u CONTINUOUS_INTEGRATION ORCR_HOME=${shq(this.home.dir)} TERM=xterm-256color NO_COLOR=1 ${extra}` +
      `${shq(process.execPath)} ${shq(TUI)} ${args.map(shq).join(' ')}; echo "[exit $?]"; sleep 600`;
    if (name === 'first') this.tmux('new-session', '-d', '-s', 'main', '-n', name, '-x', String(this.cols), '-y', String(this.rows), cmd);
    else this.tmux('new-window', '-t', 'main', '-n', name, cmd);
    this.target = `main:${name}`;
  }

  target = 'main:first';

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.target).replace(/\n+$/, '');
  }

  /** The screen with lines the terminal wrapped joined again: a long path never splits what a test looks for. */
  joined(): string {
    return this.tmux('capture-pane', '-p', '-J', '-t', this.target).replace(/\n+$/, '');
  }

  /** The screen with its colours (SGR sequences). */
  colours(): string {
    return this.tmux('capture-pane', '-p', '-e', '-t', this.target).replace(/\n+$/, '');
  }

  keys(...keys: string[]): void {
    for (const k of keys) this.tmux('send-keys', '-t', this.target, k);
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', this.target, '-l', text);
  }

  resize(cols: number, rows: number): void {
    this.tmux('resize-window', '-t', this.target, '-x', String(cols), '-y', String(rows));
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
        100,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\nscreen:\n${last}`);
    }
  }

  /** A tmux format value for the pane, e.g. #{alternate_on}. */
  display(format: string): string {
    return this.tmux('display-message', '-p', '-t', this.target, format).trim();
  }

  /** The orcr-tui process: the child of the pane's shell. */
  tuiPid(): number {
    const shell = this.display('#{pane_pid}');
    const r = spawnSync('pgrep', ['-P', shell, '-f', 'tui/main.js'], { encoding: 'utf8' });
    const pid = Number(r.stdout.trim().split('\n')[0]);
    if (!pid) throw new Error('orcr-tui is not running in the pane');
    return pid;
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}
