// A decided request's answer written to its agent (the `answer` effect): the
// line its protocol's record builds (agents/protocol.ts' approvals channel)
// from the decision and what the request carried (its input and offers, from
// the run's folder), written to the agent's input FIFO in order with its
// other input; once the pipe has it, the request is marked delivered (a
// quiet save). A start-up sends every decided answer not marked delivered
// again: an agent that had it already ignores a second copy (its request is
// no longer waiting), one that had not gets it now.

import { agentProtocol } from '../agents/registry.js';
import type { Home } from '../config/home.js';
import type { ApprovalRecord } from '../core/approvals.js';
import { readAsked } from './approval-files.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunInput } from './run-input.js';
import type { RunStore } from './run-store.js';

/** One JSON object and its newline, nothing else: a line an agent CLI cannot read ends it (Claude Code exits 1). */
export function isOneJsonLine(line: string): boolean {
  if (!line.endsWith('\n') || line.indexOf('\n') !== line.length - 1) return false;
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

export class ApprovalDelivery {
  constructor(
    private readonly d: {
      home: Home;
      store: RunStore;
      input: Pick<RunInput, 'deliver'>;
      lifecycle: Pick<Lifecycle, 'fail'>;
      log: (msg: string) => void;
    },
  ) {}

  /** The `answer` effect: the request's answer to its agent, if it is decided, not delivered and its run is live here. */
  deliver(id: number): void {
    const { store } = this.d;
    const a = store.reader.approval(id);
    if (!a || a.delivered || (a.state !== 'allowed' && a.state !== 'denied')) return;
    const run = store.get(a.run);
    if (!run) return;
    const channel = agentProtocol(run.protocol)?.approvals;
    if (!channel) {
      this.d.log(`run ${run.uuid}: request ${id} decided, but its protocol (${run.protocol ?? 'none'}) takes no answer`);
      return;
    }
    const asked = readAsked(this.d.home, run.uuid, id);
    const line = channel.answer(a.ref, answerOf(a), { input: asked.input, offers: asked.offers });
    if (!isOneJsonLine(line)) {
      this.d.log(`run ${run.uuid}: request ${id}: the answer is not one JSON line; not written (the agent would exit on it)`);
      return;
    }
    const sent = this.d.input.deliver(run.uuid, line, (ok) => {
      if (ok) this.delivered(id);
    });
    if (!sent) this.d.log(`run ${run.uuid}: request ${id} decided, but its agent reads no input from orcr: the answer was not written`);
  }

  /** Every decided, undelivered answer of the runs watched here, sent (again): a start-up's. */
  resend(uuids: readonly string[]): void {
    const { store } = this.d;
    for (const uuid of uuids) {
      for (const a of store.reader.approvalsOf(uuid))
        if (!a.delivered && (a.state === 'allowed' || a.state === 'denied')) store.emit({ kind: 'answer', id: a.id });
    }
  }

  private delivered(id: number): void {
    try {
      const a = this.d.store.reader.approval(id);
      if (a && !a.delivered) this.d.store.saveApproval({ ...a, delivered: true });
    } catch (e) {
      // Not marked: a start-up sends it again, which the agent ignores.
      this.d.lifecycle.fail(e);
    }
  }
}

function answerOf(a: ApprovalRecord): { verdict: 'allow' | 'deny'; message: string | null; answers: string[] | null; always: boolean } {
  return { verdict: a.state === 'allowed' ? 'allow' : 'deny', message: a.message, answers: a.answers, always: a.always_added };
}
