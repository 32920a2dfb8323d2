// Commands between machines, wired for one supervisor in a cluster: the
// caller's side (cluster-calls.ts) handed to the socket's dispatch as its
// `forward`, the owner's side (cluster-inbox.ts) answering through the same
// dispatch a socket request takes. Loaded only in a cluster. A home that
// reads the cluster without joining it refuses to act (notAMember).

import type { Home } from '../config/home.js';
import type { ClusterConfig, ClusterLink } from './cluster-link.js';
import { ClusterCalls } from './cluster-calls.js';
import { ClusterInbox } from './cluster-inbox.js';
import { ClusterInputs } from './cluster-inputs.js';
import type { Dependencies } from './dependencies.js';
import type { Handlers, Rooms } from './handlers/index.js';
import { splitRef } from '../core/cluster-ref.js';
import { RemoteError } from '../protocol/errors.js';
import { METHODS } from '../protocol/methods.js';
import { answerCommand, type RequestDeps } from './requests.js';

export interface ClusterCommands {
  forward: NonNullable<RequestDeps['forward']>;
  close(): void;
}

/**
 * A home in config.json's cluster that has not joined it (a viewer: it reads
 * the fleet with SELECT alone): a call on another machine's run is refused,
 * saying why, instead of looking for that run here.
 */
export function notAMember(cluster: string, localExists: (ref: string) => boolean): ClusterCommands {
  return {
    forward: (method, params) => {
      const spec = METHODS[method].remote;
      if (!spec) return undefined;
      const refs = spec.refs === undefined ? [] : [params[spec.refs]].flat().filter((r): r is string => typeof r === 'string');
      const named = (spec.host !== undefined && params[spec.host] !== undefined) || refs.some((r) => splitRef(r) !== null && !localExists(r));
      if (!named) return undefined;
      return Promise.reject(
        new RemoteError(
          'refused',
          `this home reads cluster ${JSON.stringify(cluster)} and is not one of its machines (cluster.viewer): it acts on no other machine's runs. ` +
            "Acting needs a member's home, whose role has SELECT, INSERT, UPDATE, DELETE on the orcr_* tables (orcr_command among them)",
        ),
      );
    },
    close: () => undefined,
  };
}

/** Whether a local run answers to the whole ref (several do: a local name all the same). */
export function localRun(rooms: Rooms): (ref: string) => boolean {
  return (ref) => {
    try {
      rooms.queries.resolve(ref);
      return true;
    } catch (e) {
      return !(e instanceof RemoteError && e.code === 'not_found');
    }
  };
}

export function clusterCommands(
  link: ClusterLink,
  cfg: ClusterConfig,
  d: {
    rooms: Rooms;
    feed: RequestDeps['feed'];
    handlers: Handlers;
    home: Home;
    log: (m: string) => void;
    /** Runs that wait for other machines' runs (run --after b:fix). */
    dependencies: Pick<Dependencies, 'readRemote' | 'remoteWaitedOn' | 'onEnded'>;
  },
): ClusterCommands {
  const { rooms, home } = d;
  const calls = new ClusterCalls({
    link,
    localExists: localRun(rooms),
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
  const inputs = new ClusterInputs({ calls, dependencies: d.dependencies, log: d.log });
  inputs.start();
  return {
    forward: (method, params, signal) => calls.forward(method, params, signal),
    close: () => {
      inbox.close();
      inputs.close();
    },
  };
}
