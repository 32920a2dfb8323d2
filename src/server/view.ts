// The public shape of a run, what users rely on: what `--json`, the socket and
// the TUI see (documented in the README). Environment values and the prompt stay inside the supervisor.

import { rolledUp } from '../core/run-tree.js';
import type { Run } from '../core/types.js';
import type { Waiting } from '../core/waiting.js';

export interface PublicRun {
  uuid: string;
  name: string;
  provider: string;
  workload: string;
  protocol: string | null;
  status: string;
  exit_reason: string | null;
  exit_detail: string | null;
  exit_code: number | null;
  blocked_kind: string | null;
  queue_seq: number;
  queue_position: number | null;
  pid: number | null;
  command: string[];
  cwd: string;
  interactive: boolean;
  turns: number;
  input_seq: number;
  tokens: { input: number; output: number; cached: number };
  cost_usd: number;
  budget: Record<string, { used: number; limit: number | null; fraction: number | null; warn?: boolean }>;
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
  /** Its own usage plus every descendant's: what its max_tokens / max_cost_usd (and `budget`) are read against. */
  rollup: { tokens: { input: number; output: number; cached: number }; cost_usd: number };
  /** Its git worktree (run --worktree): the repository it was made from, branch, base, lines added and removed against the base (as of its last idle or end), and state; null without one. */
  worktree: { repo: string; path: string; branch: string; base: string; base_commit: string; state: string; added: number; removed: number; files: number } | null;
}

const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

export interface ViewExtras {
  queuePosition?: number | null;
  budget?: PublicRun['budget'];
  loop?: PublicRun['loop'];
  heldUntil?: number | null;
  waiting?: Waiting | null;
  now?: number;
  children?: string[];
}

export function publicRun(run: Run, extras: ViewExtras = {}): PublicRun {
  const now = extras.now ?? Date.now();
  const elapsed = run.started_at === null ? 0 : (run.ended_at ?? now) - run.started_at;
  const l = run.limits;
  const tree = rolledUp(run);
  const meter = (used: number, limit: number | null) => ({
    used,
    limit,
    fraction: limit === null ? null : limit === 0 ? (used > 0 ? Infinity : 0) : used / limit,
  });
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
    blocked_kind: run.blocked_kind,
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
    budget: extras.budget ?? {
      turns: meter(run.turns, l.max_turns),
      tokens: meter(tree.tokens.input + tree.tokens.output, l.max_tokens),
      cost_usd: meter(tree.cost_usd, l.max_cost_usd),
      time_ms: meter(elapsed, l.timeout_ms),
    },
    loop: extras.loop ?? { detected: false, warned: false, repetitions: 0 },
    stalled_since: run.status === 'ended' ? null : iso(run.stalled_since ?? null),
    held_until: extras.heldUntil ? iso(extras.heldUntil) : null,
    waiting: run.status === 'queued' ? (extras.waiting ?? null) : null,
    lease: run.status === 'ended' || run.status === 'queued' ? null : (run.lease_id ?? null),
    env_keys: Object.keys(run.env),
    session_id: run.session_id,
    last_tool: run.last_tool,
    last_text: run.last_text,
    created_at: iso(run.created_at)!,
    started_at: iso(run.started_at),
    ended_at: iso(run.ended_at),
    status_at: iso(run.status_at)!,
    parent: run.parent ?? null,
    depth: run.depth ?? 0,
    children: extras.children ?? [],
    rollup: tree,
    worktree: run.worktree
      ? { repo: run.worktree.repo, path: run.worktree.path, branch: run.worktree.branch, base: run.worktree.base, base_commit: run.worktree.base_commit, state: run.worktree.state, added: run.worktree.added, removed: run.worktree.removed, files: run.worktree.files }
      : null,
  };
}
