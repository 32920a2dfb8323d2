// The requests of the fleet's agents as people see and answer them: the
// pending ones across the fleet (oldest first), one with its input, and an
// answer — to request ids or to a run's pending requests — checked against
// the request (a question's options, "always" offered), refused when the
// request no longer waits (`conflict`, naming who decided it) or when the
// caller is the asking run or below it (`refused`), then decided
// (approval-decisions.ts). Answers are serialized by the supervisor's one
// thread: the second of two at once reads the first's decision. At start-up
// the deadlines are armed again and undelivered answers sent again.

import type { Home } from '../config/home.js';
import { checkAnswer, type GivenAnswer } from '../core/approval-answers.js';
import { answeredAlready, answerRefusal, type AnswerVia, type ApprovalRecord } from '../core/approvals.js';
import { RemoteError, type ErrorCode } from '../protocol/errors.js';
import type { ApprovalAnswered, ApprovalGot } from '../protocol/results.js';
import { publicApproval, type PublicApproval } from '../protocol/views.js';
import { PAGE } from '../protocol/wire.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { ApprovalDecisions } from './approval-decisions.js';
import type { ApprovalDelivery } from './approval-delivery.js';
import { readAsked } from './approval-files.js';
import type { LiveRuns } from './live-runs.js';
import { resolveRef } from './refs.js';
import type { RunStore } from './run-store.js';

/** `approval.get` gives the input whole up to this much JSON; past it, the text cut here. */
const INPUT_SHOWN_MAX = 1024 * 1024;

/** Who answers: through what, who (a terminal, a process), and the run they answer from (their ORCR_RUN), if any. */
export interface Answerer {
  via: AnswerVia;
  who: string | null;
  caller: string | null;
}

export class Approvals {
  constructor(
    private readonly d: {
      home: Home;
      store: RunStore;
      decisions: Pick<ApprovalDecisions, 'decide'>;
      deadlines: Pick<ApprovalDeadlines, 'start' | 'stop'>;
      delivery: Pick<ApprovalDelivery, 'resend'>;
      live: Pick<LiveRuns, 'uuids'>;
    },
  ) {}

  /** Start-up: what is due decided, the next deadline armed, every decided answer not yet delivered sent again. */
  start(): void {
    this.d.deadlines.start();
    this.d.delivery.resend(this.d.live.uuids());
  }

  stop(): void {
    this.d.deadlines.stop();
  }

  /** Pending requests (every request with `all`), oldest first: the fleet's, or one run's. */
  list(p: { run?: string; all?: boolean }): PublicApproval[] {
    const { reader } = this.d.store;
    let recs: ApprovalRecord[];
    if (p.run !== undefined) {
      const uuid = resolveRef(this.d.store, p.run).uuid;
      recs = p.all ? reader.approvalsOf(uuid) : reader.pendingApprovalsOf(uuid);
    } else recs = p.all ? reader.recentApprovals(PAGE).reverse() : reader.pendingApprovals(PAGE);
    return recs.map((a) => this.view(a));
  }

  /** One request, and what its agent asked whole (cut past INPUT_SHOWN_MAX of JSON, and said so). */
  get(id: number): ApprovalGot {
    const a = this.d.store.reader.approval(id);
    if (!a) throw new RemoteError('not_found', `no request ${id}`);
    const { input } = readAsked(this.d.home, a.run, id);
    const text = JSON.stringify(input ?? null);
    if (Buffer.byteLength(text) <= INPUT_SHOWN_MAX) return { approval: this.view(a), input: input ?? null };
    return { approval: this.view(a), input: Buffer.from(text).subarray(0, INPUT_SHOWN_MAX).toString('utf8'), truncated: true };
  }

  /**
   * Answer each target: a request id (digits), or a run whose pending
   * requests all get the answer. One result per request answered or target
   * refused; when nothing was answered the first refusal is the error.
   */
  answer(targets: readonly string[], given: GivenAnswer, by: Answerer): ApprovalAnswered[] {
    const results = targets.flatMap((t) => this.answerTarget(t, given, by));
    if (results.every((r) => r.error)) {
      const first = results[0]!.error!;
      throw new RemoteError(first.code, results.map((r) => r.error!.message).join('; '));
    }
    return results;
  }

  private answerTarget(target: string, given: GivenAnswer, by: Answerer): ApprovalAnswered[] {
    const refused = (code: ErrorCode, message: string, a?: ApprovalRecord): ApprovalAnswered[] => [
      { target, id: a?.id ?? null, run: a?.run ?? null, state: a?.state ?? null, error: { code, message } },
    ];
    try {
      let recs: ApprovalRecord[];
      if (/^\d+$/.test(target)) {
        const a = this.d.store.reader.approval(Number(target));
        if (!a) return refused('not_found', `no request ${target}`);
        recs = [a];
      } else {
        const run = resolveRef(this.d.store, target);
        recs = this.d.store.reader.pendingApprovalsOf(run.uuid);
        if (recs.length === 0) return refused('conflict', `run ${run.name} has no request waiting`);
      }
      return recs.map((a) => this.answerOne(target, a, given, by));
    } catch (e) {
      if (e instanceof RemoteError) return refused(e.code, e.message);
      throw e;
    }
  }

  private answerOne(target: string, a: ApprovalRecord, given: GivenAnswer, by: Answerer): ApprovalAnswered {
    const fail = (code: ErrorCode, message: string): ApprovalAnswered => ({ target, id: a.id, run: a.run, state: a.state, error: { code, message } });
    // Read again: an answer decided since (another person's, the deadline's) is the one that counts.
    const now = this.d.store.reader.approval(a.id) ?? a;
    const already = answeredAlready(now);
    if (already) return { ...fail('conflict', already), state: now.state };
    const refusal = answerRefusal(by.caller, a.run, (uuid) => this.d.store.lookup(uuid)?.parent ?? null);
    if (refusal) return fail('refused', `${refusal} (request ${a.id} is run ${this.nameOf(a.run)}'s)`);
    const checked = checkAnswer(now, readAsked(this.d.home, a.run, a.id).questions ?? now.questions, given);
    if ('error' in checked) return fail('usage', checked.error);
    const decided = this.d.decisions.decide(now, checked, { kind: 'person', via: by.via, who: this.who(by) });
    return { target, id: a.id, run: a.run, state: decided.state };
  }

  /** Who answered, for the record: what the caller says of itself, and the run it answers from. */
  private who(by: Answerer): string | null {
    const from = by.caller === null ? null : `run ${this.nameOf(by.caller)} (${by.caller})`;
    return [by.who, from].filter((s): s is string => s !== null && s !== '').join(', ') || null;
  }

  private nameOf(uuid: string): string {
    return this.d.store.get(uuid)?.name ?? this.d.store.reader.nameOf(uuid) ?? uuid;
  }

  private view(a: ApprovalRecord): PublicApproval {
    return publicApproval(a, this.nameOf(a.run));
  }
}
