// What a key may ask of the world outside the store: the ports the bindings'
// handlers call, each one carried out by one room of the connection (which
// connection/controller.ts puts together, forwarding nothing). Declared here,
// beside the bindings that use them, so input never imports the connection.

import type { Verdict } from '../../core/approvals.js';
import type { SortSpec } from '../state/sort.js';

/** Runs and the queue, at the supervisor (connection/actions.ts). */
export interface RunPort {
  kill(uuid: string, force: boolean): void;
  /** Kill several (the tagged runs, a held provider's queued ones) in one request. */
  killMany(uuids: readonly string[], force: boolean): void;
  send(uuid: string, text: string): void;
  wait(uuid: string): void;
  enqueue(line: string): void;
  /** A new queued run with an ended run's spec (`orcr rerun`). */
  rerun(uuid: string): void;
  /** `orcr provider resume`: lift a provider's hold now. */
  resumeProvider(provider: string): void;
  /** `orcr queue pause|resume`. */
  pauseQueue(paused: boolean): void;
}

/** `o` (connection/takeover.ts). */
export interface TakeoverPort {
  /** Carry the run's session on in the agent's own CLI (the run stops at its turn's end; again: now). */
  start(uuid: string): void;
}

/** `L` (connection/older-runs.ts). */
export interface OlderPort {
  /** Page older ended runs in (the window let them go, or the snapshot did not send them). */
  load(): void;
}

/** The connection itself (connection/session.ts). */
export interface SessionPort {
  reconnect(): void;
}

/** The views read from the supervisor while they show (connection/view-reads.ts). */
export interface ViewsPort {
  /** `$`: the spend view opened; read its figures now (and each second while it shows). */
  spendOpened(): void;
  /** `@`: the loops view opened; read the loops now (and each second while it shows). */
  loopsOpened(): void;
  /** `p` in the loops view: `orcr loop pause|resume NAME`. */
  pauseLoop(name: string, paused: boolean): void;
  /** `f` in the loops view: `orcr loop run start NAME` (the same rules as a scheduled fire). */
  fireLoop(name: string): void;
}

/** How a request is answered beyond its verdict. */
export interface AnswerOptions {
  /** With deny: what the agent is told (none: its protocol's default words). */
  message?: string;
  /** With allow: the rule the request offers, added to its run's allow list for the rest of the run. */
  always?: boolean;
  /** With allow, for a question: one answer per question (a multi-select one's labels). */
  answers?: (string | string[])[];
}

/** The approvals queue's answers and reads (connection/approval-desk.ts). */
export interface ApprovalsPort {
  /** Answer requests, all in one call: each is decided, or the footer says why not (someone answered first). */
  answer(ids: readonly number[], verdict: Verdict, opts?: AnswerOptions): void;
  /** enter/v in the queue: read the request's whole input into the pager. */
  inputOpened(id: number): void;
}

/** A run's output, followed while details, the transcript or a diff show it (connection/output-follow.ts). */
export interface OutputPort {
  /** Details opened on the selected run: sample its processes, read its output and follow it. */
  detailsOpened(): void;
  /** Details closed: stop following the output. */
  detailsClosed(): void;
  /** The transcript pager opened on a run: page the output details follow (read it, if they do not). */
  transcriptOpened(uuid: string): void;
  /** The pager closed, back to details (which go on following). */
  transcriptClosed(): void;
  /** `d`: read the run's diff against its base into the pager. */
  diffOpened(uuid: string): void;
}

/** What the TUI remembers for the next session, in the home's tui.json (connection/saved-prefs.ts). */
export interface PrefsPort {
  themeChanged(name: string): void;
  sortChanged(sort: SortSpec): void;
}

/** `m` and other machines' runs (connection/fleet-reads.ts). */
export interface FleetPort {
  /** This machine's runs, or the whole cluster's (read first: a home in no cluster is told so, and stays). */
  toggleScope(): void;
  /** Details opened on another machine's run (`HOST:UUID`): read its face now. */
  remoteDetailsOpened(key: string): void;
  /** An action on another machine's run was sent: read the fleet again soon. */
  readFleetSoon(): void;
}

export interface Actions {
  runs: RunPort;
  takeover: TakeoverPort;
  older: OlderPort;
  session: SessionPort;
  views: ViewsPort;
  approvals: ApprovalsPort;
  output: OutputPort;
  prefs: PrefsPort;
  fleet: FleetPort;
}
