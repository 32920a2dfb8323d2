// Queueing runs: a user's specs (all of them or none) and `orcr rerun`. Each
// run is made by planRun, inserted with its `queued` event, and — once that
// commits — put in the limiter's queue; admission looks again (an effect).

import { admissionPolicy, type Config } from '../config/load.js';
import type { RunSpec } from '../config/run-spec.js';
import { canEnqueue } from '../core/admission.js';
import { toWaiter } from '../core/run-record.js';
import type { Run } from '../core/types.js';
import { monoNow } from './clock.js';
import type { Fleet } from './fleet.js';
import type { Lifecycle } from './lifecycle.js';
import { RemoteError } from '../protocol/errors.js';
import type { RunStore } from './run-store.js';
import type { RunTree } from './run-tree.js';
import type { Slots } from './slots.js';
import { planRun, planRuns, type RunPlan } from './spec-resolution.js';

export class Queueing {
  constructor(
    private readonly d: {
      store: RunStore;
      slots: Slots;
      config: () => Config;
      lifecycle: Pick<Lifecycle, 'background'>;
      fleet: Pick<Fleet, 'exceeded'>;
      tree: Pick<RunTree, 'parentFor'>;
      worktreeDir: () => string;
    },
  ) {}

  /**
   * Queue runs: all of them, or (one bad spec, a full queue, a spent fleet
   * budget, a parent ended or too deep) none. A spec whose maker ran inside a
   * run of this home (caller_env.ORCR_RUN) is that run's child unless it says
   * `detach`; what a client should be told is pushed onto `warnings`.
   * `uuids` (the client's, one per spec): runs already made under them are
   * the answer — the request is a repeat after a dropped connection, and
   * its first try was committed (all or none) — and nothing is queued.
   */
  enqueue(specs: RunSpec[], warnings: string[] = [], uuids?: readonly string[]): Run[] {
    const { store, slots, tree } = this.d;
    const journal = store.journal;
    if (uuids !== undefined) {
      const made = uuids.map((u) => store.lookup(u));
      if (made.every((r) => r !== null)) return made as Run[];
      if (made.some((r) => r !== null)) throw new RemoteError('usage', 'some of these uuids name runs already and some do not; nothing was queued');
    }
    const now = monoNow();
    this.refuseOverBudget();
    const config = this.d.config();
    const policy = admissionPolicy(config);
    if (!canEnqueue(policy, slots.limiter.queued + specs.length - 1)) {
      throw new RemoteError('queue_full', `the queue is full (concurrency.max_queued = ${policy.max_queued}); nothing was queued`);
    }
    const plans = planRuns(config, specs, { holderOfName: (n) => store.holderOfName(n), isUuidPrefix: (t) => journal.runsByPrefix(t).length > 0 }, now, this.d.worktreeDir());
    const told = new Set<string>();
    const lineage = specs.map((spec) => {
      const w: string[] = [];
      const l = tree.parentFor(spec.detach ? undefined : spec.caller_env?.ORCR_RUN, w);
      for (const m of w) {
        if (!told.has(m)) warnings.push(m);
        told.add(m);
      }
      return l;
    });
    const runs = store.transaction(() =>
      plans.map((plan, i) => {
        const run = { ...plan.make(journal.nextQueueSeq()), ...lineage[i]!, ...(uuids !== undefined ? { uuid: uuids[i]! } : {}) };
        const treeData = run.parent === null ? {} : { parent: run.parent, depth: run.depth };
        this.insert(run, plan, treeData, now, plan.launchEnv);
        return run;
      }),
    );
    store.emit({ kind: 'admit' });
    return runs;
  }

  /** `orcr rerun`: a new queued run with an ended run's spec, named `<name>-2`, `-3`, … (its maker's environment too). */
  rerun(uuid: string): Run {
    const { store } = this.d;
    const journal = store.journal;
    const old = store.lookup(uuid);
    if (!old) throw new RemoteError('not_found', `no run ${uuid}`);
    if (old.status !== 'ended') throw new RemoteError('usage', `${old.name} is ${old.status}: rerun takes an ended run (kill it first)`);
    this.refuseOverBudget();
    const base = old.name.replace(/-\d+$/, '');
    let n = 2;
    while (store.holderOfName(`${base}-${n}`) !== undefined || journal.runsByName(`${base}-${n}`).length > 0) n++;
    const now = monoNow();
    const env = journal.launchEnv(old.uuid);
    const plan = planRun({ kind: 'rerun', of: old, name: `${base}-${n}`, now });
    return store.transaction(() => {
      const run = plan.make(journal.nextQueueSeq());
      this.insert(run, plan, {}, now, env ? { ...env.env } : null);
      store.emit({ kind: 'admit' });
      return run;
    });
  }

  private refuseOverBudget(): void {
    if (this.d.fleet.exceeded) throw new RemoteError('refused', 'the fleet budget is exceeded (budgets.fleet); nothing was queued');
  }

  /** The run and its `queued` event; once committed, its place in the limiter's queue. */
  private insert(run: Run, plan: RunPlan, extra: Record<string, unknown>, now: number, launchEnv: Record<string, string> | null): void {
    const { store, slots, lifecycle } = this.d;
    store.insert(run, { type: 'queued', data: { name: run.name, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, ...plan.queued, ...extra } }, now, launchEnv);
    // Read at commit: a limiter rebuilt meanwhile (degrade) is the one to tell.
    if (plan.admission === 'limiter') store.afterCommit(() => lifecycle.background(slots.limiter.enqueue({ ...toWaiter(run), name: run.name })));
  }
}
