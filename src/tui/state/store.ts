// The TUI's one store (zustand vanilla): the shape of its state, its start,
// and the notices every room may post. State is plain data; every change is a
// pure reducer `(state, …) => patch` (reducers.ts, navigation.ts) applied with
// one setState. Nothing here does I/O or knows where the data came from.

import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ListState } from './list-state.js';
import type { LogEntry } from './event-log.js';
import { NO_OLDER, type Older } from './ended-window.js';
import { Ring } from './ring.js';
import type { Burns } from './burn.js';
import type { Spend } from './spend.js';
import type { LoopsView } from './loops.js';
import { NO_REQUESTS, type Requests } from './approvals.js';
import { NO_FLEET, type Fleet, type Scope } from './fleet.js';
import { NO_QUEUE, type QueueView } from './approval-queue.js';
import { clean } from './safe-text.js';
import { DEFAULT_SORT, type SortSpec } from './sort.js';
import type { RunsData } from './runs.js';
import type { RunsView } from './runs-view.js';
import type { Stats } from './stats.js';
import type { PagerDoc, PagerState } from './pager-state.js';
import type { TranscriptDoc } from './transcript-doc.js';

export type Pane = 'runs' | 'limiter' | 'events';
type Mode = 'list' | 'details' | 'pager' | 'help' | 'spend' | 'loops' | 'approvals' | 'confirm' | 'prompt';
type PromptKind = 'filter' | 'send' | 'new' | 'search' | 'deny';

export interface Prompt {
  kind: PromptKind;
  text: string;
  /** The run a `send` goes to. */
  target: string | null;
  /** Tagged runs a `send` goes to, each the same text (instead of `target`). */
  targets?: readonly string[];
  targetName: string | null;
  /** The requests a `deny` answers, each with the same message. */
  ids?: readonly number[];
  /** The whole text is selected (the filter as it was): typing replaces it, an arrow key keeps it. */
  selected?: boolean;
  /** Where esc / submit returns to. */
  back: Mode;
  /** A filter that does not read, in words: it is not applied, and enter does not take it. */
  problem?: string;
}

/** A dangerous key's question (y/n), and what the key acts on once answered yes. */
export interface Confirm {
  /** The binding that asked (input/bindings.ts): y carries it out. */
  binding: string;
  /** The question's verb: "kill", "cancel". */
  verb: string;
  uuid: string;
  /** The run, or "5 tagged runs". */
  name: string;
  /** Several runs (the tagged ones, a held provider's queued ones) rather than `uuid` alone. */
  uuids?: readonly string[];
  back: Mode;
}

interface Message {
  text: string;
  kind: 'info' | 'error';
  at: number;
}

export interface WaitBanner {
  id: number;
  uuid: string;
  name: string;
  state: 'waiting' | 'settled' | 'failed';
  token: string | null;
  error: string | null;
  at: number;
}

export interface ConnState {
  state: 'connecting' | 'up' | 'down';
  pid: number | null;
  startedAt: number | null;
  error: string | null;
  /** When the state last changed. */
  since: number;
  /** True while the first connection may be starting the supervisor. */
  starting: boolean;
}

export interface Viewport {
  width: number;
  runsHeight: number;
  limiterHeight: number;
  eventsHeight: number;
  detailsOutputHeight: number;
  /** Rows of the transcript pager (the screen between header and footer, less its title). */
  pagerHeight: number;
}

export interface DetailsData {
  uuid: string;
  cpu: number | null;
  rssBytes: number | null;
  pids: number[];
  /** Rows of the output scrolled up from the newest (0 = following). */
  scroll: number;
  /** The output as the agent wrote it (`r`), instead of its transcript. */
  raw?: boolean;
}

export interface TuiState {
  home: string;
  /** The home is --demo's throw-away one: quitting stops its fleet and removes it. */
  demo: boolean;
  runs: RunsData;
  /** The ended runs the window left out, and how to page them back in. */
  older: Older;
  loaded: boolean;
  view: RunsView;
  stats: Stats | null;
  log: Ring<LogEntry>;
  logVersion: number;
  logSeq: number;
  logScroll: number;
  conn: ConnState;
  mode: Mode;
  helpBack: Mode;
  /** The help screen's first line shown (it lists more keys than a small terminal has rows). */
  helpScroll: number;
  prompt: Prompt | null;
  confirm: Confirm | null;
  pane: Pane;
  showEvents: boolean;
  filter: string;
  showAll: boolean;
  sort: SortSpec;
  /** The spend view's figures (`$`), read from the supervisor while it shows. */
  spend: Spend | null;
  /** The loops view's rows (`@`), read from the supervisor while it shows, and its selected row. */
  loops: LoopsView | null;
  loopsCursor: number;
  /** The requests waiting for a person across the fleet, oldest first (approval.list, then the events; in cluster scope other machines' too). */
  requests: Requests;
  /** `m`: this machine's runs, or the whole cluster's (other machines' from cluster.runs, in `fleet`). */
  scope: Scope;
  fleet: Fleet;
  /** The approvals queue (`!`): its selection, tags and a question's picks; and where esc leaves it for. */
  queue: QueueView;
  queueBack: Mode;
  /** Runs whose children are folded away (`z`). */
  collapsed: Readonly<Record<string, true>>;
  /** What each run spent, minute by minute, as its totals grew (burn rates and sparklines). */
  burn: Burns;
  /** Runs tagged with space (or * for every listed one): x, X, w, s and R act on all of them. */
  tagged: Readonly<Record<string, true>>;
  /** Ended runs that needed you and whose details you opened: they leave the lead of the list. */
  seen: Readonly<Record<string, true>>;
  list: ListState;
  selected: string | null;
  /**
   * A run killed from the runs pane: while it is still the selected one, the
   * cursor keeps its row when the run moves away (it sorts to the bottom as
   * it ends), so the next key acts on what is now in that row.
   */
  killPin: string | null;
  /** The focused limiter's selection (over limiterItems(stats.caps)) and the key of the selected line. */
  limiterList: ListState;
  limiterKey: string | null;
  /** The event log's selected line, counted from the newest (0). */
  logCursor: number;
  details: DetailsData | null;
  /** The transcript pager over the selected run (`v` in details), and the document the connection feeds it. */
  pager: PagerState | null;
  pagerDoc: PagerDoc | null;
  /**
   * The run's output as details show it (and `v` pages it): the transcript
   * document the connection feeds while details are open, and a version
   * bumped when it grows, so details redraw.
   */
  outputDoc: TranscriptDoc | null;
  outputVersion: number;
  theme: string;
  message: Message | null;
  waits: WaitBanner[];
  now: number;
  viewport: Viewport;
}

export type TuiStore = StoreApi<TuiState>;
export type Patch = Partial<TuiState>;

const LOG_CAPACITY = 2000;
const EMPTY_VIEW: RunsView = { ids: [], positions: {}, counts: { queued: 0, starting: 0, working: 0, idle: 0, blocked: 0, ended: 0 }, total: 0, attention: {} };

export function initialState(over: Partial<TuiState> = {}): TuiState {
  const now = over.now ?? Date.now();
  return {
    home: '',
    demo: false,
    runs: { byId: {}, seq: 0 },
    older: NO_OLDER,
    loaded: false,
    view: EMPTY_VIEW,
    stats: null,
    log: new Ring<LogEntry>(LOG_CAPACITY),
    logVersion: 0,
    logSeq: 0,
    logScroll: 0,
    conn: { state: 'connecting', pid: null, startedAt: null, error: null, since: now, starting: false },
    mode: 'list',
    helpBack: 'list',
    helpScroll: 0,
    prompt: null,
    confirm: null,
    pane: 'runs',
    showEvents: true,
    filter: '',
    showAll: true,
    sort: DEFAULT_SORT,
    seen: {},
    tagged: {},
    burn: {},
    collapsed: {},
    spend: null,
    loops: null,
    loopsCursor: 0,
    requests: NO_REQUESTS,
    scope: 'machine',
    fleet: NO_FLEET,
    queue: NO_QUEUE,
    queueBack: 'list',
    list: { cursor: 0, offset: 0 },
    selected: null,
    killPin: null,
    limiterList: { cursor: 0, offset: 0 },
    limiterKey: null,
    logCursor: 0,
    details: null,
    pager: null,
    pagerDoc: null,
    outputDoc: null,
    outputVersion: 0,
    theme: 'dark',
    message: null,
    waits: [],
    now,
    viewport: { width: 120, runsHeight: 20, limiterHeight: 6, eventsHeight: 6, detailsOutputHeight: 10, pagerHeight: 20 },
    ...over,
  };
}

export function createTuiStore(over: Partial<TuiState> = {}): TuiStore {
  return createStore<TuiState>()(() => initialState(over));
}

// Notices carry names and the server's own words: made safe here, where every notice passes.
export function info(text: string, now: number): Patch {
  return { message: { text: clean(text), kind: 'info', at: now } };
}

export function error(text: string, now: number): Patch {
  return { message: { text: clean(text), kind: 'error', at: now } };
}
