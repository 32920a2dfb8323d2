// Joining a cluster (config `cluster`) before start: the link made and
// connected, then the cluster is where slots come from. A refusal (caps
// differ, a bad URL, credentials or privileges) is thrown; a database that is
// merely away leaves this machine failed closed until it is back.

import { admissionPolicy } from '../config/load.js';
import type { Home } from '../config/home.js';
import type { Dependencies } from './dependencies.js';
import type { Faces } from './fleet-faces.js';
import type { FleetPublisher } from './fleet-publish.js';
import type { FleetView } from './fleet-view.js';
import type { Fleet } from './fleet.js';
import type { Lifecycle } from './lifecycle.js';
import type { RunStore } from './run-store.js';
import type { Settings } from './settings.js';

type ClusterConfig = NonNullable<Settings['config']['cluster']>;
import type { Slots } from './slots.js';

export class ClusterJoin {
  /** The fleet's runs as the cluster's database tells (a member's or a viewer's), null on its own. */
  view: FleetView | null = null;
  /** A member's publisher of its own runs into the fleet view. */
  publisher: FleetPublisher | null = null;
  private closeDb: (() => Promise<void>) | null = null;

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
        // Joined, or back after an outage: the fleet view agrees with the journal again.
        started: () => {
          const publisher = this.publisher;
          if (publisher) lifecycle.background(publisher.resync());
        },
      },
      cfg,
      admissionPolicy(settings.config),
    );
    await link.connect();
    slots.cluster = link;
    slots.limiter = link;
  }

  /** The fleet view's reader (and, for a member, its publisher): a pool of its own, two connections. */
  private async openView(cfg: ClusterConfig, url: string | null): Promise<void> {
    if (!url) return;
    const [{ ClusterDb }, { FleetView }, { FleetPublisher }, { monoNow }] = await Promise.all([
      import('../limiter/pg-db.js'),
      import('./fleet-view.js'),
      import('./fleet-publish.js'),
      import('./clock.js'),
    ]);
    const host = cfg.host ?? (await import('node:os')).hostname();
    const db = new ClusterDb(url, monoNow, 2);
    this.closeDb = () => db.end();
    // Settings as config.json says now (a reload changes the view's times), the joined cluster's otherwise.
    const now = (): ClusterConfig => this.p.settings.config.cluster ?? cfg;
    const { faces, store } = this.p;
    this.view = new FleetView({
      db,
      cluster: cfg.name,
      host,
      local: cfg.viewer ? null : faces,
      staleAfterMs: () => now().stale_after ?? now().lease_ttl,
      goneAfterMs: () => now().gone_after,
      publishing: () => (this.publisher ? { flushes: this.publisher.flushes, pending: this.publisher.pending } : null),
    });
    if (cfg.viewer) return;
    const publisher = new FleetPublisher({
      db,
      cluster: cfg.name,
      host,
      face: (uuid) => faces.of(uuid),
      current: (retentionMs) => currentRuns(store, retentionMs),
      settings: () => ({ intervalMs: now().publish_interval, batch: now().publish_batch, retentionMs: now().view_retention, goneAfterMs: now().gone_after }),
      log: this.p.log,
    });
    // Every committed change of a run: an event with its row, or a quiet save (meters, text).
    store.reader.onEvent((event, run) => {
      const uuid = run?.uuid ?? event.run;
      if (uuid) publisher.mark(uuid);
      // A run that joins or leaves the queue, or frees a slot, moves the queued ones (their place, what holds them).
      if (event.type === 'queued' || event.type === 'starting' || event.type === 'ended')
        for (const r of store.active()) if (r.status === 'queued') publisher.mark(r.uuid);
    });
    store.onQuietSave((uuid) => publisher.mark(uuid));
    this.publisher = publisher;
  }

  /** The supervisor stops: nothing more is published (the rows stay, as the agents do). */
  async close(): Promise<void> {
    this.publisher?.close();
    await this.closeDb?.();
  }
}

/** The runs a resync publishes: the active ones and those ended within the retention. */
function currentRuns(store: RunStore, retentionMs: number): string[] {
  const since = Date.now() - retentionMs;
  const ended = store.reader.listRuns({ status: 'ended', limit: 5000 }).filter((r) => (r.ended_at ?? 0) >= since);
  return [...store.activeUuids(), ...ended.map((r) => r.uuid)];
}
