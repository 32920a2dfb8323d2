#!/usr/bin/env -S node --max-semi-space-size=8
// `orcr-tui`: the full-screen terminal UI. A client like any other: it
// connects to (and if needed starts) the home's supervisor, shows a snapshot
// and follows the event stream. Quitting leaves every agent running — but
// for --demo's throw-away home, whose fleet, supervisor and folder go too.
//
// The flag on the first line: Node 22 and later let each of the young
// generation's two halves grow to 64 MB, and the TUI, which allocates a
// frame's worth of objects fifteen times a second, grows them all the way:
// 271 MB of RSS with 10,000 runs in the home, 126 MB at 8 MB, for about half
// a millisecond more per frame (bench/README.md, item 7). V8 reads the size
// once, as the process starts, so it can only be given there (npm start
// passes it too); `env -S` splits the line into words.

import '../client/node-check.js';
import path from 'node:path';
import { ensureHome, homeDir, HomeError, type Home } from '../config/home.js';
import { ArgsError, parseTuiArgs, USAGE, type TuiArgs } from './args.js';
import { Controller } from './connection/controller.js';
import { createDemoHome, removeDemoHome, type DemoHome } from './connection/demo-home.js';
import { readPrefs } from './state/prefs.js';
import { DEFAULT_SORT } from './state/sort.js';
import { createTuiStore, error, info } from './state/store.js';
import { restoreTerminal } from './ink/terminal.js';
import type { TerminalLender } from './ink/lender.js';
import { builtinThemeDir, initialThemeName, loadThemes, themeMessage, type ThemeSet } from './view/theme.js';
import { watchThemes, type ThemeWatch } from './connection/theme-watch.js';
import { byeText, demoFailedText, demoLeftText, demoStoppedText, demoStoppingText } from './view/farewell.js';

function die(message: string, code: number, usage = false): never {
  process.stderr.write(`orcr-tui: ${message}\n${usage ? USAGE + '\n' : ''}`);
  process.exit(code);
}

/**
 * The demo's fleet, made with ctrl-c, TERM and a closing terminal held off
 * until it exists: one that came meanwhile takes the fleet down again, then
 * exits, instead of leaving agents and a supervisor running in a temp folder.
 */
async function createDemoQuietly(): Promise<DemoHome> {
  let signalled: number | null = null;
  const held = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => {
    const on = (): void => {
      signalled ??= sig === 'SIGINT' ? 130 : sig === 'SIGTERM' ? 143 : 129;
    };
    process.on(sig, on);
    return [sig, on] as const;
  });
  try {
    let demo: DemoHome;
    try {
      demo = await createDemoHome();
    } catch (e) {
      // A ctrl-c can reach the supervisor being started before it leaves the terminal's process
      // group (a loaded machine runs the forked child late), and its start then fails: the user
      // asked to stop, and createDemoHome has removed what it made.
      if (signalled !== null) return process.exit(signalled);
      throw e;
    }
    if (signalled === null) return demo;
    process.stderr.write(demoStoppingText(demo.dir));
    const r = await removeDemoHome(demo.dir).catch(() => null);
    process.stderr.write(r ? demoStoppedText(r, demo.dir) : demoLeftText(demo.dir));
    return process.exit(signalled);
  } finally {
    for (const [sig, on] of held) process.off(sig, on);
  }
}

async function main(argv: string[]): Promise<void> {
  let args: TuiArgs;
  try {
    args = parseTuiArgs(argv);
  } catch (e) {
    die((e as Error).message, 2, true);
  }
  if (args.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    die('needs an interactive terminal (stdin and stdout must be a TTY); for scripts use `orcr ps`, `orcr events --follow`', 2);
  }
  // A dumb terminal cannot move its cursor: every frame would pile up as lines of escape sequences.
  if (process.env.TERM === 'dumb') {
    die(
      'TERM=dumb: this terminal cannot move its cursor, which a full-screen view needs. `orcr ps` lists the runs (`orcr ps --all` the ended ones too) and `orcr events --follow` follows them; in a terminal that can, set TERM to its type (e.g. TERM=xterm-256color).',
      2,
    );
  }

  let home: Home;
  let demo: DemoHome | null = null;
  try {
    if (args.demo) {
      // Refused before the fleet exists: a demo that cannot open must leave nothing behind.
      if (args.theme !== undefined && !loadThemes([builtinThemeDir()]).themes.has(args.theme)) {
        die(`no theme named "${args.theme}" (have: ${loadThemes([builtinThemeDir()]).order.join(', ')})`, 2);
      }
      process.stderr.write('orcr-tui: creating a demo home with a simulated fleet…\n');
      demo = await createDemoQuietly();
      process.env.ORCR_HOME = demo.dir;
      home = ensureHome(demo.dir);
    } else {
      home = ensureHome(homeDir());
    }
  } catch (e) {
    die((e as Error).message, e instanceof HomeError ? 2 : 7);
  }

  const userThemes = path.join(home.dir, 'themes');
  let themes = loadThemes([builtinThemeDir(), userThemes]);
  if (args.theme !== undefined && !themes.themes.has(args.theme)) {
    die(`no theme named "${args.theme}" (have: ${themes.order.join(', ')})`, 2);
  }
  const theme = initialThemeName({ flag: args.theme, remembered: readPrefs(home.dir).theme, env: process.env, available: themes });

  // Ink buffers every frame until exit when it thinks it runs in CI; a TUI
  // on a real terminal must draw, whatever CI says. Decide before ink loads.
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  // React's development build costs several times the CPU per render (and
  // Ink renders the whole tree per update); a user's terminal wants production.
  process.env.NODE_ENV ??= 'production';
  // Nothing imported above may load ink or react (test/tui/production-react.test.ts): they read NODE_ENV as they load.
  const [{ render }, { App }, React, { LendTerminal }] = await Promise.all([import('ink'), import('./app.js'), import('react'), import('./ink/lender.js')]);

  const lender: TerminalLender = { lend: null };
  const store = createTuiStore({ home: home.dir, theme, demo: demo !== null, sort: readPrefs(home.dir).sort ?? DEFAULT_SORT });
  const said = themeMessage(themes);
  if (said) store.setState((said.kind === 'error' ? error : info)(said.text, Date.now()));
  const controller = new Controller(store, home, {
    quiet: args.quiet,
    // `o`: the agent's CLI gets this terminal (the main screen, cooked input, a
    // cursor), and Ink draws the whole frame again after it.
    handOver: async (run) => {
      if (!lender.lend) return run();
      await lender.lend(run);
      store.setState({ now: Date.now() });
    },
    writeTerminal: (bytes) => {
      if (process.stdout.writable) process.stdout.write(bytes);
    },
  });

  let instance: { unmount: () => void; rerender: (tree: React.ReactNode) => void } | null = null;
  // Ink leaves the alternate screen in its unmount; only if that never ran does restoreTerminal.
  let unmounted = false;
  let themeWatch: ThemeWatch | null = null;
  let exiting = false;
  let stoppingDemo = false;
  // The terminal may be gone (SIGHUP): nothing written may stop the shutdown.
  const say = (text: string): void => {
    try {
      if (process.stdout.writable) process.stdout.write(text);
    } catch {
      /* no terminal */
    }
  };
  const finish = (code: number, farewell: string | null, err?: unknown, signal = false): void => {
    if (exiting) {
      // A second ctrl-c or TERM while the demo is taken down: leave now, and say what is left.
      if (stoppingDemo && signal) {
        say(demoLeftText(demo!.dir));
        process.exit(code);
      }
      return;
    }
    exiting = true;
    const s = store.getState();
    controller.stop();
    void themeWatch?.close();
    try {
      instance?.unmount();
      unmounted = true;
    } catch {
      /* already unmounted */
    }
    restoreTerminal({ leftAlt: unmounted || instance === null });
    if (err) process.stderr.write(`orcr-tui: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    if (demo) {
      const dir = demo.dir;
      stoppingDemo = true;
      process.stdout.on('error', () => undefined);
      say(demoStoppingText(dir));
      removeDemoHome(dir)
        .then((r) => say(demoStoppedText(r, dir)))
        .catch((e: unknown) => say(demoFailedText(dir, (e as Error).message)))
        .finally(() => process.exit(code));
      return;
    }
    if (farewell) {
      const active: Record<string, number> = {};
      for (const id in s.runs.byId) {
        const st = s.runs.byId[id]!.status;
        if (st !== 'ended') active[st] = (active[st] ?? 0) + 1;
      }
      say(byeText({ home: home.dir, pid: s.conn.pid, loaded: s.loaded, up: s.conn.state === 'up', active }));
    }
    process.exit(code);
  };

  process.on('SIGTERM', () => finish(143, null, undefined, true));
  // The terminal is gone: no one is there to ask twice, so a demo is still taken down
  // (its frame writes fail first, and SIGHUP must not cut that shutdown short).
  process.on('SIGHUP', () => finish(129, null));
  process.on('SIGINT', () => finish(130, 'bye', undefined, true));
  process.on('uncaughtException', (e) => finish(1, null, e));
  process.on('unhandledRejection', (e) => finish(1, null, e));

  const app = (set: ThemeSet): React.ReactElement =>
    React.createElement(LendTerminal, { lender }, React.createElement(App, { store, actions: controller, themes: set, onExit: () => finish(0, 'bye') }));
  instance = render(app(themes), {
    patchConsole: false,
    exitOnCtrlC: false,
    // Both ends are terminals (checked above), whatever CI variables say.
    interactive: true,
    alternateScreen: true,
    // Only the lines that changed are written (a frame of 50 rows where the
    // event log moved is a few lines, not the whole screen: less to send over
    // ssh, less for the terminal to parse). ORCR_TUI_INCREMENTAL=0 draws whole
    // frames, for a terminal that mis-tracks the cursor.
    incrementalRendering: process.env.ORCR_TUI_INCREMENTAL !== '0',
    // The stream's frames are paced by the FrameBatcher (at most one store
    // change per 50 ms). Ink's own throttle is a debounce: at the same 50 ms it
    // kept pushing every other frame back a whole period (10 frames/s, twice the
    // latency). At 60 it never delays a batcher frame and still caps key repeat.
    maxFps: 60,
  });
  controller.start();
  // A theme edited while the TUI runs is redrawn at once; one that no longer reads keeps its last good form.
  themeWatch = watchThemes(userThemes, () => {
    themes = loadThemes([builtinThemeDir(), userThemes], themes);
    instance?.rerender(app(themes));
    const now = Date.now();
    const current = store.getState().theme;
    if (!themes.themes.has(current)) {
      const next = themes.themes.has('dark') ? 'dark' : themes.order[0]!;
      store.setState({ theme: next, ...info(`theme ${current} is gone from ${userThemes}: showing ${next}`, now) });
    } else {
      const said = themeMessage(themes, `themes reloaded from ${userThemes}`)!;
      store.setState((said.kind === 'error' ? error : info)(said.text, now));
    }
  });
}

main(process.argv.slice(2)).catch((e) => die(e instanceof ArgsError ? e.message : ((e as Error).stack ?? String(e)), 1));
