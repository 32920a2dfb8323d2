// A new run's record: every field a queued run starts with, in one place, so
// the supervisor, tests and benchmarks build the same shape.

import { NO_LIMITS } from './budget.js';
import { initialLoopState } from './loop.js';
import type { Protocol, Run, RunLimits, RunWorktree } from './types.js';

export interface NewRun {
  uuid: string;
  name: string;
  provider: string;
  workload: string;
  queue_seq: number;
  command: string[];
  cwd: string;
  now: number;
  protocol?: Protocol | null;
  env?: Record<string, string>;
  prompt?: string | null;
  promptArgv?: boolean;
  interactive?: boolean;
  limits?: RunLimits;
  parent?: string | null;
  depth?: number;
  worktree?: RunWorktree | null;
}

export function newRun(n: NewRun): Run {
  return {
    uuid: n.uuid,
    name: n.name,
    provider: n.provider,
    workload: n.workload,
    protocol: n.protocol ?? null,
    status: 'queued',
    exit_reason: null,
    exit_detail: null,
    exit_code: null,
    blocked_kind: null,
    queue_seq: n.queue_seq,
    pid: null,
    pid_start: null,
    command: n.command,
    cwd: n.cwd,
    env: n.env ?? {},
    prompt: n.prompt ?? null,
    prompt_argv: n.promptArgv ?? false,
    interactive: n.interactive ?? false,
    limits: n.limits ?? { ...NO_LIMITS },
    turns: 0,
    input_seq: 0,
    tokens: { input: 0, output: 0, cached: 0 },
    cost_usd: 0,
    session_id: null,
    last_tool: null,
    last_text: null,
    created_at: n.now,
    started_at: null,
    ended_at: null,
    status_at: n.now,
    kill_requested_at: null,
    stop_requested: null,
    out_offset: 0,
    cost_reported: null,
    exit_note: null,
    cost_base: 0,
    warned_meters: [],
    lease_id: null,
    loop_state: initialLoopState(),
    loop_flags: { detected: false, warned: false, repetitions: 0 },
    stalled_since: null,
    parent: n.parent ?? null,
    depth: n.depth ?? 0,
    tree: { tokens: { input: 0, output: 0, cached: 0 }, cost_usd: 0 },
    worktree: n.worktree ?? null,
    agent_retry: null,
    limited_at: null,
    after: [],
    after_any: false,
    retries: 0,
    retry_at: null,
    resume_after: null,
    last_result: null,
    attempts: [],
    approvals: { allow: [], deny: [] },
    denials: 0,
    protocol_errors: { count: 0, last: null },
  };
}

/** What the limiter keeps of a queued run. */
export function toWaiter(run: Run): { uuid: string; provider: string; workload: string; queue_seq: number; enqueued_at: number } {
  return { uuid: run.uuid, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, enqueued_at: run.created_at };
}
