// Keys while a prompt is up (filter, search, send, new run): editing its
// text, submitting it, esc back to where it was opened from. The filter
// applies as it is typed, unless it does not read.

import type { Key } from 'ink';
import { Command, printable } from './keys.js';
import type { KeyDeps } from './key-deps.js';
import { reduceSearch } from '../state/pager.js';
import { reduceFilter } from '../state/reducers.js';
import type { Patch, TuiState } from '../state/store.js';

export function onPrompt(k: KeyDeps, s: TuiState, cmd: Command | null, input: string, key: Key): void {
  const { set, actions, store, now } = k;
  const p = s.prompt!;
  const edit = (text: string): void => {
    const patch: Patch = { prompt: { ...p, text, selected: false } };
    if (p.kind === 'filter') {
      // A filter that does not read is not applied: the prompt says which term, the list stays as it was.
      const { problem, ...applied } = reduceFilter(s, text);
      patch.prompt = { ...patch.prompt!, problem };
      Object.assign(patch, applied);
    }
    set(patch);
  };
  switch (cmd) {
    case Command.Submit: {
      if (p.kind === 'filter' && p.problem) return;
      set({ mode: p.back, prompt: null });
      if (p.kind === 'search') set(reduceSearch(store.getState(), p.text, 1, now(), true));
      if (p.kind === 'send' && p.targets) for (const t of p.targets) actions.send(t, p.text);
      else if (p.kind === 'send') actions.send(p.target!, p.text);
      else if (p.kind === 'new') actions.enqueue(p.text);
      return;
    }
    case Command.Back:
      // esc in the filter prompt clears the filter too
      set({ mode: p.back, prompt: null, ...(p.kind === 'filter' ? reduceFilter(s, '') : {}) });
      return;
    case Command.DeleteChar:
      edit(p.selected ? '' : Array.from(p.text).slice(0, -1).join(''));
      return;
    case Command.ClearLine:
      edit('');
      return;
    case Command.Quit:
      k.exit();
      return;
    default: {
      const text = printable(input, key);
      if (text) edit(p.selected ? text : p.text + text);
      else if (p.selected && (key.leftArrow || key.rightArrow || key.home || key.end)) set({ prompt: { ...p, selected: false } });
    }
  }
}
