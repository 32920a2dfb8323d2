// Every key binding in one place: a command enum, the keys for each command
// in each context, and the one matcher the input router calls. The footer and
// the help screen are generated from this table (view/key-hints.ts), so they
// cannot drift. Pure data and matching: no store, no actions.

import type { Key } from 'ink';
import { safeLine } from '../../text/terminal-text.js';
import type { Pane } from '../state/store.js';

export enum Command {
  Up = 'up',
  Down = 'down',
  PageUp = 'page-up',
  PageDown = 'page-down',
  First = 'first',
  Last = 'last',
  Details = 'details',
  Kill = 'kill',
  KillNow = 'kill-now',
  Wait = 'wait',
  Send = 'send',
  New = 'new',
  Filter = 'filter',
  ToggleAll = 'toggle-all',
  LoadOlder = 'load-older',
  Back = 'back',
  NextPane = 'next-pane',
  ToggleEvents = 'toggle-events',
  NextTheme = 'next-theme',
  Help = 'help',
  Reconnect = 'reconnect',
  Rerun = 'rerun',
  Sort = 'sort',
  NextAttention = 'next-attention',
  Tag = 'tag',
  TagAll = 'tag-all',
  Reverse = 'reverse',
  PauseQueue = 'pause-queue',
  ResumeProvider = 'resume-provider',
  Takeover = 'takeover',
  Fold = 'fold',
  Spend = 'spend',
  Loops = 'loops',
  LoopPause = 'loop-pause',
  LoopFire = 'loop-fire',
  Group = 'group',
  CancelHeld = 'cancel-held',
  Quit = 'quit',
  Confirm = 'confirm',
  Deny = 'deny',
  Submit = 'submit',
  DeleteChar = 'delete-char',
  ClearLine = 'clear-line',
  Transcript = 'transcript',
  Search = 'search',
  NextMatch = 'next-match',
  PrevMatch = 'prev-match',
  RawView = 'raw-view',
  StderrView = 'stderr-view',
  Expand = 'expand',
  Diff = 'diff',
}

/** `diff`: the pager showing a run's diff (it has no raw, stderr or tool-result views). */
export type KeyContext = 'list' | 'details' | 'pager' | 'diff' | 'help' | 'spend' | 'loops' | 'confirm' | 'prompt';

type KeyName = 'upArrow' | 'downArrow' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'return' | 'escape' | 'tab' | 'backspace' | 'delete';

interface KeySpec {
  /** A printable key, matched exactly (case-sensitive). */
  input?: string;
  /** A named key from Ink's Key. */
  key?: KeyName;
  ctrl?: boolean;
}

export interface Binding {
  command: Command;
  keys: readonly KeySpec[];
  /** How the key is written in the footer and help. */
  label: string;
  /** What it does, for the footer (short) and help. */
  hint: string;
  contexts: readonly KeyContext[];
  /** Shown in the footer (the rest only in help). */
  footer?: boolean;
  /** In the list, the panes whose footer shows it (default: every pane). */
  panes?: readonly Pane[];
  /** A pane's own word for it in the footer ("G follow" in the event log). */
  paneHint?: Partial<Record<Pane, string>>;
}

const OTHER_PANES: readonly Pane[] = ['limiter', 'events'];

const NAV: readonly KeyContext[] = ['list', 'details'];
/** Where the movement keys work: the panes, details' output and the pager. */
const MOVE: readonly KeyContext[] = ['list', 'details', 'pager', 'diff', 'loops', 'help'];
/** The full-screen views esc leaves, where theme, help and quit work too. */
const VIEWS: readonly KeyContext[] = ['list', 'details', 'pager', 'diff', 'help', 'spend', 'loops'];

export const BINDINGS: readonly Binding[] = [
  { command: Command.Up, keys: [{ key: 'upArrow' }, { input: 'k' }], label: '↑/k', hint: 'up', contexts: MOVE },
  { command: Command.Down, keys: [{ key: 'downArrow' }, { input: 'j' }], label: '↓/j', hint: 'down', contexts: MOVE },
  { command: Command.PageUp, keys: [{ key: 'pageUp' }, { input: 'b', ctrl: true }], label: 'PgUp', hint: 'page up', contexts: MOVE },
  { command: Command.PageDown, keys: [{ key: 'pageDown' }, { input: 'f', ctrl: true }], label: 'PgDn', hint: 'page down', contexts: MOVE },
  { command: Command.First, keys: [{ input: 'g' }, { key: 'home' }], label: 'g', hint: 'first', contexts: MOVE },
  { command: Command.Last, keys: [{ input: 'G' }, { key: 'end' }], label: 'G', hint: 'last', contexts: MOVE, footer: true, panes: ['events'], paneHint: { events: 'follow' } },
  { command: Command.Details, keys: [{ key: 'return' }], label: 'enter', hint: 'details', contexts: ['list'], footer: true },
  { command: Command.Kill, keys: [{ input: 'x' }], label: 'x', hint: 'kill', contexts: NAV, footer: true },
  { command: Command.KillNow, keys: [{ input: 'X' }], label: 'X', hint: 'kill without asking', contexts: NAV },
  { command: Command.Wait, keys: [{ input: 'w' }], label: 'w', hint: 'wait', contexts: NAV, footer: true },
  { command: Command.Send, keys: [{ input: 's' }], label: 's', hint: 'send', contexts: NAV, footer: true },
  { command: Command.New, keys: [{ input: 'n' }], label: 'n', hint: 'new', contexts: ['list'], footer: true, panes: ['runs'] },
  { command: Command.Filter, keys: [{ input: '/' }], label: '/', hint: 'filter', contexts: ['list'], footer: true, panes: ['runs'] },
  { command: Command.ToggleAll, keys: [{ input: 'a' }], label: 'a', hint: 'all/active', contexts: ['list'], footer: true, panes: ['runs'] },
  { command: Command.LoadOlder, keys: [{ input: 'L' }], label: 'L', hint: 'load older ended runs', contexts: ['list'], panes: ['runs'] },
  { command: Command.Transcript, keys: [{ input: 'v' }], label: 'v', hint: 'transcript', contexts: ['details'], footer: true },
  { command: Command.Diff, keys: [{ input: 'd' }], label: 'd', hint: 'diff (a worktree run)', contexts: NAV, footer: true },
  { command: Command.Search, keys: [{ input: '/' }], label: '/', hint: 'search', contexts: ['pager', 'diff'], footer: true },
  { command: Command.NextMatch, keys: [{ input: 'n' }], label: 'n/N', hint: 'next/previous match', contexts: ['pager', 'diff'], footer: true },
  { command: Command.PrevMatch, keys: [{ input: 'N' }], label: 'N', hint: 'previous match', contexts: ['pager', 'diff'] },
  { command: Command.Expand, keys: [{ key: 'return' }], label: 'enter', hint: 'expand/fold results', contexts: ['pager'], footer: true },
  { command: Command.RawView, keys: [{ input: 'r' }], label: 'r', hint: 'raw lines', contexts: ['pager', 'details'], footer: true },
  { command: Command.StderrView, keys: [{ input: 'e' }], label: 'e', hint: 'stderr', contexts: ['pager'], footer: true },
  { command: Command.Back, keys: [{ key: 'escape' }], label: 'esc', hint: 'clear/back', contexts: VIEWS, footer: true, panes: OTHER_PANES, paneHint: { limiter: 'runs', events: 'runs' } },
  { command: Command.NextPane, keys: [{ key: 'tab' }], label: 'tab', hint: 'pane', contexts: ['list'], footer: true },
  { command: Command.ToggleEvents, keys: [{ input: 'e' }], label: 'e', hint: 'events', contexts: ['list'], footer: true, panes: ['runs', 'events'], paneHint: { events: 'hide' } },
  { command: Command.NextTheme, keys: [{ input: 't' }], label: 't', hint: 'theme', contexts: VIEWS },
  { command: Command.Help, keys: [{ input: '?' }], label: '?', hint: 'help', contexts: VIEWS, footer: true },
  { command: Command.Reconnect, keys: [{ input: 'r' }], label: 'r', hint: 'reconnect', contexts: ['list'] },
  { command: Command.Tag, keys: [{ input: ' ' }], label: 'space', hint: 'tag (x, w, s, R act on every tagged run)', contexts: ['list'], panes: ['runs'] },
  { command: Command.TagAll, keys: [{ input: '*' }], label: '*', hint: 'tag every listed run / untag all', contexts: ['list'], panes: ['runs'] },
  { command: Command.NextAttention, keys: [{ input: 'J' }], label: 'J', hint: 'next run that needs you', contexts: ['list'], footer: true, panes: ['runs'] },
  { command: Command.Sort, keys: [{ input: 'S' }], label: 'S', hint: 'sort by status, elapsed, cost, tokens or name', contexts: ['list'], panes: ['runs'] },
  { command: Command.Group, keys: [{ input: 'b' }], label: 'b', hint: 'group by provider / workload / repository / none', contexts: ['list'], panes: ['runs'] },
  { command: Command.Reverse, keys: [{ input: '-' }], label: '-', hint: 'reverse the sort', contexts: ['list'], panes: ['runs'] },
  { command: Command.Rerun, keys: [{ input: 'R' }], label: 'R', hint: 'rerun (an ended run)', contexts: NAV },
  { command: Command.Spend, keys: [{ input: '$' }], label: '$', hint: 'spend: by provider and workload, the last hour', contexts: ['list', 'spend'] },
  { command: Command.Loops, keys: [{ input: '@' }], label: '@', hint: 'loops: schedule, next fire, last result, runs', contexts: ['list', 'loops'] },
  { command: Command.LoopPause, keys: [{ input: 'p' }], label: 'p', hint: 'pause/resume the loop', contexts: ['loops'], footer: true },
  { command: Command.LoopFire, keys: [{ input: 'f' }], label: 'f', hint: 'fire the loop now', contexts: ['loops'], footer: true },
  { command: Command.Fold, keys: [{ input: 'z' }], label: 'z', hint: "fold/unfold the run's children", contexts: ['list'], panes: ['runs'] },
  { command: Command.Takeover, keys: [{ input: 'o' }], label: 'o', hint: "take over: the agent's own CLI on its session (stops the run at its turn's end; o again: now)", contexts: NAV },
  { command: Command.ResumeProvider, keys: [{ input: 'U' }], label: 'U', hint: 'resume the held provider now (of the run, or the limiter line)', contexts: ['list', 'details'] },
  { command: Command.CancelHeld, keys: [{ input: 'C' }], label: 'C', hint: "cancel the held provider's queued runs (asks y/n)", contexts: ['list', 'details'] },
  { command: Command.PauseQueue, keys: [{ input: 'P' }], label: 'P', hint: 'pause/resume the queue', contexts: ['list', 'details'] },
  { command: Command.Quit, keys: [{ input: 'q' }, { input: 'c', ctrl: true }], label: 'q', hint: 'quit', contexts: VIEWS, footer: true },
  { command: Command.Confirm, keys: [{ input: 'y' }, { input: 'Y' }], label: 'y', hint: 'yes', contexts: ['confirm'], footer: true },
  { command: Command.Deny, keys: [{ input: 'n' }, { input: 'N' }, { key: 'escape' }], label: 'n/esc', hint: 'no', contexts: ['confirm'], footer: true },
  { command: Command.Submit, keys: [{ key: 'return' }], label: 'enter', hint: 'submit', contexts: ['prompt'], footer: true },
  { command: Command.Back, keys: [{ key: 'escape' }], label: 'esc', hint: 'cancel', contexts: ['prompt'], footer: true },
  { command: Command.DeleteChar, keys: [{ key: 'backspace' }, { key: 'delete' }], label: '⌫', hint: 'delete', contexts: ['prompt'] },
  { command: Command.ClearLine, keys: [{ input: 'u', ctrl: true }], label: 'ctrl+u', hint: 'clear', contexts: ['prompt'] },
  { command: Command.Quit, keys: [{ input: 'c', ctrl: true }], label: 'ctrl+c', hint: 'quit', contexts: ['prompt', 'confirm'] },
];

function specMatches(spec: KeySpec, input: string, key: Key): boolean {
  if (spec.key !== undefined) return key[spec.key] === true && !!spec.ctrl === key.ctrl;
  if (spec.input !== undefined) {
    if (spec.ctrl) return key.ctrl && input === spec.input;
    return !key.ctrl && !key.meta && input === spec.input;
  }
  return false;
}

/** The command a key means in a context, or null (in a prompt, null means "type it"). */
export function matchKey(context: KeyContext, input: string, key: Key): Command | null {
  for (const b of BINDINGS) {
    if (!b.contexts.includes(context)) continue;
    for (const spec of b.keys) if (specMatches(spec, input, key)) return b.command;
  }
  return null;
}

/** Printable text to insert into a prompt (pastes arrive as one string). */
export function printable(input: string, key: Key): string {
  if (key.ctrl || key.meta || key.escape || key.return || key.tab) return '';
  // A paste keeps its text; its escape sequences go, and its line breaks become spaces (a prompt is one line).
  return safeLine(input);
}
