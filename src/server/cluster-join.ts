// Joining a cluster (config `cluster`) before start: the link made and
// connected, then the cluster is where slots come from. A refusal (caps
// differ, a bad URL, credentials or privileges) is thrown; a database that is
// merely away leaves this machine failed closed until it is back.

import { admissionPolicy } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { Dependencies } from './dependencies.js';
import type { Faces } from './fleet-faces.js';
import type { FleetView } from './fleet-view.js';
import type { Fleet } from './fleet.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { Settings } from './settings.js';
import type { Slots } from './slots.js';

export class ClusterJoin {
  /** The fleet's runs as the cluster's database tells (a member's or a viewer's), null on its own. */
  view: FleetView | null = null;

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
      faces: Faces;
    },
  ) {}

  async join(): Promise<void> {
    const { settings, slots, lifecycle } = this.p;
    const cfg = settings.config.cluster;
    if (!cfg) return;
    // Loaded only here: a machine on its own never loads the PostgreSQL driver.
    const { ClusterLink, clusterUrl } = await import('./cluster-link.js');
    await this.openView(cfg, clusterUrl(cfg));
    // A viewer reads the fleet and joins nothing.
    if (cfg.viewer) return;
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

  /** The fleet view's reader (and, for a member, its publisher's connection): a pool of its own, two connections. */
  private async openView(cfg: NonNullable<Settings['config']['cluster']>, url: string | null): Promise<void> {
    if (!url) return;
    const [{ ClusterDb }, { FleetView }, { monoNow }] = await Promise.all([import('../limiter/pg-db.js'), import('./fleet-view.js'), import('./clock.js')]);
    const host = cfg.host ?? (await import('node:os')).hostname();
    const db = new ClusterDb(url, monoNow, 2);
    const { settings } = this.p;
    const now = (): NonNullable<Settings['config']['cluster']> => settings.config.cluster ?? cfg;
    this.view = new FleetView({
      db,
      cluster: cfg.name,
      host,
      local: cfg.viewer ? null : this.p.faces,
      staleAfterMs: () => now().stale_after ?? now().lease_ttl,
      goneAfterMs: () => now().gone_after,
    });
  }
}
