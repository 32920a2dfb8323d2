// Ending a run: its row becomes `ended` with its reason, in the caller's unit
// of work (a lease held in a cluster is said released with it, its pending
// requests withdrawn); once that
// commits, its slot or queue place goes back, its watch is let go, its waits
// settle and admission looks again — effects, for the interpreter.

import { transition } from '../core/run-state.js';
import type { ExitReason } from '../core/types.js';
import type { ApprovalBook } from './approval-book.js';
import { monoNow } from './clock.js';
import type { RunStore } from './run-store.js';

export class Ending {
  constructor(private readonly d: { store: RunStore; host: () => string | null; approvals: Pick<ApprovalBook, 'withdrawAll'> }) {}

  /** End a run (any status) and free what it held: its slot or queue place, its name, its watch, its waits. */
  end(uuid: string, reason: ExitReason, detail: string | null, code: number | null, note: string | null = null): void {
    const { store } = this.d;
    const run = store.get(uuid);
    if (!run) return;
    const from = run.status;
    const next = transition(run, 'ended', monoNow(), {
      exit_reason: reason,
      exit_detail: detail,
      exit_code: code,
      ...(note !== null ? { exit_note: note } : {}),
    });
    const host = this.d.host();
    store.transaction(() => {
      // Its agent is gone or going: nobody is left to answer.
      this.d.approvals.withdrawAll(uuid, 'ended');
      const lease = run.lease_id && host !== null ? [{ type: 'lease_released' as const, data: { lease: run.lease_id, host } }] : [];
      store.save(next, [{ type: 'ended', data: { from, reason, detail, exit_code: code, ...(note !== null ? { note } : {}) } }, ...lease]);
      store.emit({ kind: 'release', uuid }, { kind: 'admit' }, { kind: 'settle', uuid }, { kind: 'dependents', uuid });
    });
  }
}
