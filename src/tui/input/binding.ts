// What a key binding is: its keys, the contexts it works in, its handler, why
// it does nothing now, its description, where it shows (the footer, the
// help) and whether it asks first. Every binding is in one map
// (bindings.ts); the router looks them up, and the footer and the help are
// made from the same map (view/key-hints.ts). The types make a binding
// without a handler or a description a compile error, and a dangerous one's
// handler take what its question named.

import type { PublicRun } from '../../protocol/views.js';
import type { Confirm, Pane, Patch, Prompt, TuiState } from '../state/store.js';
import type { ThemeSet } from '../view/theme.js';
import type { Actions } from './actions.js';
import type { KeyContext, KeySpec } from './keys.js';

/** The run a key acts on: the one details show, else the focused pane's selected row, holder, waiter or event. */
export interface Target {
  uuid: string;
  name: string;
  /** Absent when only stats name it (a holder the list does not have). */
  run: PublicRun | undefined;
}

/** What a dangerous key's question names, and its handler acts on once answered yes. */
export type Subject = Pick<Confirm, 'uuid' | 'name' | 'uuids'>;

/** What a handler (and a disabled reason) is given. */
export interface KeyCall {
  /** The state when the key came. */
  readonly s: TuiState;
  readonly target: Target | null;
  /** The tagged runs, in list order (in the list; none elsewhere). */
  readonly tags: readonly PublicRun[];
  readonly actions: Actions;
  readonly themes: ThemeSet;
  set(p: Patch): void;
  /** The state as this key has changed it so far. */
  state(): TuiState;
  now(): number;
  /** A notice in the footer. */
  say(text: string): void;
  /** An error in the footer. */
  fail(text: string): void;
  /** Open a prompt over the current mode; esc goes back to it. */
  openPrompt(p: Omit<Prompt, 'back'>): void;
  /** y: carry out the dangerous key whose question is up. */
  proceed(): void;
  exit(): void;
}

/** Why a key does nothing now: a notice (nothing to act on) or an error (the act would be wrong). */
export interface Refusal {
  text: string;
  kind: 'info' | 'error';
}

export const unavailable = (text: string): Refusal => ({ text, kind: 'info' });
export const refused = (text: string): Refusal => ({ text, kind: 'error' });

/** Where a binding shows in the footer. */
export interface FooterPlace {
  /** Its place: lower first; a narrow terminal drops the highest first. */
  rank: number;
  /** Kept whatever the width: how to get out, get help, answer a question. */
  always?: boolean;
  /** In the list, the panes whose footer shows it (default: every pane). */
  panes?: readonly Pane[];
  /** How the footer writes the key, when not as the help does ("j/k" for the movement keys). */
  label?: string;
  /** The footer's word for it, when not the description: short, or the pane's ("G follow" in the event log). */
  hint?: string | ((at: { context: KeyContext; pane: Pane }) => string);
}

interface BindingBase {
  /** Names the binding (unique): a question remembers which binding asked. */
  id: string;
  keys: readonly KeySpec[];
  /** How the key is written in the footer and help. */
  label: string;
  /** What it does, in help (and in the footer unless it has a word of its own). */
  description: string;
  contexts: readonly KeyContext[];
  /** Why the key does nothing now, said in the footer; null when it acts. */
  disabled?: (c: KeyCall) => Refusal | null;
  footer?: FooterPlace;
  /**
   * In help: once for every binding with its label and description (the
   * same key in several views, each with a handler of its own, is one line).
   * False for a key help explains elsewhere.
   */
  help?: boolean;
}

interface PlainBinding extends BindingBase {
  dangerous?: undefined;
  handler: (c: KeyCall) => void;
}

/** Asks y/n first (the one confirmation, router.ts): the question names what the key acts on. */
interface DangerousBinding extends BindingBase {
  dangerous: {
    /** The question's verb: "kill", "cancel". */
    verb: string;
    /** What it acts on, as of the key (disabled has said it is there). */
    subject: (c: KeyCall) => Subject;
  };
  /** Carried out on y, with the subject the question named. */
  handler: (c: KeyCall, subject: Subject) => void;
}

export type Binding = PlainBinding | DangerousBinding;
