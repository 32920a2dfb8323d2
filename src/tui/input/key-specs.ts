// The keys several views bind, each to a handler of its own: moving, paging,
// the ends, esc; and where a view's way out and its movement keys stand in
// its footer. The binding map (bindings.ts, approval-bindings.ts) spreads them.

import type { FooterPlace } from './binding.js';

export const UP = { keys: [{ key: 'upArrow' }, { input: 'k' }], label: '↑/k', description: 'up' } as const;
export const DOWN = { keys: [{ key: 'downArrow' }, { input: 'j' }], label: '↓/j', description: 'down' } as const;
export const PAGE_UP = { keys: [{ key: 'pageUp' }, { input: 'b', ctrl: true }], label: 'PgUp', description: 'page up' } as const;
export const PAGE_DOWN = { keys: [{ key: 'pageDown' }, { input: 'f', ctrl: true }], label: 'PgDn', description: 'page down' } as const;
export const FIRST = { keys: [{ input: 'g' }, { key: 'home' }], label: 'g', description: 'first' } as const;
export const LAST = { keys: [{ input: 'G' }, { key: 'end' }], label: 'G', description: 'last' } as const;
export const BACK = { keys: [{ key: 'escape' }], label: 'esc', description: 'clear/back' } as const;
/** A view's way out, first in its footer. */
export const VIEW_BACK = { rank: 5, hint: 'back', always: true } as const;
/** The movement keys, as the footer writes them: "j/k scroll". */
export const JK = (hint: string): FooterPlace => ({ rank: 10, label: 'j/k', hint });
