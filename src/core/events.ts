// The journal's event vocabulary: every event type a room appends, with the
// shape of its data. `data` is metadata, never prompts or secrets. The wire
// form is the journal's: `{seq, ts, run, type, data}` (run: the run's uuid, or
// null for an event about the fleet, a loop, the cluster or the supervisor).
//
// A new event type goes here (its data in EventData), then where it is appended,
// then in the readers that show it (the TUI's event log, `orcr events`).

import type { Decider, Verdict } from './approvals.js';
import type { MeterName } from './budget.js';
import type { BlockedKind, ExitReason, RunStatus, StallAction, TokenCounts } from './types.js';

/** A fire by the loop's schedule or by hand (`loop start`); a pending run's turn says `by: 'pending'`. */
type LoopFire = {
  loop: string;
  by: 'schedule' | 'hand';
  scheduled_at: string | null;
};

/** Each event type and its data. */
export interface EventData {
  // ---- a run's life ----
  /** A run was made (`rerun_of`: the run it re-runs; `loop`: made by that loop; `parent`/`depth`: made by another run). */
  queued: {
    name: string;
    provider: string;
    workload: string;
    queue_seq: number;
    rerun_of?: string;
    loop?: string;
    parent?: string | null;
    depth?: number;
    /** Runs it waits for (`run --after`). */ after?: string[];
    after_any?: boolean;
  };
  /** A dependent no longer waits for this input (`kill --keep-dependents` of it); `left`: the inputs it still waits for. */
  after_dropped: { input: string; name: string; left: string[] };
  starting: { from: 'queued'; loop?: string };
  /** The process was started; its protocol will say when it works. */
  spawned: { pid: number };
  working: { from: RunStatus; pid?: number; input_seq?: number };
  idle: { from: RunStatus; pid?: number; turn: number };
  blocked: { from: RunStatus; kind: BlockedKind; retry_after_s: number | null };
  ended: {
    from: RunStatus;
    reason: ExitReason;
    detail: string | null;
    exit_code: number | null;
    /** Why a usage limit did not continue the run. */ note?: string;
  };
  /** The agent CLI retries a failed API call by itself (Claude's api_retry), attempt of max, after delay_ms. */
  agent_retry: { attempt: number | null; max: number | null; error: string; delay_ms: number | null };
  /** An attempt failed for a passing reason (`why`); the run is queued again as attempt `attempt` of at most `of`, after `delay_ms`. */
  retrying: {
    from: RunStatus;
    attempt: number;
    of: number;
    why: string;
    reason: ExitReason;
    detail: string | null;
    delay_ms: number;
    resumes: boolean;
    exit_code: number | null;
  };
  /** An attempt stopped by a usage limit; the run is queued again to resume `session_id` as attempt `attempt`. */
  continued: { from: RunStatus; attempt: number; reason: ExitReason; detail: string | null; session_id: string | null; exit_code: number | null };
  /** A new supervisor found the run's process alive and watches it again. */
  adopted: { pid: number; status: RunStatus };
  usage: { turns: number; tokens: TokenCounts; cost_usd: number };
  /** A meter passed 80% of its limit (`scope: 'fleet'`: the fleet budget's; otherwise the run's). */
  budget_warning: { scope?: 'fleet'; meter: MeterName; used: number; limit: number | null; fraction: number | null };
  budget_exceeded: { scope: 'fleet'; meter: MeterName; used: number; limit: number | null };
  budget_reset: { scope: 'fleet' };
  /** A usage limit holds the provider until `until` (epoch ms); `by`: the run that hit it. */
  hold: {
    provider: string;
    until: number;
    retry_after_s: number | null;
    by: string;
    /** A pause_at hold: the window and its share when it was reached. */
    quota?: { window: string; utilization: number; pause_at: number };
    /** A hold of one account of the provider (pause_at, reached by a run of that account; null: the agent's default login). Absent: the whole provider. */
    account?: string | null;
  };
  hold_lifted: { provider: string; early: boolean; /** As on its hold: one account's. Absent: the whole provider's. */ account?: string | null };
  loop_detected: { by: 'tool' | 'text'; action: 'warn' | 'terminate' };
  stall: { silent_ms: number; turn_timeout_ms: number | null | undefined; action: StallAction };
  stall_ended: { silent_ms: number };
  kill_requested: { force: boolean };
  stop_requested: { reason: ExitReason; detail: string | null };
  takeover_requested: { at: 'turn_end' };
  input_sent: { input_seq: number; bytes: number };
  input_failed: { error: string };
  /** The agent broke its protocol (a malformed frame, an answer to nothing, a request orcr does not serve); `fatal`: the run is stopped for it. */
  protocol_error: { message: string; fatal: boolean };
  // ---- a run's requests (its agent asks before it acts) ----
  /** The agent asks (`question`: it asks a person a question); `summary` bounded and escaped; `deadline_at` epoch ms, or null for none. Its input stays in the run's folder. */
  approval_asked: { id: number; tool: string; summary: string; question: boolean; deadline_at: number | null };
  /** A request decided: by a rule, a person (through what, and who), or its deadline. */
  approval_decided: { id: number; verdict: Verdict; by: Decider; summary: string };
  /** The agent no longer waits for an answer (`agent`: its turn was interrupted), or the run ended (`ended`) or went back to the queue (`requeued`). */
  approval_withdrawn: { id: number; why: 'agent' | 'ended' | 'requeued' };
  /** The agent CLI refused a tool by its own settings, nobody asked; `count`: the run's refusals so far. */
  denied: { tool: string; message: string; count: number };
  /** The run waits on its descendants and lends them its slot meanwhile. */
  slot_lent: { waiting_on: number };
  slot_taken_back: Record<string, never>;
  // ---- a run's worktree ----
  diffstat: { added: number; removed: number; files: number };
  worktree_finished: { mode: 'merge' | 'keep_branch' | 'discard'; branch: string; into?: string };
  worktree_removed: { branch_kept: boolean };
  // ---- the cluster ----
  lease_acquired: { lease: string; host: string; again?: boolean };
  lease_released: { lease: string; host: string };
  lease_lost: { lease: string; host: string; action: 'keep' | 'stop' };
  cluster_joined: { cluster: string; host: string };
  cluster_unavailable: { cluster: string; error: string | null };
  cluster_available: { cluster: string };
  cluster_over_cap: { caps: { cap: string; active: number; limit: number }[] };
  // ---- the supervisor ----
  supervisor_started: { pid: number; active: number };
  config_reloaded: { warnings: string[] };
  config_rejected: { error: string };
  /** The OS refused a launch for want of processes or descriptors: nothing is admitted until `until` (epoch ms), then launches are retried. */
  resource_limit: { limit: string; message: string; until: number };
  /** Its wrapper could not start the agent (out of processes): back to `starting`, launched again. */
  launch_retried: { pid: number | null; limit: string };
  queue_paused: Record<string, never>;
  queue_resumed: Record<string, never>;
  gc: { runs: number; events: number; bytes: number; older_than_ms: number };
  // ---- loops (every one names its loop) ----
  loop_created: { loop: string; schedule: string; tz: string | null; next_fire_at: string | null };
  loop_fired: LoopFire | { loop: string; by: 'pending'; pending_since: string | null; coalesced: number };
  loop_pending: LoopFire & { active: number };
  loop_coalesced: LoopFire & { active: number; coalesced: number };
  loop_skipped: LoopFire & { reason: 'draining' | 'overlap'; active?: number };
  loop_missed: { loop: string; first: string | null; count: number; next_fire_at: string | null };
  loop_timed_out: { loop: string; timeout_ms: number };
  loop_pending_dropped: { loop: string; reason: 'stopped' };
  loop_removed: { loop: string; killed: string[]; pending_dropped: boolean };
  loop_paused: { loop: string; next_fire_at: string | null };
  loop_resumed: { loop: string; next_fire_at: string | null };
}

export type EventType = keyof EventData;

/** A loop's event as the loops room writes it: the loop's name is added at the write. */
export type LoopEventInput = { [T in EventType]: EventData[T] extends { loop: string } ? { type: T; data: WithoutLoop<EventData[T]> } : never }[EventType];
// Distributed over a union of shapes (loop_fired has two).
type WithoutLoop<D> = D extends unknown ? Omit<D, 'loop'> : never;

/** One event of type T, as a room appends it. */
export interface EventOf<T extends EventType> {
  type: T;
  data: EventData[T];
}

/** What a room appends: any event type with its own data. */
export type EventInput = { [T in EventType]: EventOf<T> }[EventType];

/** One event as the journal holds it and the socket sends it. */
export type RunEvent = { [T in EventType]: { seq: number; ts: number; run: string | null; type: T; data: EventData[T] } }[EventType];

/** Build an event input (the type and its data checked together). */
export function event<T extends EventType>(type: T, data: EventData[T]): EventOf<T> {
  return { type, data };
}
