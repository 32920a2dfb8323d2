// The one input router: a key is looked up in the one binding map
// (bindings.ts) for the contexts the screen is in, and the binding found
// acts — its disabled reason said in the footer, its question asked first
// if it is dangerous (one confirmation for all of them: y carries out the
// binding that asked), else its handler run. A prompt takes the keys none of
// its bindings claims as text. The App hands Ink's useInput one stable
// function made here; what leaves the store goes through Actions.

import type { Key } from 'ink';
import { error, info, type TuiState, type TuiStore } from '../state/store.js';
import { contextOf } from '../view/key-hints.js';
import type { ThemeSet } from '../view/theme.js';
import type { Actions } from './actions.js';
import type { Binding, KeyCall } from './binding.js';
import { BINDINGS } from './bindings.js';
import { splitBurst } from './burst.js';
import { specMatches, type KeyContext } from './keys.js';
import { typeInto } from './prompt-keys.js';
import { targetOf } from './run-keys.js';
import { taggedRuns } from './tagged-keys.js';
import { runOf } from '../state/fleet.js';

export interface RouterDeps {
  store: TuiStore;
  actions: Actions;
  themes: ThemeSet;
  exit: () => void;
}

export { splitBurst };

/** Where a key is looked up, first match first: with runs tagged, their bindings come before the list's. */
function keyContexts(s: TuiState): KeyContext[] {
  if (s.mode === 'prompt') return s.prompt ? ['prompt'] : [];
  if (s.mode === 'list' && Object.keys(s.tagged).some((id) => runOf(s, id))) return ['tagged', 'list'];
  return [contextOf(s)];
}

/** The binding a key means in these contexts, or null (in a prompt, null means "type it"). */
export function bindingFor(contexts: readonly KeyContext[], input: string, key: Key): Binding | null {
  for (const ctx of contexts) {
    for (const b of BINDINGS) if (b.contexts.includes(ctx) && b.keys.some((spec) => specMatches(spec, input, key))) return b;
  }
  return null;
}

const BY_ID: ReadonlyMap<string, Binding> = new Map(BINDINGS.map((b) => [b.id, b]));

function callOf(d: RouterDeps, s: TuiState): KeyCall {
  const set = d.store.setState;
  const now = (): number => Date.now();
  return {
    s,
    target: targetOf(s),
    tags: s.mode === 'list' ? taggedRuns(s) : [],
    actions: d.actions,
    themes: d.themes,
    set,
    state: d.store.getState,
    now,
    say: (text) => set(info(text, now())),
    fail: (text) => set(error(text, now())),
    openPrompt: (p) => set({ mode: 'prompt', prompt: { ...p, back: s.mode }, message: null }),
    proceed: () => proceed(d),
    exit: d.exit,
  };
}

function act(c: KeyCall, b: Binding): void {
  const why = b.disabled?.(c);
  if (why) return c.set((why.kind === 'error' ? error : info)(why.text, c.now()));
  if (!b.dangerous) return b.handler(c);
  const q = b.dangerous.subject(c);
  c.set({ mode: 'confirm', confirm: { binding: b.id, verb: b.dangerous.verb, ...q, back: c.s.mode }, message: null });
}

/** y: back where the question was asked, and the binding that asked acts on what it named. */
function proceed(d: RouterDeps): void {
  const q = d.store.getState().confirm;
  if (!q) return d.store.setState({ mode: 'list' });
  d.store.setState({ mode: q.back, confirm: null });
  const b = BY_ID.get(q.binding);
  if (b?.dangerous) b.handler(callOf(d, d.store.getState()), { uuid: q.uuid, name: q.name, uuids: q.uuids });
}

export function createKeyHandler(deps: RouterDeps): (input: string, key: Key) => void {
  const handle = (input: string, key: Key): void => {
    const s = deps.store.getState();
    const b = bindingFor(keyContexts(s), input, key);
    if (b) act(callOf(deps, s), b);
    else if (s.mode === 'prompt' && s.prompt) typeInto(callOf(deps, s), input, key);
  };
  return (input: string, key: Key): void => {
    const parts = splitBurst(input, key, deps.store.getState().mode === 'prompt');
    if (parts === null) handle(input, key);
    else for (const [i, k] of parts) handle(i, k);
  };
}
