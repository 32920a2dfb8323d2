// The fleet's methods: caps and spend, holds, the queue, retention and worktrees.

import { RemoteError } from '../../protocol/errors.js';
import type { HandlerFamily } from './context.js';

type FleetMethod = 'stats' | 'spend' | 'provider.resume' | 'queue.pause' | 'gc' | 'worktree.finish' | 'worktree.prune';

export const fleetHandlers: HandlerFamily<FleetMethod> = {
  stats: (_, { supervisor: s }) => s.stats(),
  spend: (_, { supervisor: s }) => s.spend(),
  'provider.resume': (p, { supervisor: s }) => ({ resumed: s.resumeProvider(p.provider) }),
  'queue.pause': ({ paused }, { supervisor: s }) => s.setPaused(paused),
  gc: async (q, { supervisor: s }) => {
    const keep = s.retentionMs();
    const olderThan = q.older_than_ms ?? keep;
    if (olderThan === null) throw new RemoteError('usage', 'retention.ended is "never": say how old with --older-than DUR');
    // Worktrees first: a run whose worktree stays keeps its row (the row says whose it is).
    const worktrees = await s.gcWorktrees({ force: q.force ?? false, branches: q.branches ?? false, dryRun: q.dry_run ?? false });
    return { ...(await s.gc(olderThan, q.dry_run ?? false)), worktrees };
  },
  'worktree.finish': async (q, { supervisor: s }) => {
    const r = await s.finishWorktree(s.resolve(q.ref).uuid, q.mode);
    return { ...r, run: s.view(r.run) };
  },
  'worktree.prune': async (q, { supervisor: s }) => ({ worktrees: await s.pruneWorktrees({ force: q.force ?? false, dryRun: q.dry_run ?? false }) }),
};
