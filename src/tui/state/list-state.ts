// Selection and scrolling of a windowed list, as plain reducer logic (the
// ink-ui use-select-state split): what is visible is [offset, offset+height),
// the cursor stays inside it, and the offset moves as little as possible.
// Pure: it knows nothing of the store or of what the items are.

export interface ListState {
  cursor: number;
  offset: number;
}

export type ListAction =
  | { type: 'up'; n?: number }
  | { type: 'down'; n?: number }
  | { type: 'first' }
  | { type: 'last' }
  | { type: 'pageUp' }
  | { type: 'pageDown' }
  | { type: 'to'; index: number };

const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Make a state valid for `count` items in a window of `height` rows. */
export function clampList(s: ListState, count: number, height: number): ListState {
  if (count <= 0) return { cursor: 0, offset: 0 };
  const h = Math.max(1, height);
  const cursor = clamp(s.cursor, 0, count - 1);
  let offset = s.offset;
  if (cursor < offset) offset = cursor;
  if (cursor >= offset + h) offset = cursor - h + 1;
  offset = clamp(offset, 0, Math.max(0, count - h));
  return { cursor, offset };
}

export function listReducer(s: ListState, a: ListAction, count: number, height: number): ListState {
  const h = Math.max(1, height);
  let cursor = s.cursor;
  switch (a.type) {
    case 'up':
      cursor -= a.n ?? 1;
      break;
    case 'down':
      cursor += a.n ?? 1;
      break;
    case 'first':
      cursor = 0;
      break;
    case 'last':
      cursor = count - 1;
      break;
    case 'pageUp':
      cursor -= h;
      break;
    case 'pageDown':
      cursor += h;
      break;
    case 'to':
      cursor = a.index;
      break;
  }
  return clampList({ cursor, offset: s.offset }, count, h);
}

/**
 * After the list changed under the cursor (rows added, removed, re-sorted):
 * keep the selected item selected where it still exists, else keep the
 * cursor's position. Returns the new state and the id now selected.
 */
export function followSelection(s: ListState, selected: string | null, ids: readonly string[], height: number): { list: ListState; selected: string | null } {
  let cursor = s.cursor;
  if (selected !== null) {
    const i = ids.indexOf(selected);
    if (i >= 0) cursor = i;
  }
  const list = clampList({ cursor, offset: s.offset }, ids.length, height);
  return { list, selected: ids.length > 0 ? ids[list.cursor]! : null };
}

/** A log-like pane scrolled `fromEnd` lines up from its newest line (0 = following the tail). */
export function scrollFromEnd(fromEnd: number, delta: number, total: number, height: number): number {
  return clamp(fromEnd + delta, 0, Math.max(0, total - Math.max(1, height)));
}
