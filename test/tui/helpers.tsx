// Rendering helpers for ink-testing-library: a pane inside the store and
// theme providers, and waits that poll for a frame instead of sleeping.

import './no-ci.js';
import React from 'react';
import { render } from 'ink-testing-library';
import { StoreContext, ThemeContext } from '../../components/context.js';
import type { TuiStore } from '../../src/tui/state/store.js';
import type { Actions, ApprovalsPort, OutputPort, FleetPort, PrefsPort, RunPort, SessionPort, ViewsPort } from '../../src/tui/input/actions.js';
import { NO_COLOR_THEME, type Theme } from '../../src/tui/view/theme.js';
import { until as waitUntil } from '../support/harness.js';

export type Rendered = ReturnType<typeof render>;

export function renderPane(store: TuiStore, el: React.ReactElement, theme: Theme = NO_COLOR_THEME): Rendered {
  return render(
    <StoreContext.Provider value={store}>
      <ThemeContext.Provider value={theme}>{el}</ThemeContext.Provider>
    </StoreContext.Provider>,
  );
}

/** Let React and Ink run: effects subscribe, input handlers attach, frames flush. */
export async function tick(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
}

/** Poll until `check` holds (a frame appeared), failing with the last frame after `ms`: the harness's one wait, over frames. */
export async function until(inst: Rendered, check: (frame: string) => boolean, ms = 3000): Promise<string> {
  let last = '';
  return waitUntil(
    () => {
      last = inst.lastFrame() ?? '';
      return check(last) ? last : null;
    },
    () => `a frame to match; last frame:\n${last}`,
    ms,
    5,
  );
}

/** Type keys one at a time, yielding between them so each is handled on its own. */
export async function press(inst: Rendered, ...keys: string[]): Promise<void> {
  for (const k of keys) {
    inst.stdin.write(k);
    // Ink 7 holds a lone ESC for 20 ms in case the rest of an escape sequence
    // follows (an arrow key's bytes may arrive in two reads); a key written
    // before then joins it (esc, enter becomes meta+enter). A timer of 25 ms
    // expires after Ink's and so runs after it however late both are: the
    // order, not the length, is what this waits for.
    if (k === KEY.esc) await new Promise((r) => setTimeout(r, INK_ESC_FLUSH_MS + 5));
    await tick();
  }
}

/** How long Ink 7 waits before a lone ESC is the escape key (App.js's pendingInputFlushDelayMilliseconds). */
const INK_ESC_FLUSH_MS = 20;

export const KEY = { up: '\x1b[A', down: '\x1b[B', enter: '\r', esc: '\x1b', tab: '\t', backspace: '\x7f' } as const;

/** The lines of a frame, trailing spaces trimmed, for readable assertions. */
export function lines(frame: string): string[] {
  return frame.split('\n').map((l) => l.trimEnd());
}

export interface Call {
  /** The port's method called (every method's name is its own across the ports). */
  action: string;
  args: unknown[];
}

/** Actions that record each call (the App's keys, without a supervisor). */
export function fakeActions(calls: Call[]): Actions {
  const port = <P,>(...methods: (keyof P & string)[]): P =>
    Object.fromEntries(methods.map((action) => [action, (...args: unknown[]): void => void calls.push({ action, args })])) as P;
  return {
    runs: port<RunPort>('kill', 'killMany', 'send', 'wait', 'enqueue', 'rerun', 'resumeProvider', 'pauseQueue'),
    takeover: { start: (...args: unknown[]) => void calls.push({ action: 'takeover', args }) },
    older: { load: (...args: unknown[]) => void calls.push({ action: 'loadOlder', args }) },
    session: port<SessionPort>('reconnect'),
    views: port<ViewsPort>('spendOpened', 'loopsOpened', 'pauseLoop', 'fireLoop'),
    approvals: port<ApprovalsPort>('answer', 'inputOpened'),
    output: port<OutputPort>('detailsOpened', 'detailsClosed', 'transcriptOpened', 'transcriptClosed', 'diffOpened'),
    prefs: port<PrefsPort>('themeChanged', 'sortChanged'),
    fleet: port<FleetPort>('toggleScope', 'remoteDetailsOpened', 'readFleetSoon'),
  };
}
