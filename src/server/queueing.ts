// Queueing runs: a user's specs (all of them or none) and `orcr rerun`. Each
// run is made by planRun, inserted with its `queued` event, and — once that
// commits — put in the limiter's queue; admission looks again (an effect).
// And the queue's pause (`orcr queue pause|resume`), journaled.

import { remoteInput } from '../core/cluster-commands.js';
import crypto from 'node:crypto';
import { admissionPolicy, type Config } from '../config/load.js';
import type { RunSpec } from '../config/run-spec.js';
import { canEnqueue } from '../core/admission.js';
import { toWaiter } from '../core/run-record.js';
import type { Run } from '../core/types.js';
import { withPaused } from '../core/mode.js';
import { monoNow } from './clock.js';
import type { Fleet } from './fleet.js';
import type { Lifecycle } from './lifecycle.js';
import { RemoteError } from '../protocol/errors.js';
import type { RunStore } from './run-store.js';
import type { RunTree } from './run-tree.js';
import type { Slots } from './slots.js';
import { planRun, planRuns, type RunPlan } from './spec-resolution.js';
import { GraphError, planGraph, type GraphRef } from '../core/dependencies.js';
import type { Dependencies } from './dependencies.js';
import { resolveRef } from './refs.js';

export class Queueing {
  constructor(
    private readonly d: {
      store: RunStore;
      slots: Slots;
      config: () => Config;
      lifecycle: Pick<Lifecycle, 'background' | 'mode' | 'paused'>;
      fleet: Pick<Fleet, 'exceeded' | 'keepsOut'>;
      tree: Pick<RunTree, 'parentFor'>;
      dependencies: Pick<Dependencies, 'admit'>;
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
    const { reader } = store;
    const digests = uuids === undefined ? null : specs.map(specDigest);
    if (uuids !== undefined) {
      const made = uuids.map((u) => store.lookup(u));
      if (made.some((r) => r !== null) && !made.every((r) => r !== null))
        throw new RemoteError('usage', 'some of these uuids name runs already and some do not; nothing was queued');
      if (made.every((r) => r !== null)) {
        // A repeat of the request (sent again after a dropped connection) is answered with its runs; the same uuid with another spec is not a repeat.
        const other = made.findIndex((r, i) => r.spec_digest !== undefined && r.spec_digest !== digests![i]);
        if (other >= 0)
          throw new RemoteError(
            'conflict',
            `the uuid ${uuids[other]!} names the run ${JSON.stringify(made[other]!.name)}, made from another spec; nothing was queued`,
          );
        return made;
      }
    }
    const now = monoNow();
    this.refuseOverBudget();
    const config = this.d.config();
    const policy = admissionPolicy(config);
    if (!canEnqueue(policy, slots.limiter.queued + specs.length - 1)) {
      throw new RemoteError('queue_full', `the queue is full (concurrency.max_queued = ${policy.max_queued}); nothing was queued`);
    }
    const graph = this.graph(specs);
    const plans = planRuns(
      config,
      specs,
      { holderOfName: (n) => store.holderOfName(n), isUuidPrefix: (t) => reader.runsByPrefix(t).length > 0, runWorktree: (ref) => this.runWorktree(ref) },
      now,
      this.d.worktreeDir(),
    );
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
    const runs = store.transaction(() => {
      // Queue places in order (the journal's next place moves on only as each is inserted).
      const first = reader.nextQueueSeq();
      const made = plans.map((plan, i) => ({
        ...plan.make(first + i),
        ...lineage[i]!,
        ...(uuids !== undefined ? { uuid: uuids[i]!, spec_digest: digests![i]! } : {}),
      }));
      // `after` names runs of this call by their line: their uuids are known once all are made.
      const linked = made.map((made1, i): Run => {
        let run = made1;
        const refs = graph[i]!;
        // `--base NAME` of a line of this call: that line's run, now made.
        const baseLine = run.worktree?.base_run?.startsWith('line:') ? made.find((m) => m.name === run.worktree!.base_run!.slice(5)) : undefined;
        if (baseLine) run = { ...run, worktree: { ...run.worktree!, base_run: baseLine.uuid } };
        if (refs.length === 0) return run;
        const after = [...new Set(refs.map((r) => ('line' in r ? made[r.line]!.uuid : r.run)))];
        return { ...run, after, ...(specs[i]!.after_any ? { after_any: true } : {}) };
      });
      linked.forEach((run, i) => {
        const treeData = run.parent === null ? {} : { parent: run.parent, depth: run.depth };
        const deps = run.after ? { after: run.after, ...(run.after_any ? { after_any: true } : {}) } : {};
        this.insert(run, plans[i]!, { ...treeData, ...deps }, now, plans[i]!.launchEnv, false);
      });
      // Once every run of the call is in: an input later in the file than its dependent is known by then.
      linked.forEach((run, i) => this.queuePlace(run, plans[i]!));
      // As they stand now: one whose input had failed already is canceled.
      return linked.map((run) => store.lookup(run.uuid) ?? run);
    });
    store.emit({ kind: 'admit' });
    return runs;
  }

  /** `orcr rerun`: a new queued run with an ended run's spec, named `<name>-2`, `-3`, … (its maker's environment too). */
  rerun(uuid: string): Run {
    const { store } = this.d;
    const { reader } = store;
    const old = store.lookup(uuid);
    if (!old) throw new RemoteError('not_found', `no run ${uuid}`);
    if (old.status !== 'ended') throw new RemoteError('usage', `${old.name} is ${old.status}: rerun takes an ended run (kill it first)`);
    this.refuseOverBudget();
    const base = old.name.replace(/-\d+$/, '');
    let n = 2;
    while (store.holderOfName(`${base}-${n}`) !== undefined || reader.runsByName(`${base}-${n}`).length > 0) n++;
    const now = monoNow();
    const env = reader.launchEnv(old.uuid);
    const plan = planRun({ kind: 'rerun', of: old, name: `${base}-${n}`, now });
    return store.transaction(() => {
      const run = plan.make(reader.nextQueueSeq());
      this.insert(run, plan, {}, now, env ? { ...env.env } : null);
      store.emit({ kind: 'admit' });
      return run;
    });
  }

  /** `orcr queue pause|resume`: journaled, so it outlives a restart; nothing is admitted while paused. */
  pause(paused: boolean): { paused: boolean; queued: number } {
    const { store, lifecycle } = this.d;
    if (lifecycle.paused !== paused) {
      store.transaction(() => {
        store.setMeta('queue_paused', paused ? { at: monoNow() } : null);
        store.event(null, { type: paused ? 'queue_paused' : 'queue_resumed', data: {} });
        store.afterCommit(() => {
          lifecycle.mode = withPaused(lifecycle.mode, paused);
        });
      });
      store.emit({ kind: 'admit' });
    }
    return { paused: lifecycle.paused, queued: [...store.active()].filter((r) => r.status === 'queued').length };
  }

  /** The pause as the journal keeps it (at start: it outlives a restart). */
  pausedInJournal(): boolean {
    return this.d.store.reader.getMeta('queue_paused') !== null;
  }

  /**
   * Every spec's `after`, resolved before anything is queued: names of specs
   * of this call, else runs orcr knows; unknown names, self-references and
   * cycles refuse the whole call, naming the spec.
   */
  private graph(specs: readonly RunSpec[]): GraphRef[][] {
    if (!specs.some((s) => s.after?.length)) return specs.map(() => []);
    const label = (s: RunSpec, i: number): string =>
      specs.length > 1 ? `spec ${i + 1}${s.name !== undefined ? ` (${JSON.stringify(s.name)})` : ''}` : 'the run';
    const existing = (ref: string): string | null => {
      // Another machine's run, looked up there already (cluster-calls.ts): its machine settles it.
      if (remoteInput(ref) !== null) return ref;
      try {
        return resolveRef(this.d.store, ref).uuid;
      } catch (e) {
        if (e instanceof RemoteError && e.code === 'ambiguous') throw new RemoteError('usage', `"after" ${e.message}`);
        return null;
      }
    };
    try {
      return planGraph(
        specs.map((s, i) => ({ label: label(s, i), name: s.name, after: s.after ?? [] })),
        existing,
      );
    } catch (e) {
      if (e instanceof GraphError) throw new RemoteError('usage', `${e.message}; nothing was queued`);
      throw e;
    }
  }

  /** `--base RUN`: that run, when it exists and has a worktree. */
  private runWorktree(ref: string): { uuid: string; name: string; worktree: NonNullable<Run['worktree']> } | null {
    try {
      const r = resolveRef(this.d.store, ref);
      return r.worktree ? { uuid: r.uuid, name: r.name, worktree: r.worktree } : null;
    } catch {
      return null;
    }
  }

  private refuseOverBudget(): void {
    if (this.d.fleet.exceeded) throw new RemoteError('refused', 'the fleet budget is exceeded (budgets.fleet); nothing was queued');
  }

  /** The run and its `queued` event; once committed, its place in the limiter's queue (unless `place` is false: the caller gives it). */
  private insert(run: Run, plan: RunPlan, extra: Record<string, unknown>, now: number, launchEnv: Record<string, string> | null, place = true): void {
    this.d.store.insert(
      run,
      { type: 'queued', data: { name: run.name, provider: run.provider, workload: run.workload, queue_seq: run.queue_seq, ...plan.queued, ...extra } },
      now,
      launchEnv,
    );
    if (place) this.queuePlace(run, plan);
  }

  /** Its place in the limiter's queue, once committed — a dependent waiting for its inputs only once they are done (server/dependencies.ts). */
  private queuePlace(run: Run, plan: RunPlan): void {
    const { store, slots, lifecycle } = this.d;
    if (plan.admission !== 'limiter' || this.d.dependencies.admit(run) || this.d.fleet.keepsOut(run)) return;
    // Read at commit: a limiter rebuilt meanwhile (degrade) is the one to tell.
    store.afterCommit(() => lifecycle.background(slots.limiter.enqueue({ ...toWaiter(run), name: run.name })));
  }
}

/** What a spec asks for, as a short hash: the same request sent again has the same one. */
function specDigest(spec: RunSpec): string {
  return crypto.createHash('sha256').update(JSON.stringify(spec)).digest('base64url').slice(0, 22);
}
