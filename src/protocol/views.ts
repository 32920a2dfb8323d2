// What clients see of the supervisor's state, on the domain's own types: the
// public shape of a run (what `--json`, the socket and the TUI see, documented
// in the README; environment values and the prompt stay inside the
// supervisor), and of a loop. The result types of the methods are in results.ts.

import { bounded } from '../core/approval-summary.js';
import { deciderText, type ApprovalRecord, type ApprovalState, type Decider, type Question, type Verdict } from '../core/approvals.js';
import { roundCost, roundFraction, runMeters, runUsage, type MeterName } from '../core/budget.js';
import type { LoopRunStatus, Overlap } from '../core/loop-policy.js';
import { rolledUp } from '../core/run-tree.js';
import type { BlockedKind, ExitReason, Protocol, Run, RunStatus, RunWorktree, TokenCounts } from '../core/types.js';
import type { Waiting } from '../core/waiting.js';

/** One budget meter as a client sees it: cost rounded, fraction rounded (null without a limit). */
export interface MeterView {
  used: number;
  limit: number | null;
  fraction: number | null;
  warn: boolean;
}

export interface PublicRun {
  uuid: string;
  name: string;
  provider: string;
  workload: string;
  protocol: Protocol | null;
  status: RunStatus;
  exit_reason: ExitReason | null;
  exit_detail: string | null;
  exit_code: number | null;
  /** Why its usage limit or passing failure did not go on (`not retried: exit code 1 is terminal`); null when there is nothing to say. */
  exit_note: string | null;
  blocked_kind: BlockedKind | null;
  /**
   * Blocked on its agent's requests (kind `approval`): the oldest pending one
   * (its id, its summary, whether it is a question, its deadline) and how many
   * more wait; null otherwise.
   */
  asking: { id: number; summary: string; question: boolean; deadline_at: string | null; more: number } | null;
  /** Tool calls its agent CLI refused by its own settings (nobody was asked). */
  denials: number;
  /** Its agent broke its two-way protocol: how often, and the last time's words (the events say each). */
  protocol_errors: { count: number; last: string | null };
  /** Its own rules for what its agent asks (`run --allow/--deny`, and an "always" answer's), besides config's. */
  rules: { allow: string[]; deny: string[] };
  /** Every request of the run, oldest first: in `show` (run.get) only. */
  approvals?: PublicApproval[];
  queue_seq: number;
  /** A queued run's place in admission order (1 = next), as of this view; a subscriber with `rows` is sent it again as it moves (RowsMessage.positions). */
  queue_position: number | null;
  pid: number | null;
  command: string[];
  cwd: string;
  interactive: boolean;
  turns: number;
  input_seq: number;
  tokens: TokenCounts;
  cost_usd: number;
  /** Turns, tokens, cost and time against the run's ceilings (tokens and cost rolled up over its tree). */
  budget: Record<MeterName, MeterView>;
  /** The run's provider is on a usage-limit hold until then (ISO), or null. */
  held_until: string | null;
  /** Names of the variables `-e` added (values only with `orcr show --env`: they may be secrets). */
  env_keys: string[];
  /** The lease of the slot the run holds (a cluster's lease id; its promotion's otherwise), or null. */
  lease: string | null;
  /** Queued runs: what holds it back (render with waitingText); null otherwise. */
  waiting: Waiting | null;
  loop: { detected: boolean; warned: boolean; repetitions: number };
  /** A warned stall (`on_stall: warn`): silent since then (ISO, its last output), until it prints again; null otherwise. */
  stalled_since: string | null;
  session_id: string | null;
  /**
   * The agent CLI retrying a failed API call by itself (`retrying overloaded 3/10`), or null; `until`
   * (ISO), when it said how long it waits: on a run blocked on a limit, the agent waits for it itself.
   */
  agent_retry: { attempt: number | null; max: number | null; error: string; since: string; until: string | null } | null;
  /** Attempts before the current one (a usage limit continued the run), oldest first: when each started and ended, why, and its session; empty for a run on its first. */
  attempts: {
    n: number;
    kind: 'continue' | 'retry';
    started_at: string | null;
    ended_at: string;
    reason: ExitReason;
    detail: string | null;
    session_id: string | null;
  }[];
  last_tool: string | null;
  last_text: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  status_at: string;
  /** The run whose process made this one (uuid), or null (made from outside orcr, or with --detach). */
  parent: string | null;
  /** Ancestors above it: 0 for a run made from outside orcr. */
  depth: number;
  /** Runs this one made (uuids, in queue order; ended ones too). */
  children: string[];
  /** Runs it waits for (`run --after`: uuids, in the order given); empty for none. */
  after: string[];
  /** With `after`: it goes once each has ended however (true), or only once each has completed. */
  after_any: boolean;
  /** Runs waiting for this one now (uuids): they start (or are canceled) when it ends. */
  dependents: string[];
  /** Its own usage plus every descendant's: what its max_tokens / max_cost_usd (and `budget`) are read against. */
  rollup: { tokens: TokenCounts; cost_usd: number };
  /** Its git worktree (run --worktree): the repository it was made from, branch, base, lines added and removed against the base (as of its last idle or end), and state; null without one. */
  worktree: {
    repo: string;
    path: string;
    branch: string;
    base: string;
    base_commit: string;
    state: RunWorktree['state'];
    added: number;
    removed: number;
    files: number;
  } | null;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** What the supervisor knows beyond the run's row. */
export interface ViewExtras {
  queuePosition?: number | null;
  loop?: PublicRun['loop'];
  heldUntil?: number | null;
  waiting?: Waiting | null;
  /** The clock the time meter is read with (default: the wall clock). */
  now?: number;
  children?: string[];
  dependents?: string[];
  /** Its pending requests, oldest first (a run blocked on them). */
  pending?: readonly ApprovalRecord[];
  /** Every request of the run (show). */
  approvals?: readonly ApprovalRecord[];
}

/** The run's meters as clients see them: core's runMeters, rounded. */
function meterViews(run: Run, now: number): PublicRun['budget'] {
  const elapsed = run.started_at === null ? 0 : (run.ended_at ?? now) - run.started_at;
  // Tokens and cost rolled up: a parent's ceilings are read against its whole tree.
  const tree = rolledUp(run);
  const budget: Partial<PublicRun['budget']> = {};
  for (const m of runMeters(runUsage(run, tree, elapsed), run.limits)) {
    budget[m.name] = { used: m.name === 'cost_usd' ? roundCost(m.used) : m.used, limit: m.limit, fraction: roundFraction(m.fraction), warn: m.warn };
  }
  // runMeters gives every meter, in a fixed order.
  return budget as PublicRun['budget'];
}

export function publicRun(run: Run, extras: ViewExtras = {}): PublicRun {
  const now = extras.now ?? Date.now();
  const tree = rolledUp(run);
  return {
    uuid: run.uuid,
    name: run.name,
    provider: run.provider,
    workload: run.workload,
    protocol: run.protocol,
    status: run.status,
    exit_reason: run.exit_reason,
    exit_detail: run.exit_detail,
    exit_code: run.exit_code,
    exit_note: run.exit_note,
    blocked_kind: run.blocked_kind,
    asking: askingView(run, extras.pending ?? []),
    denials: run.denials,
    protocol_errors: run.protocol_errors,
    rules: { allow: [...run.approvals.allow], deny: [...run.approvals.deny] },
    ...(extras.approvals ? { approvals: extras.approvals.map((a) => publicApproval(a, run.name)) } : {}),
    queue_seq: run.queue_seq,
    queue_position: run.status === 'queued' ? (extras.queuePosition ?? null) : null,
    pid: run.pid,
    command: run.command,
    cwd: run.cwd,
    interactive: run.interactive,
    turns: run.turns,
    input_seq: run.input_seq,
    tokens: { ...run.tokens },
    cost_usd: run.cost_usd,
    budget: meterViews(run, now),
    loop: extras.loop ?? { detected: false, warned: false, repetitions: 0 },
    stalled_since: run.status === 'ended' ? null : iso(run.stalled_since),
    held_until: extras.heldUntil ? iso(extras.heldUntil) : null,
    waiting: run.status === 'queued' ? (extras.waiting ?? null) : null,
    lease: run.status === 'ended' || run.status === 'queued' ? null : run.lease_id,
    env_keys: Object.keys(run.env),
    session_id: run.session_id,
    agent_retry: run.agent_retry && run.status !== 'ended' ? agentRetryView(run.agent_retry) : null,
    attempts: run.attempts.map((a) => ({
      n: a.n,
      kind: a.kind,
      started_at: iso(a.started_at),
      ended_at: iso(a.ended_at)!,
      reason: a.reason,
      detail: a.detail,
      session_id: a.session_id,
    })),
    last_tool: run.last_tool,
    last_text: run.last_text,
    created_at: iso(run.created_at)!,
    started_at: iso(run.started_at),
    ended_at: iso(run.ended_at),
    status_at: iso(run.status_at)!,
    parent: run.parent,
    depth: run.depth,
    children: extras.children ?? [],
    after: run.after,
    after_any: run.after_any,
    dependents: extras.dependents ?? [],
    rollup: tree,
    worktree: run.worktree
      ? {
          repo: run.worktree.repo,
          path: run.worktree.path,
          branch: run.worktree.branch,
          base: run.worktree.base,
          base_commit: run.worktree.base_commit,
          state: run.worktree.state,
          added: run.worktree.added,
          removed: run.worktree.removed,
          files: run.worktree.files,
        }
      : null,
  };
}

function askingView(run: Run, pending: readonly ApprovalRecord[]): PublicRun['asking'] {
  const first = pending[0];
  if (run.status !== 'blocked' || run.blocked_kind !== 'approval' || !first) return null;
  return { id: first.id, summary: first.summary, question: first.question, deadline_at: iso(first.deadline_at), more: pending.length - 1 };
}

/** One request of an agent's, as clients see it: bounded and escaped text only (its input is `approval.get`'s). */
export interface PublicApproval {
  /** Short, for people to type (another machine's as `HOST:ID`). */
  id: number;
  /** Another machine's request: its host name (approve it as `HOST:ID`). */
  host?: string;
  run: string;
  /** The run's name. */
  name: string;
  tool: string;
  /** `Bash: npm test`, `Write: src/a.ts (340 B)`, `question: Which database?`. */
  summary: string;
  question: boolean;
  /** A question's questions, with the options each offers; null for a tool. */
  questions: Question[] | null;
  /** The rule an "always" answer adds to the run's allow list, or null when the agent offers none. */
  always: string | null;
  state: ApprovalState;
  asked_at: string;
  /** When its deadline decides it (its policy's on_timeout), or null for never. */
  deadline_at: string | null;
  on_timeout: Verdict;
  decided_at: string | null;
  /** Who decided: a rule (which, of which list), a person (through what, and who), or the deadline. */
  by: Decider | null;
  /** The same in words: `the allow rule Bash(npm test:*)`, `the CLI (pts/3)`, `its deadline`. */
  decided_by: string | null;
  /** A denial's words to the agent. */
  message: string | null;
  /** A question's answers, in its questions' order. */
  answers: string[] | null;
  always_added: boolean;
  /** The answer reached the agent's input. */
  delivered: boolean;
}

export function publicApproval(a: ApprovalRecord, name: string): PublicApproval {
  // A person's words and an agent's labels are shown as summaries are: escaped, bounded.
  const by: Decider | null = a.by?.kind === 'person' && a.by.who !== null ? { ...a.by, who: bounded(a.by.who, 200) } : a.by;
  return {
    id: a.id,
    run: a.run,
    name,
    tool: a.tool,
    summary: a.summary,
    question: a.question,
    questions: a.questions,
    always: a.always,
    state: a.state,
    asked_at: iso(a.asked_at)!,
    deadline_at: iso(a.deadline_at),
    on_timeout: a.on_timeout,
    decided_at: iso(a.decided_at),
    by,
    decided_by: a.by === null ? null : deciderText(by),
    message: a.message === null ? null : bounded(a.message, 2000),
    answers: a.answers === null ? null : a.answers.map((x) => bounded(x, 400)),
    always_added: a.always_added,
    delivered: a.delivered,
  };
}

function agentRetryView(r: NonNullable<Run['agent_retry']>): NonNullable<PublicRun['agent_retry']> {
  return { attempt: r.attempt, max: r.max, error: r.error, since: iso(r.at)!, until: r.delay_ms !== null ? iso(r.at + r.delay_ms) : null };
}

/** A loop as `loop list/show --json` and the socket give it. */
export interface PublicLoop {
  name: string;
  schedule: string;
  cron: string | null;
  tz: string | null;
  once_at: string | null;
  command: string[];
  cwd: string;
  max_concurrency: number;
  overlap: Overlap;
  timeout_ms: number | null;
  paused: boolean;
  created_at: string;
  next_fire_at: string | null;
  pending: { since: string; coalesced: number } | null;
  active: { uuid: string; name: string; status: LoopRunStatus }[];
  last: { uuid: string; name: string; status: LoopRunStatus; exit_code: number | null; ended_at: string | null } | null;
}

/** One run of a loop (`loop runs`): a started run, or the pending one not started yet. */
export interface PublicLoopRun {
  uuid: string | null;
  name: string | null;
  loop: string;
  status: LoopRunStatus;
  run_status: RunStatus | null;
  exit_reason: ExitReason | null;
  exit_code: number | null;
  pid: number | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  children: number;
  /** A pending run only: fires folded into it. */
  coalesced?: number;
}

/**
 * The public face of one run as its machine publishes it into the cluster's
 * database (orcr_run.face): what `ps` shows and no more — never its prompt,
 * command, directory, environment, tool inputs (beyond a request's summary)
 * or output. Declared once: the publisher writes it, readers read it.
 */
export interface ClusterRunFace {
  uuid: string;
  name: string;
  provider: string;
  workload: string;
  status: RunStatus;
  /** Why it is where it is, in words, as `ps` says it after the status (`#2 provider a 2/2`, `approve Bash: npm test`), or null. */
  why: string | null;
  exit_reason: ExitReason | null;
  exit_detail: string | null;
  exit_code: number | null;
  blocked_kind: BlockedKind | null;
  /** Tool calls its agent CLI refused by its own settings (`ps`'s `⊘ 2 denied`); absent from what older machines publish. */
  denials?: number;
  interactive: boolean;
  queue_position: number | null;
  turns: number;
  tokens: TokenCounts;
  cost_usd: number;
  /** Turns, tokens, cost and time against its ceilings. */
  budget: Record<MeterName, MeterView>;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  status_at: string;
  /** Its parent's uuid (on the same machine), or null. */
  parent: string | null;
  /** The runs it waits for (uuids), in the order given. */
  after: string[];
  after_any: boolean;
  /** Its worktree's branch and changes (no path). */
  worktree: { branch: string; base: string; state: RunWorktree['state']; added: number; removed: number; files: number } | null;
  /**
   * Its agent's requests waiting for a person, oldest first: their ids are
   * this machine's (`HOST:ID` elsewhere). `asked_at` and `on_timeout` (what
   * its deadline decides) are absent from what older machines publish.
   */
  approvals: { id: number; summary: string; question: boolean; deadline_at: string | null; asked_at?: string; on_timeout?: Verdict }[];
  /**
   * What its WHY counts down to, where it does: a queued run's cap or hold
   * (a hold's end, a retry's), a blocked run's end of a limit its agent waits
   * out. A reader writes that WHY again by its own clock and time zone
   * (text/why faceWhy); absent from what older machines publish, whose `why`
   * is read as written.
   */
  waiting?: Waiting | null;
  agent_until?: string | null;
}

/** One run of the fleet as a member reads it: the face its machine published, whose it is, and how fresh. */
export interface ClusterRun extends ClusterRunFace {
  /** The machine that runs it (its cluster host name). */
  host: string;
  /** How this machine names it: the plain name for its own runs, `HOST:NAME` for another machine's. */
  ref: string;
  /** It is this machine's own. */
  local: boolean;
  /** Its machine stopped renewing its heartbeat: this is the last it said. */
  stale: boolean;
  /** When its machine last published it (the database's clock, ISO). */
  published_at: string;
}

/** A machine of the fleet as readers see it: ages are the database's clock's. */
export interface FleetMachine {
  host: string;
  stale: boolean;
  /** Since its last heartbeat, ms. */
  age_ms: number;
  accept_commands: boolean;
}

/** A run's public face for the fleet view: the whitelist of its view, with its WHY in words and its pending requests' summaries. */
export function clusterFace(r: PublicRun, why: string | null, pending: readonly ApprovalRecord[]): ClusterRunFace {
  return {
    uuid: r.uuid,
    name: r.name,
    provider: r.provider,
    workload: r.workload,
    status: r.status,
    why,
    exit_reason: r.exit_reason,
    exit_detail: r.exit_detail,
    exit_code: r.exit_code,
    blocked_kind: r.blocked_kind,
    denials: r.denials,
    interactive: r.interactive,
    queue_position: r.queue_position,
    turns: r.turns,
    tokens: { ...r.tokens },
    cost_usd: r.cost_usd,
    budget: r.budget,
    created_at: r.created_at,
    started_at: r.started_at,
    ended_at: r.ended_at,
    status_at: r.status_at,
    parent: r.parent,
    after: [...r.after],
    after_any: r.after_any,
    worktree: r.worktree
      ? {
          branch: r.worktree.branch,
          base: r.worktree.base,
          state: r.worktree.state,
          added: r.worktree.added,
          removed: r.worktree.removed,
          files: r.worktree.files,
        }
      : null,
    approvals: pending.map((a) => ({
      id: a.id,
      summary: a.summary,
      question: a.question,
      deadline_at: iso(a.deadline_at),
      asked_at: new Date(a.asked_at).toISOString(),
      on_timeout: a.on_timeout,
    })),
    waiting: r.status === 'queued' ? r.waiting : null,
    agent_until: r.status === 'blocked' ? (r.agent_retry?.until ?? null) : null,
  };
}
