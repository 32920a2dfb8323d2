// The fleet's methods: caps and spend, holds, the queue, retention and worktrees.

import { RemoteError } from '../../protocol/errors.js';
import type { HandlerFamily } from './context.js';

type FleetMethod = 'stats' | 'spend' | 'provider.resume' | 'queue.pause' | 'gc' | 'worktree.finish' | 'worktree.prune';

export const fleetHandlers: HandlerFamily<FleetMethod> = {
  stats: (_, { queries }) => queries.stats(),
  spend: (_, { queries }) => queries.spend(),
  'provider.resume': (p, { fleet }) => ({ resumed: fleet.resume(p.provider) }),
  'queue.pause': ({ paused }, { queueing }) => queueing.pause(paused),
  gc: async (q, { retention, worktrees }) => {
    const keep = retention.keepMs();
    const olderThan = q.older_than_ms ?? keep;
    if (olderThan === null) throw new RemoteError('usage', 'retention.ended is "never": say how old with --older-than DUR');
    // Worktrees first: a run whose worktree stays keeps its row (the row says whose it is).
    const collected = await worktrees.collect({ force: q.force ?? false, branches: q.branches ?? false, dryRun: q.dry_run ?? false });
    return { ...(await retention.gc(olderThan, q.dry_run ?? false)), worktrees: collected };
  },
  'worktree.finish': async (q, { queries, worktrees }) => {
    const r = await worktrees.finish(queries.resolve(q.ref).uuid, q.mode);
    return { ...r, run: queries.view(r.run) };
  },
  'worktree.prune': async (q, { worktrees }) => ({ worktrees: await worktrees.prune({ force: q.force ?? false, dryRun: q.dry_run ?? false }) }),
};
