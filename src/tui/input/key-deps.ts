// What a mode's key handler is given by the router (router.ts): the store
// and a way to change it, the actions that reach the supervisor, the clock,
// the prompt opener and the way out. A handler answers whether a key was its.

import type { Actions } from './actions.js';
import type { Patch, Prompt, TuiState, TuiStore } from '../state/store.js';

export interface KeyDeps {
  store: TuiStore;
  actions: Actions;
  set: (p: Patch) => void;
  now: () => number;
  /** Open a prompt over the current mode; esc goes back to it. */
  openPrompt: (s: TuiState, p: Omit<Prompt, 'back'>) => void;
  exit: () => void;
}

export const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
