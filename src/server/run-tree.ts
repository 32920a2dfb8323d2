// Runs that make runs, on the supervisor's side: the parent a new run gets
// (from its maker's ORCR_RUN), a descendant's spend rolled up into every
// ancestor in the same unit of work, and a tree ended with its root (a kill,
// a spent budget: see stops.ts). The decisions are core/run-tree's; this
// reads and writes through the run store.

import { holdsSlot } from '../core/run-state.js';
import { addToTree, ancestors, decideParent, descendantsOf, selfAndAncestors, treeTrip, usageDelta } from '../core/run-tree.js';
import type { Meter } from '../core/budget.js';
import type { Run } from '../core/types.js';
import type { Config } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { LiveRuns } from './live-runs.js';
import type { RunStore } from './run-store.js';
import { RemoteError } from '../protocol/errors.js';

export class RunTree {
  constructor(private readonly p: { home: Home; store: RunStore; live: Pick<LiveRuns, 'stoppedFor'>; config: () => Config }) {}

  private readonly lookup = (uuid: string): Run | null => this.p.store.lookup(uuid);

  /** The active runs `wait --all` waits on for a client whose ORCR_RUN is `caller`: all but the caller and its ancestors. */
  waitAllTargets(caller: string | undefined): string[] {
    const { store } = this.p;
    const out = selfAndAncestors(caller ? (store.lookup(caller) ?? null) : null, this.lookup);
    return store.activeUuids().filter((u) => !out.has(u));
  }

  /**
   * The parent and depth of a run made by a client whose environment has
   * ORCR_RUN = ref (undefined: made from outside orcr, or --detach). Throws a
   * usage error for a parent that has ended (or is being stopped) and for a
   * run past budgets.max_depth; pushes a warning for an unknown parent.
   */
  parentFor(ref: string | undefined, warnings: string[]): { parent: string | null; depth: number } {
    const { store } = this.p;
    const found = ref === undefined || ref === '' ? null : store.lookup(ref);
    const ending = found !== null && (found.kill_requested_at !== null || this.p.live.stoppedFor(found.uuid) !== null);
    const d = decideParent(ref, found, this.p.config().budgets.max_depth, ending);
    switch (d.kind) {
      case 'root':
        return { parent: null, depth: 0 };
      case 'child':
        return { parent: d.parent, depth: d.depth };
      case 'unknown_parent':
        warnings.push(`ORCR_RUN=${d.ref} is no run of this home (${this.p.home.dir}): the new run has no parent`);
        return { parent: null, depth: 0 };
      case 'ended_parent':
        throw new RemoteError(
          'usage',
          `this was run from inside ${JSON.stringify(d.parent.name)} (${d.parent.uuid.slice(0, 8)}), which ${d.parent.status === 'ended' ? 'has ended' : 'is being stopped'}: a run made from there is refused; give --detach to run it on its own`,
        );
      case 'too_deep':
        throw new RemoteError(
          'usage',
          `too deep: a child of ${JSON.stringify(d.parent.name)} (${d.parent.uuid.slice(0, 8)}, depth ${d.depth - 1}) would be at depth ${d.depth}, and budgets.max_depth is ${d.maxDepth}; nothing was queued`,
        );
    }
  }

  /**
   * Inside the unit of work that saves `after`: its new spend added to every
   * ancestor's tree. Returns the live ancestors this pushed over a ceiling
   * (each to be stopped once the work commits).
   */
  rollUp(before: Run, after: Run): { run: Run; meter: Meter }[] {
    if (after.parent === null) return [];
    const d = usageDelta(before, after);
    if (d === null) return [];
    const tripped: { run: Run; meter: Meter }[] = [];
    for (const a of ancestors(after, this.lookup)) {
      const next = addToTree(a, d);
      this.p.store.save(next, null);
      const m = treeTrip(next);
      if (m && holdsSlot(next.status) && next.kill_requested_at === null && this.p.live.stoppedFor(next.uuid) === null) tripped.push({ run: next, meter: m });
    }
    return tripped;
  }

  /** The active runs below a run. */
  activeDescendants(uuid: string): Run[] {
    return descendantsOf(uuid, this.p.store.active());
  }
}
