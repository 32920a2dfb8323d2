// A run's record read back: every field of Run checked, and each field a
// record journaled before it existed lacks given the value that means what
// its absence meant then. The record is built as Run declares it, so a field
// added to Run does not compile here until it is read (an optional one is
// kept unchecked until it is).

import { CEILING_NAMES, type CeilingValues } from '../core/limits.js';
import { initialLoopState, type LoopState } from '../core/loop.js';
import {
  ATTEMPT_KINDS,
  BLOCKED_KINDS,
  EXIT_REASONS,
  LOOP_ACTIONS,
  ON_LIMIT_CHOICES,
  RUN_STATUSES,
  STALL_ACTIONS,
  WORKTREE_STATES,
  type Attempt,
  type Run,
  type RunLimits,
  type RunWorktree,
  type TokenCounts,
} from '../core/types.js';
import { arrayOf, bool, decodeAs, nullable, num, object, oneOf, or, orElse, str, stringRecord, strings } from './decode.js';

const nullStr = nullable(str);
const nullNum = nullable(num);
const exitReason = oneOf(EXIT_REASONS);
const nullExitReason = nullable(exitReason);
const nullBlockedKind = nullable(oneOf(BLOCKED_KINDS));
const status = oneOf(RUN_STATUSES);
const loopAction = oneOf(LOOP_ACTIONS);
const stallAction = oneOf(STALL_ACTIONS);
const attemptKind = oneOf(ATTEMPT_KINDS);
const onLimit = oneOf(ON_LIMIT_CHOICES);
const worktreeState = oneOf(WORKTREE_STATES);

const noTokens = (): TokenCounts => ({ input: 0, output: 0, cached: 0 });
const noStrings = (): string[] => [];
const noAttempts = (): Attempt[] => [];

const tokens = object<TokenCounts>((t) => ({ input: num(t.input, 'input'), output: num(t.output, 'output'), cached: num(t.cached, 'cached') }));

// Every ceiling of core/limits' table, so that a new one needs no line here; one a record lacks (it came later) is none.
function ceilingsOf(l: Record<string, unknown>): CeilingValues {
  const out: Record<string, number | null> = {};
  for (const k of CEILING_NAMES) out[k] = or(l[k], k, nullNum, null);
  // Its keys are CEILING_NAMES, CeilingValues' keys: TypeScript does not follow a loop over them.
  return out as CeilingValues;
}

const limits = object<RunLimits>((l) =>
  Object.assign(ceilingsOf(l), { loop: loopAction(l.loop, 'loop'), on_stall: or(l.on_stall, 'on_stall', stallAction, 'terminate') }),
);

const loopState = object<LoopState>((s) => ({
  tools: strings(s.tools, 'tools'),
  texts: strings(s.texts, 'texts'),
  detected: bool(s.detected, 'detected'),
  warned: bool(s.warned, 'warned'),
  repetitions: num(s.repetitions, 'repetitions'),
  detections: num(s.detections, 'detections'),
}));

const loopFlags = object<Run['loop_flags']>((f) => ({
  detected: bool(f.detected, 'detected'),
  warned: bool(f.warned, 'warned'),
  repetitions: num(f.repetitions, 'repetitions'),
}));
const noLoopFlags = (): Run['loop_flags'] => ({ detected: false, warned: false, repetitions: 0 });

const tree = object<Run['tree']>((t) => ({ tokens: tokens(t.tokens, 'tokens'), cost_usd: num(t.cost_usd, 'cost_usd') }));
const noTree = (): Run['tree'] => ({ tokens: noTokens(), cost_usd: 0 });

const worktree = object<RunWorktree>((w) => {
  const read: RunWorktree = {
    repo: str(w.repo, 'repo'),
    path: str(w.path, 'path'),
    subdir: str(w.subdir, 'subdir'),
    branch: str(w.branch, 'branch'),
    base: str(w.base, 'base'),
    base_commit: str(w.base_commit, 'base_commit'),
    base_branch: nullStr(w.base_branch, 'base_branch'),
    state: worktreeState(w.state, 'state'),
    added: num(w.added, 'added'),
    removed: num(w.removed, 'removed'),
    files: num(w.files, 'files'),
  };
  if (w.base_run !== undefined) read.base_run = str(w.base_run, 'base_run');
  return read;
});
const nullWorktree = nullable(worktree);

const protocolErrors = object<Run['protocol_errors']>((p) => ({
  count: num(p.count, 'protocol_errors.count'),
  last: nullable(str)(p.last, 'protocol_errors.last'),
}));

const agentRetry = object<NonNullable<Run['agent_retry']>>((a) => ({
  attempt: nullNum(a.attempt, 'attempt'),
  max: nullNum(a.max, 'max'),
  error: str(a.error, 'error'),
  delay_ms: nullNum(a.delay_ms, 'delay_ms'),
  at: num(a.at, 'at'),
}));
const nullAgentRetry = nullable(agentRetry);

const stopRequested = nullable(
  object<NonNullable<Run['stop_requested']>>((x) => ({ reason: exitReason(x.reason, 'reason'), detail: nullStr(x.detail, 'detail') })),
);

const lastResult = nullable(object<NonNullable<Run['last_result']>>((r) => ({ ok: bool(r.ok, 'ok'), detail: nullStr(r.detail, 'detail') })));

const runApprovals = object<Run['approvals']>((a) => ({ allow: strings(a.allow, 'allow'), deny: strings(a.deny, 'deny') }));
const noApprovals = (): Run['approvals'] => ({ allow: [], deny: [] });

const attempts = arrayOf(
  object<Attempt>((a) => ({
    n: num(a.n, 'n'),
    kind: or(a.kind, 'kind', attemptKind, 'continue'),
    started_at: nullNum(a.started_at, 'started_at'),
    ended_at: num(a.ended_at, 'ended_at'),
    reason: exitReason(a.reason, 'reason'),
    detail: nullStr(a.detail, 'detail'),
    session_id: nullStr(a.session_id, 'session_id'),
    prompt: nullStr(a.prompt, 'prompt'),
  })),
);

const run = object<Run>((r) => {
  const read: Run = {
    uuid: str(r.uuid, 'uuid'),
    name: str(r.name, 'name'),
    provider: str(r.provider, 'provider'),
    workload: str(r.workload, 'workload'),
    protocol: nullStr(r.protocol, 'protocol'),
    status: status(r.status, 'status'),
    exit_reason: nullExitReason(r.exit_reason, 'exit_reason'),
    exit_detail: nullStr(r.exit_detail, 'exit_detail'),
    exit_code: nullNum(r.exit_code, 'exit_code'),
    exit_note: or(r.exit_note, 'exit_note', nullStr, null),
    blocked_kind: nullBlockedKind(r.blocked_kind, 'blocked_kind'),
    queue_seq: num(r.queue_seq, 'queue_seq'),
    pid: nullNum(r.pid, 'pid'),
    pid_start: nullStr(r.pid_start, 'pid_start'),
    command: strings(r.command, 'command'),
    cwd: str(r.cwd, 'cwd'),
    env: stringRecord(r.env, 'env'),
    prompt: nullStr(r.prompt, 'prompt'),
    prompt_argv: or(r.prompt_argv, 'prompt_argv', bool, false),
    interactive: bool(r.interactive, 'interactive'),
    limits: limits(r.limits, 'limits'),
    turns: num(r.turns, 'turns'),
    input_seq: num(r.input_seq, 'input_seq'),
    tokens: tokens(r.tokens, 'tokens'),
    cost_usd: num(r.cost_usd, 'cost_usd'),
    session_id: nullStr(r.session_id, 'session_id'),
    last_tool: nullStr(r.last_tool, 'last_tool'),
    last_text: nullStr(r.last_text, 'last_text'),
    created_at: num(r.created_at, 'created_at'),
    started_at: nullNum(r.started_at, 'started_at'),
    ended_at: nullNum(r.ended_at, 'ended_at'),
    status_at: num(r.status_at, 'status_at'),
    kill_requested_at: nullNum(r.kill_requested_at, 'kill_requested_at'),
    stop_requested: or(r.stop_requested, 'stop_requested', stopRequested, null),
    out_offset: num(r.out_offset, 'out_offset'),
    cost_reported: or(r.cost_reported, 'cost_reported', nullNum, null),
    cost_base: or(r.cost_base, 'cost_base', num, 0),
    warned_meters: orElse(r.warned_meters, 'warned_meters', strings, noStrings),
    lease_id: or(r.lease_id, 'lease_id', nullStr, null),
    loop_state: orElse(r.loop_state, 'loop_state', loopState, initialLoopState),
    loop_flags: orElse(r.loop_flags, 'loop_flags', loopFlags, noLoopFlags),
    stalled_since: or(r.stalled_since, 'stalled_since', nullNum, null),
    parent: or(r.parent, 'parent', nullStr, null),
    depth: or(r.depth, 'depth', num, 0),
    tree: orElse(r.tree, 'tree', tree, noTree),
    worktree: or(r.worktree, 'worktree', nullWorktree, null),
    agent_retry: or(r.agent_retry, 'agent_retry', nullAgentRetry, null),
    limited_at: or(r.limited_at, 'limited_at', nullNum, null),
    after: orElse(r.after, 'after', strings, noStrings),
    after_any: or(r.after_any, 'after_any', bool, false),
    retries: or(r.retries, 'retries', num, 0),
    retry_at: or(r.retry_at, 'retry_at', nullNum, null),
    resume_after: or(r.resume_after, 'resume_after', nullNum, null),
    last_result: or(r.last_result, 'last_result', lastResult, null),
    attempts: orElse(r.attempts, 'attempts', attempts, noAttempts),
    approvals: orElse(r.approvals, 'approvals', runApprovals, noApprovals),
    denials: or(r.denials, 'denials', num, 0),
    protocol_errors: orElse(r.protocol_errors, 'protocol_errors', protocolErrors, () => ({ count: 0, last: null })),
  };
  // Optional: absent says something (see Run), so absent stays absent.
  if (r.spec_digest !== undefined) read.spec_digest = str(r.spec_digest, 'spec_digest');
  if (r.on_limit !== undefined) read.on_limit = onLimit(r.on_limit, 'on_limit');
  if (r.max_continues !== undefined) read.max_continues = num(r.max_continues, 'max_continues');
  if (r.account !== undefined) read.account = str(r.account, 'account');
  if (r.first_command !== undefined) read.first_command = strings(r.first_command, 'first_command');
  return read;
});

/** A run's record as the runs table holds it (`uuid` names it if it does not read). */
export function runFromRecord(record: string, uuid: string): Run {
  return decodeAs(run, JSON.parse(record), `record of run ${uuid}`);
}
