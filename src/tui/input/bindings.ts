// Every key binding of the TUI, in one map: each says its keys, the contexts
// it works in, what it does (a handler), why it does nothing now, its
// description, where it shows and whether it asks first. The router looks a
// key up here; the footer and the help are made from this list
// (view/key-hints.ts), so they cannot drift from what the keys do. A key with
// a meaning of its own in a view is a binding of that view, beside the others
// of its key; help shows such a key once. The order is help's order.

import { reduceDetailsRaw } from '../state/navigation.js';
import { info } from '../state/store.js';
import type { Binding, FooterPlace } from './binding.js';
import * as prompt from './prompt-keys.js';
import {
  held,
  heldProviderOf,
  heldQueue,
  heldQueueSubject,
  hasWorktree,
  idle,
  killRun,
  killSeveral,
  listed,
  needsRun,
  notEnded,
  onTarget,
  openDetails,
  openDiff,
  openTranscript,
  rerunnable,
  runSubject,
  sendTo,
} from './run-keys.js';
import * as list from './list-keys.js';
import * as tagged from './tagged-keys.js';
import * as views from './view-keys.js';
import type { KeyContext } from './keys.js';

const NAV: readonly KeyContext[] = ['list', 'details'];
const PAGER: readonly KeyContext[] = ['pager', 'diff'];
/** The full-screen views esc leaves, where theme, help and quit work too. */
const VIEWS: readonly KeyContext[] = ['list', 'details', 'pager', 'diff', 'help', 'spend', 'loops'];

const UP = { keys: [{ key: 'upArrow' }, { input: 'k' }], label: '↑/k', description: 'up' } as const;
const DOWN = { keys: [{ key: 'downArrow' }, { input: 'j' }], label: '↓/j', description: 'down' } as const;
const PAGE_UP = { keys: [{ key: 'pageUp' }, { input: 'b', ctrl: true }], label: 'PgUp', description: 'page up' } as const;
const PAGE_DOWN = { keys: [{ key: 'pageDown' }, { input: 'f', ctrl: true }], label: 'PgDn', description: 'page down' } as const;
const FIRST = { keys: [{ input: 'g' }, { key: 'home' }], label: 'g', description: 'first' } as const;
const LAST = { keys: [{ input: 'G' }, { key: 'end' }], label: 'G', description: 'last' } as const;
const BACK = { keys: [{ key: 'escape' }], label: 'esc', description: 'clear/back' } as const;
/** A view's way out, first in its footer. */
const VIEW_BACK = { rank: 5, hint: 'back', always: true } as const;
/** The movement keys, as the footer writes them: "j/k scroll". */
const JK = (hint: string): FooterPlace => ({ rank: 10, label: 'j/k', hint });

export const BINDINGS: readonly Binding[] = [
  { id: 'up', ...UP, contexts: NAV, handler: list.scroll(-1) },
  { id: 'pager-up', ...UP, contexts: PAGER, handler: views.pagerScroll(-1) },
  { id: 'loops-up', ...UP, contexts: ['loops'], handler: views.loopsMove(-1) },
  { id: 'help-up', ...UP, contexts: ['help'], handler: views.helpScroll(-1) },
  { id: 'down', ...DOWN, contexts: NAV, footer: { rank: 10, label: 'j/k', hint: ({ context, pane }) => (context !== 'list' ? 'scroll' : pane === 'runs' ? 'move' : 'select') }, handler: list.scroll(1) },
  { id: 'pager-down', ...DOWN, contexts: PAGER, footer: JK('scroll'), handler: views.pagerScroll(1) },
  { id: 'loops-down', ...DOWN, contexts: ['loops'], footer: JK('select'), handler: views.loopsMove(1) },
  { id: 'help-down', ...DOWN, contexts: ['help'], handler: views.helpScroll(1) },
  { id: 'page-up', ...PAGE_UP, contexts: NAV, handler: list.scroll('-page') },
  { id: 'pager-page-up', ...PAGE_UP, contexts: PAGER, handler: views.pagerScroll('-page') },
  { id: 'loops-page-up', ...PAGE_UP, contexts: ['loops'], handler: views.loopsMove('-page') },
  { id: 'help-page-up', ...PAGE_UP, contexts: ['help'], handler: views.helpScroll('-page') },
  { id: 'page-down', ...PAGE_DOWN, contexts: NAV, handler: list.scroll('page') },
  { id: 'pager-page-down', ...PAGE_DOWN, contexts: PAGER, handler: views.pagerScroll('page') },
  { id: 'loops-page-down', ...PAGE_DOWN, contexts: ['loops'], handler: views.loopsMove('page') },
  { id: 'help-page-down', ...PAGE_DOWN, contexts: ['help'], handler: views.helpScroll('page') },
  { id: 'first', ...FIRST, contexts: NAV, handler: list.scroll('top') },
  { id: 'pager-first', ...FIRST, contexts: PAGER, handler: views.pagerScroll('top') },
  { id: 'loops-first', ...FIRST, contexts: ['loops'], handler: views.loopsMove('top') },
  { id: 'help-first', ...FIRST, contexts: ['help'], handler: views.helpScroll('top') },
  { id: 'last', ...LAST, contexts: NAV, footer: { rank: 90, panes: ['events'], hint: 'follow' }, handler: list.scroll('bottom') },
  { id: 'pager-last', ...LAST, contexts: PAGER, handler: views.pagerScroll('bottom') },
  { id: 'loops-last', ...LAST, contexts: ['loops'], handler: views.loopsMove('bottom') },
  { id: 'help-last', ...LAST, contexts: ['help'], handler: views.helpScroll('bottom') },

  { id: 'details', keys: [{ key: 'return' }], label: 'enter', description: 'details', contexts: ['list'], footer: { rank: 60 }, disabled: needsRun(listed), handler: onTarget(openDetails) },
  {
    id: 'kill',
    keys: [{ input: 'x' }],
    label: 'x',
    description: 'kill',
    contexts: NAV,
    footer: { rank: 170 },
    disabled: needsRun(notEnded),
    dangerous: { verb: 'kill', subject: runSubject },
    handler: killRun,
  },
  { id: 'tagged-kill', keys: [{ input: 'x' }], label: 'x', description: 'kill the tagged runs that are live', contexts: ['tagged'], help: false, disabled: tagged.anyLive, dangerous: { verb: 'kill', subject: tagged.liveSubject }, handler: (c, q) => killSeveral(c, q.uuids ?? [q.uuid]) },
  { id: 'kill-now', keys: [{ input: 'X' }], label: 'X', description: 'kill without asking', contexts: NAV, disabled: needsRun(notEnded), handler: (c) => killRun(c, runSubject(c)) },
  {
    id: 'force-kill',
    keys: [{ input: 'K' }],
    label: 'K',
    description: 'force-kill: SIGKILL at once, no grace (asks y/n)',
    contexts: NAV,
    disabled: needsRun(notEnded),
    dangerous: { verb: 'force-kill', subject: runSubject },
    handler: (c, q) => killRun(c, q, true),
  },
  { id: 'tagged-kill-now', keys: [{ input: 'X' }], label: 'X', description: 'kill the tagged runs that are live, without asking', contexts: ['tagged'], help: false, disabled: tagged.anyLive, handler: tagged.killTaggedNow },
  { id: 'wait', keys: [{ input: 'w' }], label: 'w', description: 'wait', contexts: NAV, footer: { rank: 180 }, disabled: needsRun(), handler: onTarget((c, t) => c.actions.runs.wait(t.uuid)) },
  { id: 'tagged-wait', keys: [{ input: 'w' }], label: 'w', description: 'wait on every tagged run', contexts: ['tagged'], help: false, handler: tagged.waitTagged },
  { id: 'send', keys: [{ input: 's' }], label: 's', description: 'send', contexts: NAV, footer: { rank: 190 }, disabled: needsRun(idle), handler: onTarget(sendTo) },
  { id: 'tagged-send', keys: [{ input: 's' }], label: 's', description: 'send the same line to every idle tagged run', contexts: ['tagged'], help: false, disabled: tagged.anyIdle, handler: tagged.sendTagged },
  { id: 'new', keys: [{ input: 'n' }], label: 'n', description: 'new', contexts: ['list'], footer: { rank: 200, panes: ['runs'] }, handler: list.openNew },
  { id: 'filter', keys: [{ input: '/' }], label: '/', description: 'filter', contexts: ['list'], footer: { rank: 210, panes: ['runs'] }, handler: list.openFilter },
  { id: 'toggle-all', keys: [{ input: 'a' }], label: 'a', description: 'all/active', contexts: ['list'], footer: { rank: 260, panes: ['runs'] }, handler: list.toggleAll },
  { id: 'load-older', keys: [{ input: 'L' }], label: 'L', description: 'load older ended runs', contexts: ['list'], handler: (c) => c.actions.older.load() },
  { id: 'transcript', keys: [{ input: 'v' }], label: 'v', description: 'transcript', contexts: ['details'], footer: { rank: 80 }, disabled: needsRun(), handler: onTarget(openTranscript) },
  { id: 'diff', keys: [{ input: 'd' }], label: 'd', description: 'diff (a worktree run)', contexts: NAV, footer: { rank: 240 }, disabled: needsRun(hasWorktree), handler: onTarget(openDiff) },
  { id: 'search', keys: [{ input: '/' }], label: '/', description: 'search', contexts: PAGER, footer: { rank: 100 }, handler: views.openSearch },
  { id: 'next-match', keys: [{ input: 'n' }], label: 'n/N', description: 'next/previous match', contexts: PAGER, footer: { rank: 110 }, disabled: views.searched, handler: views.nextMatch(1) },
  { id: 'prev-match', keys: [{ input: 'N' }], label: 'N', description: 'previous match', contexts: PAGER, help: false, disabled: views.searched, handler: views.nextMatch(-1) },
  { id: 'expand', keys: [{ key: 'return' }], label: 'enter', description: 'expand/fold results', contexts: ['pager'], footer: { rank: 120 }, handler: views.expand },
  { id: 'raw-view', keys: [{ input: 'r' }], label: 'r', description: 'raw lines', contexts: ['details'], footer: { rank: 150 }, handler: (c) => c.set(reduceDetailsRaw(c.s)) },
  { id: 'pager-raw-view', keys: [{ input: 'r' }], label: 'r', description: 'raw lines', contexts: ['pager'], footer: { rank: 150 }, handler: views.pagerView('raw') },
  { id: 'stderr-view', keys: [{ input: 'e' }], label: 'e', description: 'stderr', contexts: ['pager'], footer: { rank: 160 }, handler: views.pagerView('stderr') },
  { id: 'back', ...BACK, contexts: ['list'], footer: { rank: 50, panes: ['limiter', 'events'], hint: 'runs', always: true }, handler: list.backInList },
  { id: 'details-back', ...BACK, contexts: ['details'], footer: VIEW_BACK, handler: list.closeDetails },
  { id: 'pager-back', ...BACK, contexts: PAGER, footer: VIEW_BACK, handler: views.closePager },
  { id: 'help-back', ...BACK, contexts: ['help'], footer: VIEW_BACK, handler: views.closeHelp },
  { id: 'spend-back', ...BACK, contexts: ['spend'], footer: VIEW_BACK, handler: views.toList },
  { id: 'loops-back', ...BACK, contexts: ['loops'], footer: VIEW_BACK, handler: views.toList },
  { id: 'next-pane', keys: [{ key: 'tab' }], label: 'tab', description: 'pane', contexts: ['list'], footer: { rank: 250 }, handler: list.focusNextPane },
  { id: 'toggle-events', keys: [{ input: 'e' }], label: 'e', description: 'events', contexts: ['list'], footer: { rank: 270, panes: ['runs', 'events'], hint: ({ pane }) => (pane === 'events' ? 'hide' : 'events') }, handler: list.toggleEvents },
  { id: 'next-theme', keys: [{ input: 't' }], label: 't', description: 'theme', contexts: VIEWS, handler: list.nextTheme },
  { id: 'help', keys: [{ input: '?' }], label: '?', description: 'help', contexts: VIEWS, footer: { rank: 220, always: true }, handler: list.toggleHelp },
  { id: 'reconnect', keys: [{ input: 'r' }], label: 'r', description: 'reconnect', contexts: ['list'], handler: (c) => c.actions.session.reconnect() },
  { id: 'tag', keys: [{ input: ' ' }], label: 'space', description: 'tag (x, w, s, R act on every tagged run)', contexts: ['list'], disabled: list.inRuns, handler: list.tag },
  { id: 'tag-all', keys: [{ input: '*' }], label: '*', description: 'tag every listed run / untag all', contexts: ['list'], handler: list.tagAll },
  { id: 'next-attention', keys: [{ input: 'J' }], label: 'J', description: 'next run that needs you', contexts: ['list'], footer: { rank: 70, panes: ['runs'] }, disabled: list.anyNeedsYou, handler: list.nextNeedingYou },
  { id: 'sort', keys: [{ input: 'S' }], label: 'S', description: 'sort by status, elapsed, cost, tokens or name', contexts: ['list'], handler: list.resort(list.nextSort) },
  { id: 'group', keys: [{ input: 'b' }], label: 'b', description: 'group by provider / workload / repository / none', contexts: ['list'], handler: list.resort(list.nextGrouping) },
  { id: 'reverse', keys: [{ input: '-' }], label: '-', description: 'reverse the sort', contexts: ['list'], handler: list.resort(list.reversed) },
  { id: 'rerun', keys: [{ input: 'R' }], label: 'R', description: 'rerun (an ended run)', contexts: NAV, disabled: needsRun(rerunnable), handler: onTarget((c, t) => c.actions.runs.rerun(t.uuid)) },
  { id: 'tagged-rerun', keys: [{ input: 'R' }], label: 'R', description: 'rerun the tagged runs that ended', contexts: ['tagged'], help: false, disabled: tagged.anyEnded, handler: tagged.rerunTagged },
  { id: 'spend', keys: [{ input: '$' }], label: '$', description: 'spend: by provider and workload, the last hour', contexts: ['list', 'spend'], handler: views.toggleSpend },
  { id: 'loops', keys: [{ input: '@' }], label: '@', description: 'loops: schedule, next fire, last result, runs', contexts: ['list', 'loops'], handler: views.toggleLoops },
  { id: 'loop-pause', keys: [{ input: 'p' }], label: 'p', description: 'pause/resume the loop', contexts: ['loops'], footer: { rank: 130 }, disabled: views.loopSelected, handler: views.pauseLoop },
  { id: 'loop-fire', keys: [{ input: 'f' }], label: 'f', description: 'fire the loop now', contexts: ['loops'], footer: { rank: 140 }, disabled: views.loopSelected, handler: views.fireLoop },
  { id: 'fold', keys: [{ input: 'z' }], label: 'z', description: "fold/unfold the run's children", contexts: ['list'], disabled: list.foldable, handler: list.fold },
  {
    id: 'takeover',
    keys: [{ input: 'o' }],
    label: 'o',
    description: "take over: the agent's own CLI on its session (stops the run at its turn's end; o again: now)",
    contexts: NAV,
    disabled: needsRun(),
    handler: onTarget((c, t) => c.actions.takeover.start(t.uuid)),
  },
  { id: 'resume-provider', keys: [{ input: 'U' }], label: 'U', description: 'resume the held provider now (of the run, or the limiter line)', contexts: NAV, disabled: held, handler: (c) => c.actions.runs.resumeProvider(heldProviderOf(c)!) },
  {
    id: 'cancel-held',
    keys: [{ input: 'C' }],
    label: 'C',
    description: "cancel the held provider's queued runs (asks y/n)",
    contexts: NAV,
    disabled: heldQueue,
    dangerous: { verb: 'cancel', subject: heldQueueSubject },
    handler: (c, q) => killSeveral(c, q.uuids ?? [q.uuid]),
  },
  // Unknown until the first stats: pausing is the safe guess.
  { id: 'pause-queue', keys: [{ input: 'P' }], label: 'P', description: 'pause/resume the queue', contexts: NAV, handler: (c) => c.actions.runs.pauseQueue(!(c.s.stats?.paused ?? false)) },
  { id: 'quit', keys: [{ input: 'q' }, { input: 'c', ctrl: true }], label: 'q', description: 'quit', contexts: VIEWS, footer: { rank: 230, always: true }, handler: (c) => c.exit() },

  // The one confirmation, for every dangerous binding above.
  { id: 'confirm', keys: [{ input: 'y' }, { input: 'Y' }], label: 'y', description: 'yes', contexts: ['confirm'], footer: { rank: 20, always: true }, handler: (c) => c.proceed() },
  {
    id: 'deny',
    keys: [{ input: 'n' }, { input: 'N' }, { key: 'escape' }],
    label: 'n/esc',
    description: 'no',
    contexts: ['confirm'],
    footer: { rank: 30, always: true },
    handler: (c) => c.set({ mode: c.s.confirm?.back ?? 'list', confirm: null, ...info(`kill canceled: ${c.s.confirm?.name ?? 'the run'} keeps running`, c.now()) }),
  },
  { id: 'submit', keys: [{ key: 'return' }], label: 'enter', description: 'submit', contexts: ['prompt'], footer: { rank: 40, always: true }, handler: prompt.submit },
  { id: 'prompt-back', keys: [{ key: 'escape' }], label: 'esc', description: 'cancel', contexts: ['prompt'], footer: { rank: 50, always: true }, handler: prompt.cancel },
  { id: 'delete-char', keys: [{ key: 'backspace' }, { key: 'delete' }], label: '⌫', description: 'delete', contexts: ['prompt'], handler: prompt.deleteChar },
  { id: 'clear-line', keys: [{ input: 'u', ctrl: true }], label: 'ctrl+u', description: 'clear', contexts: ['prompt'], handler: prompt.clearLine },
  { id: 'quit-now', keys: [{ input: 'c', ctrl: true }], label: 'ctrl+c', description: 'quit', contexts: ['prompt', 'confirm'], handler: (c) => c.exit() },
];
