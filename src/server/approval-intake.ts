// An agent's requests as its output brings them, in the unit of work where
// its lines are applied (progress.ts): each one journaled once (a restart
// that reads the output again finds it there), decided by the rules of the
// run's policy or left pending for a person until its deadline, the run
// blocked on it (kind `approval`, its slot kept); a withdrawn one let go;
// the agent CLI's own refusals counted. The input asked about is kept whole
// in the run's folder (approval-files.ts).

import os from 'node:os';
import type { Home } from '../config/home.js';
import type { Config } from '../config/load.js';
import { blockOnRequest, newApproval, unblockIfAnswered } from '../core/approval-intake.js';
import { bounded } from '../core/approval-summary.js';
import { DEFAULT_APPROVAL_TIMEOUT_MS, mergePolicies, type ApprovalPolicy, type PolicySource } from '../core/approvals.js';
import type { EventInput } from '../core/events.js';
import type { Signal } from '../core/signals.js';
import type { Run } from '../core/types.js';
import type { ApprovalBook } from './approval-book.js';
import type { ApprovalDeadlines } from './approval-deadlines.js';
import type { ApprovalDecisions } from './approval-decisions.js';
import { writeAsked } from './approval-files.js';
import type { RunStore } from './run-store.js';

/** The signals this room takes from a run's output; the reducer takes the others. */
export type RequestSignal = Extract<Signal, { kind: 'approval' | 'approval_withdrawn' | 'denied' }>;

export function isRequestSignal(s: { kind: string }): s is RequestSignal {
  return s.kind === 'approval' || s.kind === 'approval_withdrawn' || s.kind === 'denied';
}

/** A scope's `approvals` as config.json holds it (its timeout parsed: null for never). */
type ApprovalsConfig = { allow?: string[]; deny?: string[]; ask?: string[]; timeout?: number | null; on_timeout?: 'allow' | 'deny' } | undefined;

/** What config.json says, scope by scope, as core merges it. */
function source(c: ApprovalsConfig): PolicySource | null {
  if (!c) return null;
  return { allow: c.allow, deny: c.deny, ask: c.ask, ...(c.timeout !== undefined ? { timeout_ms: c.timeout } : {}), on_timeout: c.on_timeout };
}

/** A policy with no rules: asked of a person, with the default deadline (a rule that no longer reads is not a reason to let anything through). */
const ASK_ALL: ApprovalPolicy = { allow: [], deny: [], ask: [], timeout_ms: DEFAULT_APPROVAL_TIMEOUT_MS, on_timeout: 'deny' };

export class ApprovalIntake {
  constructor(
    private readonly d: {
      home: Home;
      store: RunStore;
      config: () => Config;
      book: Pick<ApprovalBook, 'withdraw' | 'pending'>;
      decisions: Pick<ApprovalDecisions, 'record'>;
      deadlines: Pick<ApprovalDeadlines, 'consider'>;
      log: (msg: string) => void;
    },
  ) {}

  /** The run's policy: config's, its provider's, its workload's and its own rules, merged. */
  policy(run: Run): ApprovalPolicy {
    const c = this.d.config();
    const provider = Object.hasOwn(c.providers, run.provider) ? c.providers[run.provider]?.approvals : undefined;
    const workload = Object.hasOwn(c.concurrency.workloads, run.workload) ? c.concurrency.workloads[run.workload]?.approvals : undefined;
    const merged = mergePolicies([source(c.approvals), source(provider), source(workload), run.approvals]);
    if (!('error' in merged)) return merged;
    this.d.log(`run ${run.uuid}: its approval rules do not read (${merged.error}); its requests are asked of a person`);
    return ASK_ALL;
  }

  /**
   * One request signal applied to the run, in the caller's unit of work:
   * the run as it leaves it and the events to append with it (in order,
   * after the events of the lines before it).
   */
  take(run: Run, sig: RequestSignal, now: number): { run: Run; events: EventInput[] } {
    switch (sig.kind) {
      case 'approval':
        return this.asked(run, sig, now);
      case 'approval_withdrawn': {
        const a = this.d.store.reader.approvalByRef(run.uuid, sig.ref);
        if (!a || a.state !== 'pending') return { run, events: [] };
        const events: EventInput[] = [this.d.book.withdraw(a, 'agent')];
        const back = unblockIfAnswered(run, this.d.book.pending(run.uuid).length, now);
        if (back.event) events.push(back.event);
        return { run: back.run, events };
      }
      case 'denied': {
        const count = run.denials + 1;
        return {
          run: { ...run, denials: count },
          events: [{ type: 'denied', data: { tool: bounded(sig.tool, 200), message: bounded(sig.message, 500), count } }],
        };
      }
    }
  }

  private asked(run: Run, sig: Extract<RequestSignal, { kind: 'approval' }>, now: number): { run: Run; events: EventInput[] } {
    const { store } = this.d;
    // Read again after a restart (its offset was not journaled yet): it is the request already journaled.
    if (store.reader.approvalByRef(run.uuid, sig.ask.ref)) return { run, events: [] };
    const rec = newApproval(sig.ask, { run: run.uuid, cwd: run.cwd, home: os.homedir(), policy: this.policy(run), now });
    const id = store.insertApproval(rec);
    try {
      writeAsked(this.d.home, run.uuid, id, { input: sig.input, offers: sig.offers, questions: sig.ask.questions });
    } catch (e) {
      this.d.log(`run ${run.uuid}: request ${id}: its input could not be kept in the run's folder (${(e as Error).message}); it is answered without it`);
    }
    if (rec.state !== 'pending') {
      // Decided by a rule: the agent is answered once this commits; nobody is asked.
      store.emit({ kind: 'answer', id });
      store.afterCommit(() => this.d.decisions.record({ ...rec, id }));
      return {
        run,
        events: [{ type: 'approval_decided', data: { id, verdict: rec.state === 'allowed' ? 'allow' : 'deny', by: rec.by!, summary: rec.summary } }],
      };
    }
    const events: EventInput[] = [
      { type: 'approval_asked', data: { id, tool: rec.tool, summary: rec.summary, question: rec.question, deadline_at: rec.deadline_at } },
    ];
    const blocked = blockOnRequest(run, now);
    if (blocked.event) events.push(blocked.event);
    const at = rec.deadline_at;
    if (at !== null) store.afterCommit(() => this.d.deadlines.consider(at));
    return { run: blocked.run, events };
  }
}
