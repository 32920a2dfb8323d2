// Keys typed faster than the terminal is read arrive as one chunk: split
// back into the keys they are made of before the router sees them. Pure.

import type { Key } from 'ink';

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
