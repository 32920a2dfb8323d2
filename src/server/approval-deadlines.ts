// Pending requests decided by their deadline (their policy's on_timeout,
// `by: deadline`), across restarts: one timer, at the earliest deadline of
// the home's pending requests. When it fires, each request past its deadline
// is decided, and the timer is armed for the next. A new request with an
// earlier deadline moves it sooner; one decided or withdrawn meanwhile is
// simply not pending when the timer looks.

import { expired, type ApprovalRecord } from '../core/approvals.js';
import { setLongTimeout, type LongTimeout } from '../runtime/long-timer.js';
import type { ApprovalDecisions } from './approval-decisions.js';
import { monoNow } from './clock.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';

/** Pending requests looked at, at most, each time: more than a fleet has waiting at once. */
const MAX_PENDING = 100_000;

export class ApprovalDeadlines {
  private timer: LongTimeout | null = null;
  private at: number | null = null;
  private stopped = true;

  constructor(
    private readonly d: {
      store: Pick<RunStore, 'reader'>;
      decisions: Pick<ApprovalDecisions, 'decide'>;
      lifecycle: Pick<Lifecycle, 'fail'>;
    },
  ) {}

  /** Decide what is due now, and arm the timer for the next deadline (start-up; again after each decision by it). */
  start(): void {
    this.stopped = false;
    this.look();
  }

  /** The supervisor lets go (a degrade, a stop): no deadline fires into a journal that is closing. */
  stop(): void {
    this.stopped = true;
    this.timer?.clear();
    this.timer = null;
    this.at = null;
  }

  /** A request now pending with this deadline: the timer fires by then. */
  consider(at: number): void {
    if (this.stopped || (this.at !== null && this.at <= at)) return;
    this.arm(at);
  }

  private arm(at: number): void {
    this.timer?.clear();
    this.at = at;
    this.timer = setLongTimeout(() => this.fire(), Math.max(0, at - monoNow()), { unref: true });
  }

  private fire(): void {
    this.timer = null;
    this.at = null;
    try {
      this.look();
    } catch (e) {
      // A journal that cannot be written: the supervisor degrades, and looks again when it starts again.
      this.d.lifecycle.fail(e);
    }
  }

  /** Every pending request past its deadline decided by it; the timer at the next one. */
  private look(): void {
    if (this.stopped) return;
    const now = monoNow();
    let next: number | null = null;
    for (const a of this.d.store.reader.pendingApprovals(MAX_PENDING)) {
      if (a.deadline_at === null) continue;
      if (!this.due(a, now) && (next === null || a.deadline_at < next)) next = a.deadline_at;
    }
    if (next !== null) this.arm(next);
  }

  /** Decided by its deadline if it has come: true when it was. */
  private due(a: ApprovalRecord, now: number): boolean {
    const verdict = expired(a, now);
    if (verdict === null) return false;
    this.d.decisions.decide(
      a,
      { verdict, message: verdict === 'deny' ? 'nobody answered in time: denied by its deadline' : null, answers: null, always: false },
      { kind: 'deadline' },
    );
    return true;
  }
}
