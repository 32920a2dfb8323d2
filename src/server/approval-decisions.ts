// A pending request decided — by a person's answer (approvals.ts) or by its
// deadline (approval-deadlines.ts) — in one unit of work: the request's row,
// the `approval_decided` event, the rule "always" adds to the run's allow
// list, and the run back at work once nothing of it is pending. Once that
// commits, the `answer` effect writes the answer to the agent
// (approval-delivery.ts), and its clocks and waits look again.

import type { CheckedAnswer } from '../core/approval-answers.js';
import { unblockIfAnswered } from '../core/approval-intake.js';
import { deciderText, type ApprovalRecord, type Decider } from '../core/approvals.js';
import type { EventInput } from '../core/events.js';
import type { Run } from '../core/types.js';
import { monoNow } from './clock.js';
import type { RunInput } from './run-input.js';
import type { RunStore } from './run-store.js';

export class ApprovalDecisions {
  constructor(private readonly d: { store: RunStore; input: Pick<RunInput, 'recordDecision'> }) {}

  /** Decide a pending request (the caller has checked it is): the record as decided. */
  decide(a: ApprovalRecord, answer: CheckedAnswer, by: Decider): ApprovalRecord {
    const { store } = this.d;
    const now = monoNow();
    const alwaysAdded = answer.always && answer.verdict === 'allow' && a.always !== null;
    const decided: ApprovalRecord = {
      ...a,
      state: answer.verdict === 'allow' ? 'allowed' : 'denied',
      decided_at: now,
      by,
      message: answer.verdict === 'deny' ? answer.message : null,
      answers: answer.verdict === 'allow' ? answer.answers : null,
      always_added: alwaysAdded,
    };
    store.transaction(() => {
      store.saveApproval(decided);
      const run = store.get(a.run);
      const events: EventInput[] = [{ type: 'approval_decided', data: { id: a.id, verdict: answer.verdict, by, summary: a.summary } }];
      if (run) {
        const next = this.afterDecision(run, decided, now, events);
        store.save(next, events);
        if (next.status !== run.status) store.emit({ kind: 'guard', uuid: run.uuid });
      } else store.event(a.run, events[0]!);
      store.emit({ kind: 'answer', id: a.id }, { kind: 'settle', uuid: a.run });
      store.afterCommit(() => this.record(decided));
    });
    return decided;
  }

  /** The run as the decision leaves it: "always" in its allow list, back at work when nothing else of it waits. */
  private afterDecision(run: Run, a: ApprovalRecord, now: number, events: EventInput[]): Run {
    let next = run;
    if (a.always_added && a.always !== null && !next.approvals.allow.includes(a.always)) {
      next = { ...next, approvals: { ...next.approvals, allow: [...next.approvals.allow, a.always] } };
    }
    const back = unblockIfAnswered(next, this.d.store.reader.pendingApprovalsOf(run.uuid).length, now);
    if (back.event) events.push(back.event);
    return back.run;
  }

  /** For the transcript: the decision where it came in the output. */
  record(a: ApprovalRecord): void {
    if (a.state !== 'allowed' && a.state !== 'denied') return;
    this.d.input.recordDecision(a.run, {
      ref: a.ref,
      verdict: a.state === 'allowed' ? 'allow' : 'deny',
      by: deciderText(a.by),
      message: a.message,
      answers: a.answers,
    });
  }
}
