// The approvals queue's key bindings: `!` to open it, and its own keys —
// moving, y allow, n deny (asking for the words), A allow for the rest of the
// run, digits for a question's options, enter/v for the whole input, space
// to tag, esc back. Part of the one binding map (bindings.ts spreads them in
// help's order); no confirmation: answering is itself the decision asked for.

import type { Binding } from './binding.js';
import * as q from './approval-keys.js';
import { BACK, DOWN, FIRST, JK, LAST, PAGE_DOWN, PAGE_UP, UP, VIEW_BACK } from './key-specs.js';

const QUEUE = ['approvals'] as const;

/** 1–9: one binding per digit, shown once. */
const DIGITS: Binding[] = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ({
  id: `approval-option-${n}`,
  keys: [{ input: String(n) }],
  label: '1-9',
  description: "choose a question's option (multi-select: toggle)",
  contexts: QUEUE,
  ...(n === 1 ? { footer: { rank: 70, hint: 'option' } } : {}),
  disabled: q.choosable(n),
  handler: q.choose(n),
}));

export const APPROVAL_BINDINGS: readonly Binding[] = [
  {
    id: 'approvals',
    keys: [{ input: '!' }],
    label: '!',
    // `!` marks the runs that need you in the list: the queue is what they wait for.
    description: 'approvals queue (! as on the runs that need you)',
    contexts: ['list', 'details', 'approvals'],
    footer: { rank: 85, panes: ['runs'], hint: 'approvals' },
    handler: q.toggleQueue,
  },
  { id: 'approvals-up', ...UP, contexts: QUEUE, handler: q.queueMove(-1) },
  { id: 'approvals-down', ...DOWN, contexts: QUEUE, footer: JK('select'), handler: q.queueMove(1) },
  { id: 'approvals-page-up', ...PAGE_UP, contexts: QUEUE, handler: q.queueMove('-page') },
  { id: 'approvals-page-down', ...PAGE_DOWN, contexts: QUEUE, handler: q.queueMove('page') },
  { id: 'approvals-first', ...FIRST, contexts: QUEUE, handler: q.queueMove('top') },
  { id: 'approvals-last', ...LAST, contexts: QUEUE, handler: q.queueMove('bottom') },
  {
    id: 'approval-allow',
    keys: [{ input: 'y' }],
    label: 'y',
    description: 'allow (every tagged one, if any)',
    contexts: QUEUE,
    footer: { rank: 20, hint: 'allow' },
    disabled: q.allowable,
    handler: q.allow,
  },
  {
    id: 'approval-deny',
    keys: [{ input: 'n' }],
    label: 'n',
    description: 'deny, with words for the agent',
    contexts: QUEUE,
    footer: { rank: 30, hint: 'deny' },
    disabled: q.anyRequest,
    handler: q.deny,
  },
  {
    id: 'approval-always',
    keys: [{ input: 'A' }],
    label: 'A',
    description: 'allow for the rest of the run (its rule)',
    contexts: QUEUE,
    footer: { rank: 40, hint: 'always' },
    disabled: q.alwaysAllowable,
    handler: q.allowAlways,
  },
  ...DIGITS,
  {
    id: 'approval-input',
    keys: [{ key: 'return' }],
    label: 'enter',
    description: 'the whole input, v too (multi-select: send)',
    contexts: QUEUE,
    footer: { rank: 50, hint: 'input' },
    disabled: q.selected,
    handler: q.enter,
  },
  {
    id: 'approval-read',
    keys: [{ input: 'v' }],
    label: 'v',
    description: 'the whole input, in the pager',
    contexts: QUEUE,
    help: false,
    disabled: q.selected,
    handler: q.readInput,
  },
  {
    id: 'approval-tag',
    keys: [{ input: ' ' }],
    label: 'space',
    description: 'tag and move on (y, n, A answer all tagged)',
    contexts: QUEUE,
    footer: { rank: 60, hint: 'tag' },
    disabled: q.selected,
    handler: q.tag,
  },
  { id: 'approvals-back', ...BACK, contexts: QUEUE, footer: VIEW_BACK, handler: q.back },
];
