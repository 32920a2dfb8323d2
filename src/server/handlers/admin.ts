// The supervisor's own methods (hello, status, stop) and the cluster's.

import { RemoteError } from '../../protocol/errors.js';
import { PROTOCOL_VERSION } from '../../protocol/wire.js';
import { previewValue } from '../../text/json-text.js';
import type { HandlerFamily, Rooms } from './context.js';

/**
 * Why `cluster status` (or `forget`) has no cluster to answer for, as config.json stands: a "cluster"
 * added while the supervisor runs waits for its next start (joining live is not done), and says how.
 */
export function notInCluster(settings: Rooms['settings']): RemoteError {
  if (settings.clusterPending() !== null) {
    return new RemoteError(
      'usage',
      'this supervisor is not in a cluster yet: config.json\'s "cluster" was added after it started, and takes effect at its next start (orcr server stop, then any verb starts it again, in the cluster)',
    );
  }
  const viewing = settings.config.cluster;
  if (viewing?.viewer)
    return new RemoteError(
      'usage',
      `this home is a viewer of cluster ${viewing.name} (cluster.viewer): it reads the fleet (orcr ps --cluster, show HOST:RUN) and is no machine of it`,
    );
  const refused = settings.error;
  if (refused)
    return new RemoteError(
      'usage',
      `this supervisor is not in a cluster (it started without "cluster" in config.json; the last edit of config.json was refused: ${refused.message})`,
    );
  return new RemoteError('usage', 'this supervisor is not in a cluster (config.json has no "cluster")');
}

export const adminHandlers: HandlerFamily<'hello' | 'server.status' | 'server.stop' | 'cluster.status' | 'cluster.forget'> = {
  hello: ({ version }, { lifecycle, home }) => {
    if (version !== PROTOCOL_VERSION) {
      // Shown as sent: the string "1" is not the number 1.
      const shown = previewValue(version, 40);
      const hint = typeof version === 'string' && Number(version) === PROTOCOL_VERSION ? `; send it as a number: ${PROTOCOL_VERSION}` : '';
      throw new RemoteError('version', `protocol version ${shown} is not spoken here (server speaks ${PROTOCOL_VERSION}, a number)${hint}`);
    }
    return { version: PROTOCOL_VERSION, pid: process.pid, home: home.dir, started_at: lifecycle.startedAt };
  },
  'server.status': (_, { queries, reads, waits, lifecycle, settings, cluster, home, server }) => {
    // As stats counts: active runs hold a slot, queued ones wait for one.
    const { active, queued } = queries.counts();
    const stats = queries.stats();
    return {
      pid: process.pid,
      home: home.dir,
      started_at: lifecycle.startedAt,
      active: active - queued,
      queued,
      seq: reads.lastSeq(),
      degraded: lifecycle.degraded,
      clients: server.clients(),
      waits: waits.open,
      warnings: stats.warnings,
      config_error: settings.error,
      cluster: cluster()?.state() ?? null,
      paused: stats.paused,
      draining: stats.draining,
    };
  },
  'server.stop': ({ mode }, { queries, server }) => {
    // Queued runs stay in the journal whatever the mode: the next supervisor starts them (unless the queue is paused).
    const { queued, running } = queries.counts();
    const { paused } = queries.stats();
    if (mode === 'drain' || mode === 'kill_agents') {
      const waiting = running;
      server.stop(mode);
      return { stopping: true, waiting_for: waiting, queued, paused };
    }
    server.stop('leave');
    return { stopping: true, queued, paused };
  },
  'cluster.status': async (_, { cluster, settings }) => {
    const link = cluster();
    if (link === null) throw notInCluster(settings);
    const machines = await link.machines();
    return { ...link.state(), machines, pending: settings.clusterPending() };
  },
  'cluster.forget': async ({ host }, { cluster, settings }) => {
    const link = cluster();
    if (link === null) throw notInCluster(settings);
    const r = await link.forget(host);
    if (!r.forgotten) {
      throw new RemoteError(
        r.alive ? 'refused' : 'not_found',
        r.alive
          ? `${JSON.stringify(host)} is ${host === link.host ? 'this machine' : 'a live machine (its heartbeat is within lease_ttl)'}: only a machine that left can be forgotten`
          : `no machine ${JSON.stringify(host)} in cluster ${JSON.stringify(link.name)}`,
      );
    }
    return { host, ...r };
  },
};
