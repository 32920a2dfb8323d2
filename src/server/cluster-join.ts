// Joining a cluster (config `cluster`) before start: the link made and
// connected, then the cluster is where slots come from. A refusal (caps
// differ, a bad URL, credentials or privileges) is thrown; a database that is
// merely away leaves this machine failed closed until it is back.

import { admissionPolicy } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { Dependencies } from './dependencies.js';
import type { Fleet } from './fleet.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { Settings } from './settings.js';
import type { Slots } from './slots.js';

export class ClusterJoin {
  constructor(
    private readonly p: {
      home: Home;
      settings: Settings;
      store: RunStore;
      slots: Slots;
      lifecycle: Pick<Lifecycle, 'background'>;
      dependencies: Pick<Dependencies, 'holds'>;
      fleet: Pick<Fleet, 'keepsOut'>;
      log: (msg: string) => void;
    },
  ) {}

  async join(): Promise<void> {
    const { settings, slots, lifecycle } = this.p;
    const cfg = settings.config.cluster;
    if (!cfg) return;
    // Loaded only here: a machine on its own never loads the PostgreSQL driver.
    const { ClusterLink } = await import('./cluster-link.js');
    const link = new ClusterLink(
      {
        home: this.p.home,
        store: this.p.store,
        config: settings.get,
        log: this.p.log,
        background: (w) => lifecycle.background(w),
        held: (run) => this.p.dependencies.holds(run.uuid) || this.p.fleet.keepsOut(run),
      },
      cfg,
      admissionPolicy(settings.config),
    );
    await link.connect();
    slots.cluster = link;
    slots.limiter = link;
  }
}
