// The one input router: a key becomes a command (keys.ts) in the current
// context, and the command becomes a store change and/or an action. The App
// hands Ink's useInput one stable function made here.

import type { Key } from 'ink';
import type { Actions } from './controller.js';
import { Command, matchKey, printable, type KeyContext } from './keys.js';
import {
  error,
  info,
  nextPane,
  reduceFilter,
  reduceScroll,
  reduceShowAll,
  type Patch,
  type Prompt,
  type TuiState,
  type TuiStore,
} from './store.js';
import { nextThemeName, type ThemeSet } from './theme.js';

export interface RouterDeps {
  store: TuiStore;
  actions: Actions;
  themes: ThemeSet;
  exit: () => void;
}

export function contextOf(s: TuiState): KeyContext {
  return s.mode;
}

function selectedRun(s: TuiState) {
  return s.selected ? s.runs.byId[s.selected] : undefined;
}

export function createKeyHandler(deps: RouterDeps): (input: string, key: Key) => void {
  const { store, actions, themes } = deps;
  const set = (p: Patch): void => store.setState(p);
  const now = (): number => Date.now();

  const openPrompt = (s: TuiState, p: Omit<Prompt, 'back'>): void => set({ mode: 'prompt', prompt: { ...p, back: s.mode }, message: null });

  function onPrompt(s: TuiState, cmd: Command | null, input: string, key: Key): void {
    const p = s.prompt!;
    const edit = (text: string): void => {
      const patch: Patch = { prompt: { ...p, text } };
      if (p.kind === 'filter') Object.assign(patch, reduceFilter(s, text));
      set(patch);
    };
    switch (cmd) {
      case Command.Submit: {
        set({ mode: p.back, prompt: null });
        if (p.kind === 'send') {
          if (p.text === '') set(error('nothing sent: the line was empty', now()));
          else actions.send(p.target!, p.text);
        } else if (p.kind === 'new') actions.enqueue(p.text);
        return;
      }
      case Command.Back:
        // esc in the filter prompt clears the filter too
        set({ mode: p.back, prompt: null, ...(p.kind === 'filter' ? reduceFilter(s, '') : {}) });
        return;
      case Command.DeleteChar:
        edit(Array.from(p.text).slice(0, -1).join(''));
        return;
      case Command.ClearLine:
        edit('');
        return;
      case Command.Quit:
        deps.exit();
        return;
      default: {
        const text = printable(input, key);
        if (text) edit(p.text + text);
      }
    }
  }

  const handle = (input: string, key: Key): void => {
    const s = store.getState();
    const ctx = contextOf(s);
    const cmd = matchKey(ctx, input, key);
    if (ctx === 'prompt' && s.prompt) {
      onPrompt(s, cmd, input, key);
      return;
    }
    if (cmd === null) return;
    const run = selectedRun(s);
    switch (cmd) {
      case Command.Up:
        set(reduceScroll(s, -1));
        return;
      case Command.Down:
        set(reduceScroll(s, 1));
        return;
      case Command.PageUp:
        set(reduceScroll(s, -Math.max(1, s.viewport.runsHeight - 1)));
        return;
      case Command.PageDown:
        set(reduceScroll(s, Math.max(1, s.viewport.runsHeight - 1)));
        return;
      case Command.First:
        set(reduceScroll(s, 'top'));
        return;
      case Command.Last:
        set(reduceScroll(s, 'bottom'));
        return;
      case Command.Details:
        if (!run) {
          set(info('no run selected', now()));
          return;
        }
        set({ mode: 'details', details: s.details?.uuid === run.uuid ? s.details : null });
        actions.detailsOpened();
        return;
      case Command.Kill:
        if (!run) return set(info('no run selected', now()));
        if (run.status === 'ended') return set(info(`${run.name} has already ended (${run.exit_reason})`, now()));
        set({ mode: 'confirm', confirm: { uuid: run.uuid, name: run.name, back: s.mode }, message: null });
        return;
      case Command.KillNow:
        if (!run) return set(info('no run selected', now()));
        if (run.status === 'ended') return set(info(`${run.name} has already ended (${run.exit_reason})`, now()));
        actions.kill(run.uuid, false);
        return;
      case Command.Confirm:
        if (s.confirm) actions.kill(s.confirm.uuid, false);
        set({ mode: s.confirm?.back ?? 'list', confirm: null });
        return;
      case Command.Deny:
        set({ mode: s.confirm?.back ?? 'list', confirm: null, ...info('not killed', now()) });
        return;
      case Command.Wait:
        if (!run) return set(info('no run selected', now()));
        actions.wait(run.uuid);
        return;
      case Command.Send:
        if (!run) return set(info('no run selected', now()));
        if (run.status !== 'idle') {
          set(error(`${run.name} is ${run.status === 'ended' ? `ended (${run.exit_reason})` : run.status}: input goes only to an idle run`, now()));
          return;
        }
        openPrompt(s, { kind: 'send', text: '', target: run.uuid, targetName: run.name });
        return;
      case Command.New:
        openPrompt(s, { kind: 'new', text: '', target: null, targetName: null });
        return;
      case Command.Filter:
        openPrompt(s, { kind: 'filter', text: s.filter, target: null, targetName: null });
        return;
      case Command.ToggleAll:
        set({ ...reduceShowAll(s, !s.showAll), ...info(s.showAll ? 'showing active runs only (a shows all)' : 'showing all runs', now()) });
        return;
      case Command.Back:
        if (s.mode === 'details') return set({ mode: 'list' });
        if (s.mode === 'help') return set({ mode: s.helpBack });
        if (s.filter) return set(reduceFilter(s, ''));
        if (s.pane !== 'runs') return set({ pane: 'runs' });
        set({ message: null });
        return;
      case Command.NextPane:
        set({ pane: nextPane(s) });
        return;
      case Command.ToggleEvents:
        set({ showEvents: !s.showEvents, pane: s.pane === 'events' ? 'runs' : s.pane });
        return;
      case Command.NextTheme: {
        const theme = nextThemeName(themes, s.theme);
        set({ theme });
        actions.themeChanged(theme);
        return;
      }
      case Command.Help:
        if (s.mode === 'help') set({ mode: s.helpBack });
        else set({ mode: 'help', helpBack: s.mode });
        return;
      case Command.Reconnect:
        actions.reconnect();
        return;
      case Command.Quit:
        deps.exit();
        return;
      default:
        return;
    }
  };

  return (input: string, key: Key): void => {
    const parts = splitBurst(input, key, store.getState().mode === 'prompt');
    if (parts === null) handle(input, key);
    else for (const [i, k] of parts) handle(i, k);
  };
}

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

const CONTROL_KEYS: Readonly<Record<string, Partial<Key>>> = {
  '\r': { return: true },
  '\n': { return: true },
  '\t': { tab: true },
  '\x7f': { delete: true },
  '\b': { backspace: true },
};

/**
 * Keys typed faster than the terminal is read arrive as one chunk ("hello\r",
 * "jj"), which Ink hands over as a single input. Split such a burst into the
 * keys it is made of: text runs stay together in a prompt (a paste), single
 * characters elsewhere; Enter, Tab and Backspace become their keys again.
 * Null when the input is one key already.
 */
export function splitBurst(input: string, key: Key, inPrompt: boolean): [string, Key][] | null {
  if (input.length <= 1 || key.ctrl || key.meta || key.escape || input.includes('\x1b')) return null;
  const hasControl = /[\r\n\t\x7f\b]/.test(input);
  if (!hasControl && inPrompt) return null; // a paste into a prompt
  const out: [string, Key][] = [];
  let text = '';
  let afterControl = false;
  const flush = (): void => {
    if (text === '') return;
    // After Enter the prompt may be gone: what follows is keys again.
    if (inPrompt && !afterControl) out.push([text, NO_KEY]);
    else for (const ch of Array.from(text)) out.push([ch, { ...NO_KEY, shift: ch !== ch.toLowerCase() }]);
    text = '';
  };
  for (const ch of Array.from(input)) {
    const ctl = CONTROL_KEYS[ch];
    if (ctl) {
      flush();
      out.push(['', { ...NO_KEY, ...ctl }]);
      if (ctl.return) afterControl = true;
    } else text += ch;
  }
  flush();
  return out;
}
