// A request as it arrives: what the journal keeps of it (its summary, its
// questions bounded and escaped, the rule it offers for "always") and what
// the rules say of it — decided at once, or pending for a person until its
// deadline. Pure: the supervisor journals the record and keeps the input
// whole in the run's folder.

import { bounded, summarize } from './approval-summary.js';
import type { EventInput } from './events.js';
import { transition } from './run-state.js';
import type { Run } from './types.js';
import type { RuleContext } from './approval-rules.js';
import { deadlineOf, decideByRules, type ApprovalPolicy, type ApprovalRecord, type Ask, type Question } from './approvals.js';

/** Questions a record keeps at most, and options of each: an agent asks 1–4 of 2–4 (Claude Code's AskUserQuestion). */
const MAX_QUESTIONS = 10;
const MAX_OPTIONS = 20;

/** A new request's record (its id is the journal's), decided by the rules or pending. */
export function newApproval(ask: Ask, o: { run: string; cwd: string; home: string; policy: ApprovalPolicy; now: number }): Omit<ApprovalRecord, 'id'> {
  const question = ask.questions !== null && ask.questions.length > 0;
  const ctx: RuleContext = { cwd: o.cwd, home: o.home };
  const said = decideByRules({ tool: ask.tool, subject: ask.subject, question }, o.policy, ctx);
  const base = {
    run: o.run,
    ref: ask.ref,
    tool: bounded(ask.tool, 200),
    summary: summarize(ask, o.cwd),
    question,
    questions: boundedQuestions(ask.questions),
    always: ask.always,
    asked_at: o.now,
    on_timeout: o.policy.on_timeout,
    message: null,
    answers: null,
    always_added: false,
    delivered: false,
  };
  if (said.verdict === null) return { ...base, deadline_at: deadlineOf(o.policy, o.now), state: 'pending', decided_at: null, by: null };
  return { ...base, deadline_at: null, state: said.verdict === 'allow' ? 'allowed' : 'denied', decided_at: o.now, by: said.by };
}

/** What a record keeps of an agent's questions: every text bounded and escaped, the lists bounded. */
export function boundedQuestions(qs: readonly Question[] | null): Question[] | null {
  if (qs === null || qs.length === 0) return null;
  return qs.slice(0, MAX_QUESTIONS).map((q) => ({
    question: bounded(q.question),
    header: q.header === null ? null : bounded(q.header, 60),
    options: q.options
      .slice(0, MAX_OPTIONS)
      .map((opt) => ({ label: bounded(opt.label), description: opt.description === null ? null : bounded(opt.description) })),
    multi: q.multi,
  }));
}

/**
 * The run waits on its agent's request: blocked, kind `approval` (it keeps
 * its slot), with the event that says so; as it is when it waits already.
 * Another block (a limit the agent waits out) gives way: the agent waits for
 * the answer first.
 */
export function blockOnRequest(run: Run, now: number): { run: Run; event: EventInput | null } {
  if (run.status === 'ended' || (run.status === 'blocked' && run.blocked_kind === 'approval')) return { run, event: null };
  const event: EventInput = { type: 'blocked', data: { from: run.status, kind: 'approval', retry_after_s: null } };
  if (run.status === 'blocked') return { run: { ...run, blocked_kind: 'approval', status_at: now }, event };
  return { run: transition(run, 'blocked', now, { blocked_kind: 'approval' }), event };
}

/** No request of the run is pending any more: a run blocked on them goes back to work (its clocks start afresh). */
export function unblockIfAnswered(run: Run, pendingLeft: number, now: number): { run: Run; event: EventInput | null } {
  if (pendingLeft > 0 || run.status !== 'blocked' || run.blocked_kind !== 'approval') return { run, event: null };
  return { run: transition(run, 'working', now), event: { type: 'working', data: { from: 'blocked' } } };
}
