// Which edits of config.json's `cluster` a running supervisor can take:
// none. Pure, so the reload refuses them without loading the cluster's code.

import type { Config } from './load.js';

type ClusterConfig = NonNullable<Config['cluster']>;

/**
 * Why an edit of config.json cannot be applied by a running supervisor, or
 * null: joining, leaving or moving within a cluster (`cluster` added or
 * removed, its url, name, host, listen_url changed, …) means another limiter
 * under running agents, so it waits for a restart; saying the edit is in
 * force when the old membership still is would be a lie.
 */
export function clusterEditProblem(before: ClusterConfig | undefined, after: ClusterConfig | undefined): string | null {
  const restart = 'cluster settings take effect when the supervisor restarts (orcr server stop, then any verb starts it with the new config)';
  if (!before && !after) return null;
  if (!before) return `"cluster" was added: ${restart}`;
  if (!after) return `"cluster" was removed: ${restart}`;
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]) as Set<keyof ClusterConfig>;
  const changed = [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
  return changed.length === 0 ? null : `${changed.map((k) => `cluster.${k}`).join(', ')} changed: ${restart}`;
}
