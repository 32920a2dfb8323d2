// Where slots come from: this process alone (a LocalLimiter, rebuilt from the
// journal after a degrade) or the cluster (config `cluster`, joined before
// start). Rooms read `limiter` at call time, so the one rebuilt is the one used.

import type { Config } from '../config/load.js';
import { admissionPolicy } from '../config/load.js';
import type { Limiter } from '../limiter/limiter.js';
import { LocalLimiter } from '../limiter/local.js';
import type { ClusterLink } from './cluster-link.js';

export class Slots {
  limiter: Limiter;
  /** Membership of a cluster, or null for a machine on its own. */
  cluster: ClusterLink | null = null;

  constructor(config: Config) {
    this.limiter = new LocalLimiter(admissionPolicy(config));
  }

  /** The cluster's name for this machine, for lease events; null alone. */
  get host(): string | null {
    return this.cluster?.host ?? null;
  }
}
