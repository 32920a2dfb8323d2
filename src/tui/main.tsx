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
import { createTuiStore, error, info, type TuiStore } from './state/store.js';
import type { TerminalLender } from './ink/lender.js';
import { builtinThemeDir, initialThemeName, loadThemes, themeMessage, type ThemeSet } from './view/theme.js';
import { watchThemes } from './connection/theme-watch.js';
import { demoLeftText, demoStoppedText, demoStoppingText } from './view/farewell.js';
import { Shutdown } from './shutdown.js';

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

/** The arguments, or null when only the usage was asked for; a bad one, or no terminal to draw on, ends the process. */
function readArgs(argv: string[]): TuiArgs | null {
  let args: TuiArgs;
  try {
    args = parseTuiArgs(argv);
  } catch (e) {
    die((e as Error).message, 2, true);
  }
  if (args.help) {
    process.stdout.write(USAGE + '\n');
    return null;
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
  return args;
}

/** The home shown: ORCR_HOME's, or with --demo a throw-away one with a simulated fleet. */
async function openHome(args: TuiArgs): Promise<{ home: Home; demo: DemoHome | null }> {
  try {
    if (!args.demo) return { home: ensureHome(homeDir()), demo: null };
    // Refused before the fleet exists: a demo that cannot open must leave nothing behind.
    if (args.theme !== undefined && !loadThemes([builtinThemeDir()]).themes.has(args.theme)) {
      die(`no theme named "${args.theme}" (have: ${loadThemes([builtinThemeDir()]).order.join(', ')})`, 2);
    }
    process.stderr.write('orcr-tui: creating a demo home with a simulated fleet…\n');
    const demo = await createDemoQuietly();
    process.env.ORCR_HOME = demo.dir;
    return { home: ensureHome(demo.dir), demo };
  } catch (e) {
    die((e as Error).message, e instanceof HomeError ? 2 : 7);
  }
}

/** The themes (built in, then the home's own) and the one to start with. */
function readThemes(args: TuiArgs, home: Home): { userThemes: string; themes: ThemeSet; theme: string } {
  const userThemes = path.join(home.dir, 'themes');
  const themes = loadThemes([builtinThemeDir(), userThemes]);
  if (args.theme !== undefined && !themes.themes.has(args.theme)) {
    die(`no theme named "${args.theme}" (have: ${themes.order.join(', ')})`, 2);
  }
  const theme = initialThemeName({ flag: args.theme, remembered: readPrefs(home.dir).theme, env: process.env, available: themes });
  return { userThemes, themes, theme };
}

/** Ink and React, loaded only now: what they read as they load is set first. */
async function loadInk() {
  // Ink buffers every frame until exit when it thinks it runs in CI; a TUI
  // on a real terminal must draw, whatever CI says. Decide before ink loads.
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
  // React's development build costs several times the CPU per render (and
  // Ink renders the whole tree per update); a user's terminal wants production.
  process.env.NODE_ENV ??= 'production';
  // Nothing imported above may load ink or react (test/tui/production-react.test.ts): they read NODE_ENV as they load.
  return Promise.all([import('ink'), import('./app.js'), import('react'), import('./ink/lender.js')]);
}

function makeController(store: TuiStore, home: Home, args: TuiArgs, lender: TerminalLender): Controller {
  return new Controller(store, home, {
    quiet: args.quiet,
    cluster: args.cluster,
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
}

const renderOptions = () => ({
  patchConsole: false,
  exitOnCtrlC: false,
  // Both ends are terminals (checked first), whatever CI variables say.
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

// A theme edited while the TUI runs is redrawn at once; one that no longer reads keeps its last good form.
function themesReloaded(store: TuiStore, themes: ThemeSet, userThemes: string): void {
  const now = Date.now();
  const current = store.getState().theme;
  if (!themes.themes.has(current)) {
    const next = themes.themes.has('dark') ? 'dark' : themes.order[0]!;
    store.setState({ theme: next, ...info(`theme ${current} is gone from ${userThemes}: showing ${next}`, now) });
  } else {
    const said = themeMessage(themes, `themes reloaded from ${userThemes}`)!;
    store.setState((said.kind === 'error' ? error : info)(said.text, now));
  }
}

async function main(argv: string[]): Promise<void> {
  const args = readArgs(argv);
  if (args === null) return;
  const { home, demo } = await openHome(args);
  const { userThemes, themes: firstThemes, theme } = readThemes(args, home);
  let themes = firstThemes;
  const [{ render }, { App }, React, { LendTerminal }] = await loadInk();

  const lender: TerminalLender = { lend: null };
  const store = createTuiStore({ home: home.dir, theme, demo: demo !== null, sort: readPrefs(home.dir).sort ?? DEFAULT_SORT });
  const said = themeMessage(themes);
  if (said) store.setState((said.kind === 'error' ? error : info)(said.text, Date.now()));
  const controller = makeController(store, home, args, lender);
  const shutdown = new Shutdown(store, controller, home, demo);
  shutdown.listen();

  const app = (set: ThemeSet): React.ReactElement =>
    React.createElement(
      LendTerminal,
      { lender },
      React.createElement(App, { store, actions: controller, themes: set, onExit: () => shutdown.finish(0, 'bye') }),
    );
  const instance = render(app(themes), renderOptions());
  shutdown.instance = instance;
  controller.start();
  shutdown.themeWatch = watchThemes(userThemes, () => {
    themes = loadThemes([builtinThemeDir(), userThemes], themes);
    instance.rerender(app(themes));
    themesReloaded(store, themes, userThemes);
  });
}

main(process.argv.slice(2)).catch((e) => die(e instanceof ArgsError ? e.message : ((e as Error).stack ?? String(e)), 1));
