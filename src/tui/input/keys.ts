// How a key is written in a binding and matched against what Ink read: a
// printable key (case-sensitive), or one of Ink's named keys, with or
// without ctrl; and the text a prompt takes from what was typed or pasted.
// Pure: no store, no bindings.

import type { Key } from 'ink';
import { safeLine } from '../../text/terminal-text.js';

/**
 * Where a binding works: a mode of the screen, the pager showing a diff or
 * a request's input (`diff`: no raw, stderr or tool-result views), or `tagged` — the list with
 * runs tagged, whose bindings come before the list's own.
 */
export type KeyContext = 'list' | 'tagged' | 'details' | 'pager' | 'diff' | 'help' | 'spend' | 'loops' | 'approvals' | 'confirm' | 'prompt';

type KeyName = 'upArrow' | 'downArrow' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape' | 'tab' | 'backspace' | 'delete';

export interface KeySpec {
  /** A printable key, matched exactly (case-sensitive). */
  input?: string;
  /** A named key from Ink's Key. */
  key?: KeyName;
  ctrl?: boolean;
}

export function specMatches(spec: KeySpec, input: string, key: Key): boolean {
  if (spec.key !== undefined) return key[spec.key] === true && !!spec.ctrl === key.ctrl;
  if (spec.input !== undefined) {
    if (spec.ctrl) return key.ctrl && input === spec.input;
    return !key.ctrl && !key.meta && input === spec.input;
  }
  return false;
}

/** Printable text to insert into a prompt (pastes arrive as one string). */
export function printable(input: string, key: Key): string {
  if (key.ctrl || key.meta || key.escape || key.return || key.tab) return '';
  // A paste keeps its text; its escape sequences go, and its line breaks become spaces (a prompt is one line).
  return safeLine(input);
}
