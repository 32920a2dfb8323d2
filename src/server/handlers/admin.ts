// The supervisor's own methods (hello, status, stop) and the cluster's.

import { RemoteError } from '../../protocol/errors.js';
import { PROTOCOL_VERSION } from '../../protocol/wire.js';
import { previewValue } from '../../text/json-text.js';
import type { Supervisor } from '../supervisor.js';
import type { HandlerFamily } from './context.js';

/**
 * Why `cluster status` (or `forget`) has no cluster to answer for, as config.json stands: a "cluster"
 * added while the supervisor runs waits for its next start (joining live is not done), and says how.
 */
function notInCluster(s: Supervisor): RemoteError {
  if (s.clusterPending() !== null) {
    return new RemoteError(
      'usage',
      'this supervisor is not in a cluster yet: config.json\'s "cluster" was added after it started, and takes effect at its next start (orcr server stop, then any verb starts it again, in the cluster)',
    );
  }
  const refused = s.configError;
  if (refused)
    return new RemoteError(
      'usage',
      `this supervisor is not in a cluster (it started without "cluster" in config.json; the last edit of config.json was refused: ${refused.message})`,
    );
  return new RemoteError('usage', 'this supervisor is not in a cluster (config.json has no "cluster")');
}

export const adminHandlers: HandlerFamily<'hello' | 'server.status' | 'server.stop' | 'cluster.status' | 'cluster.forget'> = {
  hello: ({ version }, { supervisor: s, home }) => {
    if (version !== PROTOCOL_VERSION) {
      // Shown as sent: the string "1" is not the number 1.
      const shown = previewValue(version, 40);
      const hint = typeof version === 'string' && Number(version) === PROTOCOL_VERSION ? `; send it as a number: ${PROTOCOL_VERSION}` : '';
      throw new RemoteError('version', `protocol version ${shown} is not spoken here (server speaks ${PROTOCOL_VERSION}, a number)${hint}`);
    }
    return { version: PROTOCOL_VERSION, pid: process.pid, home: home.dir, started_at: s.startedAt };
  },
  'server.status': (_, { supervisor: s, home, server }) => {
    // As stats counts: active runs hold a slot, queued ones wait for one.
    const live = s.activeUuids();
    const queued = live.filter((u) => s.getLive(u)?.status === 'queued').length;
    return {
      pid: process.pid,
      home: home.dir,
      started_at: s.startedAt,
      active: live.length - queued,
      queued,
      seq: s.reads.lastSeq(),
      degraded: s.degraded,
      clients: server.clients(),
      waits: s.openWaits(),
      warnings: s.stats().warnings,
      config_error: s.configError,
      cluster: s.cluster(),
      paused: s.stats().paused,
      draining: s.stats().draining,
    };
  },
  'server.stop': ({ mode }, { supervisor: s, server }) => {
    // Queued runs stay in the journal whatever the mode: the next supervisor starts them (unless the queue is paused).
    const queued = s.queuedCount();
    const { paused } = s.stats();
    if (mode === 'drain' || mode === 'kill_agents') {
      const waiting = s.runningCount();
      server.stop(mode);
      return { stopping: true, waiting_for: waiting, queued, paused };
    }
    server.stop('leave');
    return { stopping: true, queued, paused };
  },
  'cluster.status': async (_, { supervisor: s }) => {
    const machines = await s.clusterMachines();
    if (machines === null) throw notInCluster(s);
    return { ...s.cluster()!, machines, pending: s.clusterPending() };
  },
  'cluster.forget': async ({ host }, { supervisor: s }) => {
    const r = await s.forgetMachine(host);
    if (r === null) throw notInCluster(s);
    if (!r.forgotten) {
      throw new RemoteError(
        r.alive ? 'refused' : 'not_found',
        r.alive
          ? `${JSON.stringify(host)} is ${host === s.cluster()?.host ? 'this machine' : 'a live machine (its heartbeat is within lease_ttl)'}: only a machine that left can be forgotten`
          : `no machine ${JSON.stringify(host)} in cluster ${JSON.stringify(s.cluster()?.name)}`,
      );
    }
    return { host, ...r };
  },
};
