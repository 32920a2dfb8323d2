// The domain vocabulary shared by every room. Plain data only: no classes,
// no I/O, so records cross the journal, the socket and the TUI unchanged.

import type { CeilingValues } from './limits.js';
import type { LoopAction, LoopState } from './loop.js';

export const RUN_STATUSES = ['queued', 'starting', 'working', 'idle', 'blocked', 'ended'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Every status but `ended`, in the same order. */
export const ACTIVE_STATUSES = RUN_STATUSES.filter((s): s is Exclude<RunStatus, 'ended'> => s !== 'ended');

export function isRunStatus(s: unknown): s is RunStatus {
  return (RUN_STATUSES as readonly unknown[]).includes(s);
}

/** Statuses that hold a slot in every cap the run counts against. */
export const SLOT_STATUSES: ReadonlySet<RunStatus> = new Set(['starting', 'working', 'idle', 'blocked']);

export const EXIT_REASONS = [
  'completed',
  'errored',
  'killed',
  'timeout',
  'budget',
  'loop',
  'canceled',
  'failed',
  'expired',
  'lost',
  'lease_lost',
  'taken_over',
] as const;
export type ExitReason = (typeof EXIT_REASONS)[number];

export const BLOCKED_KINDS = ['limit', 'login', 'question', 'approval', 'unknown'] as const;
export type BlockedKind = (typeof BLOCKED_KINDS)[number];

/**
 * An agent protocol, by name: one of src/agents/registry.ts (PROTOCOLS
 * there). Core holds no list of them: what a protocol can do reaches its
 * decisions as parameters (a ContinuePolicy's `resume`). An old journal row
 * may name one no longer registered; it reads as plain.
 */
export type Protocol = string;

/** The protocol of output alone, no events: a line, or being spawned, is its only sign of life. */
export const PLAIN_PROTOCOL = 'plain';

// Declared beside the loop detector (loop.ts), which must not import this file back.
export { LOOP_ACTIONS, type LoopAction } from './loop.js';

/** What a stalled turn (no output for `turn_timeout`) gets: a flag on the run, or its end (`timeout`, detail `stall`). No "off": no turn timeout is off. */
export const STALL_ACTIONS = ['warn', 'terminate'] as const;
export type StallAction = (typeof STALL_ACTIONS)[number];

/** Per-run ceilings, as core/limits.ts declares them; null means "no ceiling at this scope". */
export type RunLimits = CeilingValues & {
  loop: LoopAction;
  /** What a stall gets. */
  on_stall: StallAction;
};

export interface TokenCounts {
  input: number;
  output: number;
  cached: number;
}

export const ATTEMPT_KINDS = ['continue', 'retry'] as const;
type AttemptKind = (typeof ATTEMPT_KINDS)[number];

/** A run's own choice when a usage limit stops it (`run --on-limit`). */
export const ON_LIMIT_CHOICES = ['continue', 'end'] as const;
type OnLimitChoice = (typeof ON_LIMIT_CHOICES)[number];

/** One attempt of a run that went on past it (core/attempts.ts). */
export interface Attempt {
  /** 1 for the first. */
  n: number;
  /** `continue`: a usage limit stopped it; `retry`: it failed for a passing reason. */
  kind: AttemptKind;
  started_at: number | null;
  ended_at: number;
  /** Why it stopped, as an exit would have said. */
  reason: ExitReason;
  detail: string | null;
  session_id: string | null;
  /** The prompt it was given. */
  prompt: string | null;
}

/**
 * A run as the supervisor holds it and the journal stores it. Times are epoch
 * milliseconds here; the CLI renders them as ISO-8601. A record journaled
 * before one of its fields existed reads with that field's default
 * (journal/run-decoder.ts); an optional field is one whose absence says
 * something no value of it would.
 */
export interface Run {
  uuid: string;
  /**
   * A hash of the spec the run was made from, when its maker named it by
   * uuid (run.enqueue's `uuids`): a request sent again under that uuid with
   * another spec is a conflict, not a repeat. Absent otherwise.
   */
  spec_digest?: string;
  name: string;
  provider: string;
  workload: string;
  /** null until chosen by flag/preset or detected from the first JSON line. */
  protocol: Protocol | null;
  status: RunStatus;
  exit_reason: ExitReason | null;
  /** A finer cause for the exit reason, e.g. "fleet_budget", "idle_reaped", "ENOENT". */
  exit_detail: string | null;
  exit_code: number | null;
  /** Why a usage limit or a passing failure did not go on (not continued, not retried), when it did not; null: nothing to say. */
  exit_note: string | null;
  blocked_kind: BlockedKind | null;
  queue_seq: number;
  pid: number | null;
  /** Field 22 of /proc/PID/stat at launch: proves a pid is still our process. */
  pid_start: string | null;
  command: string[];
  cwd: string;
  /** Environment additions from `-e`. Never copied into events. */
  env: Record<string, string>;
  prompt: string | null;
  /** The prompt goes in argv (a config preset's `{prompt}`, expanded at launch), not to stdin. */
  prompt_argv: boolean;
  interactive: boolean;
  limits: RunLimits;
  turns: number;
  input_seq: number;
  tokens: TokenCounts;
  cost_usd: number;
  session_id: string | null;
  last_tool: string | null;
  last_text: string | null;
  created_at: number;
  started_at: number | null;
  ended_at: number | null;
  /** Monotonic-clock-free: epoch ms of the last status change. */
  status_at: number;
  /** Set when a kill was requested, so a restart finishes the kill. */
  kill_requested_at: number | null;
  /** A guardrail stopped it (its agent signalled): the reason and detail it ends with, whoever hears its exit. Journaled: a supervisor that restarts before the exit still ends it so. */
  stop_requested: { reason: ExitReason; detail: string | null } | null;
  /** Bytes of the agent's stdout already applied: a restart resumes reading here. */
  out_offset: number;
  /** The agent's own cumulative cost report, when its protocol gives one; else cost comes from prices. */
  cost_reported: number | null;
  /** What the processes of earlier attempts reported in all: a new process's totals count from it. */
  cost_base: number;
  /** Meters that already crossed 80% (warned once each). */
  warned_meters: string[];
  /** The limiter's lease for the slot this run holds (from its promotion on; kept when re-adopted), or null. */
  lease_id: string | null;
  /** The loop detector's window, kept with the run so that a re-adopted agent keeps its detection state. */
  loop_state: LoopState;
  /** The loop detector's flags as of the last turn. */
  loop_flags: { detected: boolean; warned: boolean; repetitions: number };
  /**
   * Silent since then (epoch ms of its last output): a stall was warned
   * (`on_stall: warn`) and no output came since. null: not stalled.
   */
  stalled_since: number | null;
  /** The run whose process made this one (its ORCR_RUN), or null. */
  parent: string | null;
  /** Ancestors above it: 0 for a run made from outside orcr. */
  depth: number;
  /** What its descendants spent (its own usage is tokens / cost_usd): zero for none. */
  tree: { tokens: TokenCounts; cost_usd: number };
  /** The git worktree the run works in (`run --worktree`). null: the run works in its cwd. */
  worktree: RunWorktree | null;
  /** The agent CLI is retrying a failed API call by itself (attempt of max, the error, since): cleared when it works again. null: not. */
  agent_retry: { attempt: number | null; max: number | null; error: string; delay_ms: number | null; at: number } | null;
  /** `run --on-limit` / `--max-continues`: its own choice over its provider's. Absent: the provider's. */
  on_limit?: OnLimitChoice;
  max_continues?: number;
  /** An interactive run idle after a turn a usage limit cut short (epoch ms): sent its provider's continue_prompt when the hold lifts. null: not. */
  limited_at: number | null;
  /** Runs it waits for (`run --after`), their uuids in the order given: it is admitted once each has completed. Empty: none. */
  after: string[];
  /** With `after`: once each has ended, however. */
  after_any: boolean;
  /** The agent account it runs as, when its environment names one (agents/accounts.ts): its quotas are kept apart. */
  account?: string;
  /** Retries of passing failures it may have (`run --retries`, else its workload's or provider's `retries`). */
  retries: number;
  /** A retry waits until then (epoch ms) before it takes its queue place. null: no wait. */
  retry_at: number | null;
  /**
   * The agent's verdict on its last turn, as its protocol's result said it
   * (why it failed: `api_error`, `limit`, `login`…): the exit is read by it.
   * Journaled, not only in the reducer's memory: a supervisor that restarts
   * between the result and the agent's exit reads the exit as it said.
   */
  last_result: { ok: boolean; detail: string | null } | null;
  /** Its agent's session may be loaded by another process from then on (epoch ms, wall clock: a two-way protocol's `opened` says); null: any time. */
  resume_after: number | null;
  /** Attempts before the current one (a usage limit continued the run): core/attempts.ts. Empty: this is its first. */
  attempts: Attempt[];
  /** The command the run was made with, once a continuation replaced `command` by the resume command. Absent: `command` is it. */
  first_command?: string[];
  /**
   * The run's own rules for its agent's requests (core/approval-rules.ts'
   * syntax), narrowest of the scopes merged: an "always" answer adds the
   * request's rule to `allow`. Empty: none of its own.
   */
  approvals: { allow: string[]; deny: string[] };
  /** Tool calls its agent CLI refused by its own settings, nobody asked (no prompt tool in use). */
  denials: number;
  /** Its agent broke its two-way protocol (a malformed frame, an answer to nothing, a request orcr does not serve): how often, and the last time's words. */
  protocol_errors: { count: number; last: string | null };
}

export const WORKTREE_STATES = ['planned', 'ready', 'merged', 'kept', 'discarded', 'removed'] as const;
type WorktreeState = (typeof WORKTREE_STATES)[number];

/**
 * A run's worktree. `planned` at enqueue (journaled before anything is made,
 * so an interrupted creation is always someone's to clean up), `ready` once
 * made and the agent started; the others say how it was let go.
 */
export interface RunWorktree {
  repo: string;
  path: string;
  subdir: string;
  branch: string;
  base: string;
  /** Empty until launch when it is built on another run's work (`base_run`). */
  base_commit: string;
  base_branch: string | null;
  /** `--base RUN`: made at launch from that run's worktree as it was left (runtime/git-worktree's snapshotCommit). */
  base_run?: string;
  state: WorktreeState;
  added: number;
  removed: number;
  files: number;
}

/** May its directory or branch exist (made, or being made)? */
export function worktreeLive(w: RunWorktree | null | undefined): w is RunWorktree {
  return w !== null && w !== undefined && (w.state === 'planned' || w.state === 'ready');
}
