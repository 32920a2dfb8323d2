// A run's requests as they end with it: every pending one withdrawn in the
// unit of work that ends the run (or puts it back in the queue), so no
// request outlives the agent that asked it. Below the rooms that end runs;
// deciding and answering are approval-decisions.ts' and approvals.ts'.

import type { ApprovalRecord } from '../core/approvals.js';
import type { EventData, EventOf } from '../core/events.js';
import type { RunStore } from './run-store.js';

export type WithdrawnWhy = EventData['approval_withdrawn']['why'];

export class ApprovalBook {
  constructor(private readonly d: { store: RunStore; now: () => number }) {}

  /** A run's pending requests, oldest first, as the open unit of work sees them. */
  pending(uuid: string): ApprovalRecord[] {
    return this.d.store.reader.pendingApprovalsOf(uuid);
  }

  /** Each pending request of the run withdrawn, an event each beside its row, in the caller's unit of work. */
  withdrawAll(uuid: string, why: WithdrawnWhy): void {
    const { store } = this.d;
    const pending = this.pending(uuid);
    if (pending.length === 0) return;
    store.transaction(() => {
      for (const a of pending) store.event(uuid, this.withdraw(a, why));
    });
  }

  /** One pending request withdrawn, in the caller's unit of work: the event that says so, for the caller to append with the run. */
  withdraw(a: ApprovalRecord, why: WithdrawnWhy): EventOf<'approval_withdrawn'> {
    this.d.store.saveApproval({ ...a, state: 'withdrawn', decided_at: this.d.now(), by: null });
    return { type: 'approval_withdrawn', data: { id: a.id, why } };
  }
}
