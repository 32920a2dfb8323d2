// What the methods answer, beyond the run and loop views (views.ts): each
// method's result type in methods.ts is built from these. Plain data, as the
// socket carries it and `--json` prints it.

import type { CapUsage } from '../core/admission.js';
import type { RunEvent } from '../core/events.js';
import type { ApprovalState } from '../core/approvals.js';
import type { ExitReason, Protocol, RunStatus } from '../core/types.js';
import type { ErrorCode } from './errors.js';
import type { ClusterRun, FleetMachine, MeterView, PublicApproval, PublicRun } from './views.js';

// ---------- runs ----------

/** How a wait ended for one run: `turn_complete` (idle), its exit reason once ended, `blocked`, `pending` (the timeout ran out) or `not_found`. */
export type SettleToken = ExitReason | 'ended' | 'turn_complete' | 'blocked' | 'pending' | 'not_found';

export interface Settled {
  uuid: string;
  name: string;
  token: SettleToken;
}

type KillAction = 'killing' | 'canceled' | 'already_ended' | 'not_found';

/** One ref of `run.kill`; `descendants` only when there were some (the runs ended with it). */
export interface KillResult {
  ref: string;
  name: string | null;
  uuid: string | null;
  action: KillAction;
  status: RunStatus | null;
  exit_reason: ExitReason | null;
  descendants?: string[];
}

/** A page of runs, newest first; `next`: the `before` of the page after, or null. */
export interface RunPage {
  runs: PublicRun[];
  next: number | null;
}

export interface RunResolved {
  uuid: string;
  name: string;
  dir: string;
  protocol: Protocol | null;
  status: RunStatus;
  exit_reason: ExitReason | null;
  /** Another machine's run (its directory is on that machine): the machine's host name. */
  host?: string;
}

export interface RunSelected {
  uuid: string;
  name: string;
  status: RunStatus;
}

// ---------- requests ----------

/** A request and what its agent asked, whole, or its JSON text cut at 1 MiB (`truncated`). */
export interface ApprovalGot {
  approval: PublicApproval;
  input: unknown;
  truncated?: boolean;
}

/**
 * One request answered, or one target refused (`error`: its code and why —
 * `conflict` when it no longer waits, naming who decided it; `refused` when
 * the caller is the asking run or below it; `usage` for an answer it does
 * not take; `not_found`). `state`: the request's after the answer.
 */
export interface ApprovalAnswered {
  target: string;
  id: number | null;
  /** Another machine's request: its host name. */
  host?: string;
  run: string | null;
  state: ApprovalState | null;
  error?: { code: ErrorCode; message: string };
}

/** The end of a run's output (run.tail): whole lines, oldest first; `truncated` when more came before them. */
export interface RunTail {
  uuid: string;
  name: string;
  protocol: Protocol | null;
  lines: string[];
  truncated: boolean;
}

export interface Diff {
  text: string;
  added: number;
  removed: number;
  files: number;
}

// ---------- events ----------

export interface EventsPage {
  events: RunEvent[];
  /** uuid → name of the runs these events are about. */
  names: Record<string, string>;
}

/** `subscribe`: the last seq, then the snapshot and the replay asked for. */
export interface SubscribeResult {
  seq: number;
  runs?: PublicRun[];
  total?: number;
  truncated?: boolean;
  events?: RunEvent[];
  names?: Record<string, string>;
  more?: boolean;
  /** Retention removed events after `since`: take the snapshot instead. */
  pruned?: { first_seq: number };
}

// ---------- the fleet ----------

export interface Stats {
  caps: CapUsage[];
  /** Names of the runs the caps list (holders and the first waiters), so a reader need not look each up. */
  names: Record<string, string>;
  queued: number;
  active: number;
  holds: Record<string, number>;
  /** Accounts of a provider held (pause_at reached by one of their runs; account null: the agent's default login): their runs wait, the provider's others do not. Until: ISO. */
  account_holds: { provider: string; account: string | null; until: string }[];
  /** Each provider's latest standing in its usage windows, as its agents report it (Claude's rate_limit_event): utilization 0–1 or null, times ISO. */
  quotas: QuotaReport[];
  fleet: { exceeded: boolean; window: string; meters: Record<string, MeterView> };
  warnings: string[];
  config_error: ConfigError | null;
  /** The cluster this machine is in, and whether its database can be reached; null on its own. */
  cluster: ClusterState | null;
  /** `orcr queue pause` in force: nothing starts. */
  paused: boolean;
  draining: boolean;
  /** Why the journal cannot be written (a full disk, read-only, I/O errors), or null: nothing starts meanwhile. */
  degraded: string | null;
}

/** The last config.json edit that was refused (the previous config stays in force), until a good one loads. */
interface ConfigError {
  at: number;
  message: string;
}

export interface SpendRow {
  key: string;
  runs: number;
  tokens: number;
  cost: number;
}

/** A provider's (and account's) latest standing in one usage window, as its agents reported it. */
export interface QuotaReport {
  provider: string;
  /** The account's folder (CLAUDE_CONFIG_DIR, CODEX_HOME), null for the agent's default login. */
  account: string | null;
  window: string;
  status: string;
  utilization: number | null;
  resets_at: string | null;
  at: string;
}

export interface SpendReply {
  window: string;
  /** The supervisor's clock when this was read. */
  at: number;
  by_provider: SpendRow[];
  by_workload: SpendRow[];
  /** The last hour, minute by minute (minutes with no usage left out): epoch minute, tokens, cost. */
  per_minute: { minute: number; tokens: number; cost: number }[];
  fleet: { exceeded: boolean; meters: Record<string, MeterView> };
  /** The usage windows the agents last reported, as stats has them. */
  quotas: QuotaReport[];
}

export interface QueuePaused {
  paused: boolean;
  queued: number;
}

// ---------- the supervisor ----------

export interface Hello {
  version: number;
  pid: number;
  home: string;
  started_at: number;
}

export interface ServerStatus {
  pid: number;
  home: string;
  started_at: number;
  active: number;
  queued: number;
  seq: number;
  degraded: string | null;
  clients: number;
  /** `orcr wait` calls open now (each until its runs settle, its timeout, or its client goes). */
  waits: number;
  warnings: string[];
  config_error: ConfigError | null;
  cluster: ClusterState | null;
  paused: boolean;
  draining: boolean;
}

/** `server.stop`: `waiting_for` (runs still working) with a drain. */
export interface Stopping {
  stopping: true;
  waiting_for?: number;
  queued: number;
  paused: boolean;
}

export interface GcResult {
  /** Ended runs removed (or, in a dry run, that would be). */
  runs: number;
  /**
   * Bytes of what went (or would): the journal rows (run records and event
   * data) and the files of the run directories, counted the same way by a dry
   * run and a real one, so the two agree. The journal gives its freed pages
   * back to the file system as it goes.
   */
  bytes: number;
  /** Events removed: the runs' own and the oldest part of the log. */
  events: number;
  dry_run: boolean;
  older_than_ms: number;
}

// ---------- worktrees ----------

export type FinishMode = 'merge' | 'keep_branch' | 'discard';

/** A worktree let go (or, in a dry run, that would be). */
export interface LetGo {
  run: string | null;
  path: string;
  branch: string | null;
  /** removed; kept_dirty: uncommitted changes (only --force removes it); kept_commits: its branch has work (only --branches) */
  action: 'removed' | 'kept_dirty' | 'kept_commits';
  branch_kept?: boolean;
}

export interface WorktreeFinished {
  run: PublicRun;
  merged_into?: string;
  committed: boolean;
}

// ---------- the cluster ----------

/** Whether other machines' notices reach this one; `not arriving` (a transaction-mode pooler): a fast poll stands in. */
type NotificationState = 'unknown' | 'arriving' | 'not arriving';

interface ClusterMachine {
  host: string;
  heartbeat: string;
  alive: boolean;
  leases: number;
  waiters: number;
}

export interface ClusterState {
  name: string;
  host: string;
  available: boolean;
  /** Epoch ms of the last change of `available`. */
  since: number;
  error: string | null;
  notifications: NotificationState;
  /** Why, when they do not arrive. */
  notifications_detail: string | null;
  /** Where this machine listens: the cluster's url, or a listen_url of its own. */
  listen: 'url' | 'listen_url';
  machines: ClusterMachine[];
  /** When `machines` was read (epoch ms): during an outage, the last the database told. */
  machines_at: number | null;
  /** When the cluster's holders and waiting lines were last read (epoch ms). */
  seen_at: number | null;
}

/** `cluster.status`: the cluster as it stands, and an edit of config.json's "cluster" that waits for the next start. */
export interface ClusterStatus extends ClusterState {
  /** Why config.json's "cluster" is not the one in force (it changed or went after the start), or null. */
  pending: string | null;
}

export interface ClusterForgotten {
  host: string;
  forgotten: boolean;
  alive: boolean;
}

// ---------- loops ----------

/** What a fire did: started a run, or (at the loop's cap) kept it pending, folded it into the pending one, or dropped it. */
export type FireOutcome = { action: 'started'; run: string; name: string } | { action: 'pending' | 'coalesced' | 'skipped'; run: null; name: null };

export interface LoopRemoved {
  removed: string;
  killed: string[];
}

/** `cluster.runs`: the fleet's runs on every machine, as the cluster's database tells. */
export interface ClusterRunsReply {
  cluster: string;
  /** This machine's host name (its runs are named plainly). */
  host: string;
  runs: ClusterRun[];
  machines: FleetMachine[];
  /** When this view was read (ISO, the database's clock). */
  as_of: string;
  /** The database did not answer: this is the last good read, from then (ISO); null when it is current. */
  stale_since: string | null;
  /** Why it did not answer, when stale_since is set. */
  error: string | null;
  /** This machine's publishing of its own runs: flushes committed since its start (one transaction each), runs waiting for the next; null for a viewer. */
  publishing: { flushes: number; pending: number } | null;
}

/** `cluster.run`: one run of the fleet, with the view's freshness. */
export interface ClusterRunReply {
  run: ClusterRun;
  as_of: string;
  stale_since: string | null;
}
