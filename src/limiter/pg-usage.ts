// The fleet's usage, written to the cluster's database in batches: each usage
// report of a run (several a second per working agent) was a transaction of
// its own, 200 a second for a machine of 200 working runs (bench item V). The
// reports are summed per minute here and written at most once per interval,
// every minute of the batch in one statement; a batch the database refused is
// kept for the next, so an outage loses nothing this process holds. A read of
// the fleet's usage (loadUsage) writes what waits first: this machine's own
// reports are in what it reads.

import type { ClusterDb } from './pg-db.js';

/** At most one write of the fleet's usage this often. */
const USAGE_INTERVAL_MS = 250;

interface Sum {
  tokens: number;
  cost: number;
}

export class UsageBatch {
  private pending = new Map<number, Sum>();
  private timer: NodeJS.Timeout | null = null;
  /** What the callers since the last write wait for: the next write's outcome. */
  private waiters: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  private next: Promise<void> | null = null;
  /** The write under way: the next one starts after it. */
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: ClusterDb,
    private readonly cluster: string,
    private readonly intervalMs = USAGE_INTERVAL_MS,
  ) {}

  /** Count usage in the database's minute `minute`; settles when it is written (or its write failed: it waits for the next). */
  add(minute: number, tokens: number, cost: number): Promise<void> {
    const s = this.pending.get(minute) ?? { tokens: 0, cost: 0 };
    s.tokens += tokens;
    s.cost += cost;
    this.pending.set(minute, s);
    if (this.next) return this.next;
    this.next = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    this.timer = setTimeout(() => void this.flush(), this.intervalMs);
    this.timer.unref();
    return this.next;
  }

  /** Write what waits now (before a read of the fleet's usage, and at close); its callers hear how it went. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.next = null;
    const waiters = this.waiters;
    this.waiters = [];
    const run = this.writing.catch(() => undefined).then(() => this.writeNow());
    this.writing = run;
    run.then(
      () => waiters.forEach((w) => w.resolve()),
      (e: unknown) => waiters.forEach((w) => w.reject(e)),
    );
    return run;
  }

  private async writeNow(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const minutes = [...batch.keys()];
    try {
      await this.db.q(
        `INSERT INTO orcr_usage (cluster, minute, tokens, cost)
         SELECT $1, m, t, c FROM unnest($2::bigint[], $3::bigint[], $4::float8[]) AS u(m, t, c)
         ON CONFLICT (cluster, minute) DO UPDATE SET tokens = orcr_usage.tokens + excluded.tokens, cost = orcr_usage.cost + excluded.cost`,
        [this.cluster, minutes, minutes.map((m) => Math.round(batch.get(m)!.tokens)), minutes.map((m) => batch.get(m)!.cost)],
      );
    } catch (e) {
      // Kept for the next write: merged with what came meanwhile.
      for (const [m, s] of batch) {
        const now = this.pending.get(m) ?? { tokens: 0, cost: 0 };
        this.pending.set(m, { tokens: now.tokens + s.tokens, cost: now.cost + s.cost });
      }
      throw e;
    }
  }
}
