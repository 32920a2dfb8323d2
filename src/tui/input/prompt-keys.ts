// Keys while a prompt is up (filter, search, send, new run, a denial's words): editing its
// text, submitting it, esc back to where it was opened from; any key no
// binding of the prompt's claims is typed into it. The filter applies as it
// is typed, unless it does not read.

import type { Key } from 'ink';
import { reduceSearch } from '../state/pager.js';
import { reduceFilter } from '../state/reducers.js';
import type { Patch, Prompt } from '../state/store.js';
import type { KeyCall } from './binding.js';
import { printable } from './keys.js';

const promptOf = (c: KeyCall): Prompt => c.s.prompt!;

function edit(c: KeyCall, text: string): void {
  const p = promptOf(c);
  const patch: Patch = { prompt: { ...p, text, selected: false } };
  if (p.kind === 'filter') {
    // A filter that does not read is not applied: the prompt says which term, the list stays as it was.
    const { problem, ...applied } = reduceFilter(c.s, text);
    patch.prompt = { ...patch.prompt!, problem };
    Object.assign(patch, applied);
  }
  c.set(patch);
}

export function submit(c: KeyCall): void {
  const p = promptOf(c);
  if (p.kind === 'filter' && p.problem) return;
  c.set({ mode: p.back, prompt: null });
  if (p.kind === 'search') c.set(reduceSearch(c.state(), p.text, 1, c.now(), true));
  if (p.kind === 'send' && p.targets) for (const t of p.targets) c.actions.runs.send(t, p.text);
  else if (p.kind === 'send') c.actions.runs.send(p.target!, p.text);
  else if (p.kind === 'new') c.actions.runs.enqueue(p.text);
  else if (p.kind === 'deny') denyWith(c, p);
}

/** A denial's words (none: the agent's default ones) to each request the prompt was opened for; their tags go with them. */
function denyWith(c: KeyCall, p: Prompt): void {
  const message = p.text.trim();
  c.actions.approvals.answer(p.ids ?? [], 'deny', message ? { message: p.text } : {});
  const s = c.state();
  if (Object.keys(s.queue.tagged).length > 0) c.set({ queue: { ...s.queue, tagged: {} } });
}

export function cancel(c: KeyCall): void {
  const p = promptOf(c);
  // esc in the filter prompt clears the filter too
  c.set({ mode: p.back, prompt: null, ...(p.kind === 'filter' ? reduceFilter(c.s, '') : {}) });
}

export const deleteChar = (c: KeyCall): void => {
  const p = promptOf(c);
  edit(c, p.selected ? '' : Array.from(p.text).slice(0, -1).join(''));
};

export const clearLine = (c: KeyCall): void => edit(c, '');

/** A key no binding of the prompt's claims: its text goes in (a paste whole); an arrow key keeps a selected text to edit. */
export function typeInto(c: KeyCall, input: string, key: Key): void {
  const p = promptOf(c);
  const text = printable(input, key);
  if (text) edit(c, p.selected ? text : p.text + text);
  else if (p.selected && (key.leftArrow || key.rightArrow || key.home || key.end)) c.set({ prompt: { ...p, selected: false } });
}
