// Commands between machines, wired for one supervisor in a cluster: the
// caller's side (cluster-calls.ts) handed to the socket's dispatch as its
// `forward`, the owner's side (cluster-inbox.ts) answering through the same
// dispatch a socket request takes. Loaded only in a cluster.

import type { Home } from '../config/home.js';
import type { ClusterConfig, ClusterLink } from './cluster-link.js';
import { ClusterCalls } from './cluster-calls.js';
import { ClusterInbox } from './cluster-inbox.js';
import type { Handlers, Rooms } from './handlers/index.js';
import { RemoteError } from '../protocol/errors.js';
import { answerCommand, type RequestDeps } from './requests.js';

export interface ClusterCommands {
  forward: NonNullable<RequestDeps['forward']>;
  close(): void;
}

export function clusterCommands(
  link: ClusterLink,
  cfg: ClusterConfig,
  d: { rooms: Rooms; feed: RequestDeps['feed']; handlers: Handlers; home: Home; log: (m: string) => void },
): ClusterCommands {
  const { rooms, home } = d;
  const calls = new ClusterCalls({
    link,
    localExists: (ref) => {
      try {
        rooms.queries.resolve(ref);
        return true;
      } catch (e) {
        // Several local runs answer to it: it is a local name all the same.
        return !(e instanceof RemoteError && e.code === 'not_found');
      }
    },
    staleAfterMs: cfg.lease_ttl,
    timeoutMs: cfg.command_timeout,
  });
  const refuse = (): never => {
    throw new RemoteError('usage', 'not for another machine');
  };
  const inbox = new ClusterInbox({
    link,
    accepts: () => cfg.accept_commands,
    freshMs: cfg.command_timeout,
    log: d.log,
    answer: (method, params, signal) =>
      answerCommand(d, method, params, { ...rooms, home, conn: { signal, subscribe: refuse }, server: { clients: () => 0, stop: refuse } }),
  });
  inbox.start();
  return { forward: (method, params, signal) => calls.forward(method, params, signal), close: () => inbox.close() };
}
