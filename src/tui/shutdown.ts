// How orcr-tui leaves, whatever asked (q, ctrl-c, TERM, a closed terminal, an
// uncaught error): once, with the screen given back, and a demo's fleet,
// supervisor and folder taken down before the process exits. No ink or react
// here: the entry imports this statically (test/tui/production-react.test.ts).

import type { Home } from '../config/home.js';
import type { Controller } from './connection/controller.js';
import { removeDemoHome, type DemoHome } from './connection/demo-home.js';
import type { ThemeWatch } from './connection/theme-watch.js';
import { restoreTerminal } from './ink/terminal.js';
import type { TuiState, TuiStore } from './state/store.js';
import { byeText, demoFailedText, demoLeftText, demoStoppedText, demoStoppingText } from './view/farewell.js';

/** What the TUI has on screen: Ink's render, once made. */
export interface Rendered {
  unmount: () => void;
}

// The terminal may be gone (SIGHUP): nothing written may stop the shutdown.
function say(text: string): void {
  try {
    if (process.stdout.writable) process.stdout.write(text);
  } catch {
    /* no terminal */
  }
}

/** The farewell: where the home is and what still runs in it. */
function farewellText(s: TuiState, home: Home): string {
  const active: Record<string, number> = {};
  for (const id in s.runs.byId) {
    const st = s.runs.byId[id]!.status;
    if (st !== 'ended') active[st] = (active[st] ?? 0) + 1;
  }
  return byeText({ home: home.dir, pid: s.conn.pid, loaded: s.loaded, up: s.conn.state === 'up', active });
}

export class Shutdown {
  instance: Rendered | null = null;
  themeWatch: ThemeWatch | null = null;
  // Ink leaves the alternate screen in its unmount; only if that never ran does restoreTerminal.
  private unmounted = false;
  private exiting = false;
  private stoppingDemo = false;

  constructor(
    private readonly store: TuiStore,
    private readonly controller: Controller,
    private readonly home: Home,
    private readonly demo: DemoHome | null,
  ) {}

  /** Leave with `code`, saying `farewell` (if any) and `err` (if any); `signal`: asked by ctrl-c or TERM. */
  finish(code: number, farewell: string | null, err?: unknown, signal = false): void {
    if (this.exiting) {
      // A second ctrl-c or TERM while the demo is taken down: leave now, and say what is left.
      if (this.stoppingDemo && signal) {
        say(demoLeftText(this.demo!.dir));
        process.exit(code);
      }
      return;
    }
    this.exiting = true;
    const s = this.store.getState();
    this.controller.stop();
    void this.themeWatch?.close();
    try {
      this.instance?.unmount();
      this.unmounted = true;
    } catch {
      /* already unmounted */
    }
    restoreTerminal({ leftAlt: this.unmounted || this.instance === null });
    if (err) process.stderr.write(`orcr-tui: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    if (this.demo) {
      this.removeDemo(this.demo.dir, code);
      return;
    }
    if (farewell) say(farewellText(s, this.home));
    process.exit(code);
  }

  private removeDemo(dir: string, code: number): void {
    this.stoppingDemo = true;
    process.stdout.on('error', () => undefined);
    say(demoStoppingText(dir));
    removeDemoHome(dir)
      .then((r) => say(demoStoppedText(r, dir)))
      .catch((e: unknown) => say(demoFailedText(dir, (e as Error).message)))
      .finally(() => process.exit(code));
  }

  /** Every way the process is asked to end, or fails, leads here. */
  listen(): void {
    process.on('SIGTERM', () => this.finish(143, null, undefined, true));
    // The terminal is gone: no one is there to ask twice, so a demo is still taken down
    // (its frame writes fail first, and SIGHUP must not cut that shutdown short).
    process.on('SIGHUP', () => this.finish(129, null));
    process.on('SIGINT', () => this.finish(130, 'bye', undefined, true));
    process.on('uncaughtException', (e) => this.finish(1, null, e));
    process.on('unhandledRejection', (e) => this.finish(1, null, e));
  }
}
