// config.json edited while the supervisor runs: read, then applied (the
// config in force replaced whole, the limiter's policy, the fleet's window,
// the notifications) or refused — a bad edit, or a cluster edit, which waits
// for a restart — the previous config staying in force, and the log and the
// journal saying why.

import { clusterEditProblem } from '../config/cluster-edit.js';
import { admissionPolicy, type Config } from '../config/load.js';
import type { Fleet } from './fleet.js';
import type { Notifier } from './notify.js';
import type { RunStore } from './run-store.js';
import type { Settings } from './settings.js';
import type { Slots } from './slots.js';

export class ConfigReload {
  constructor(
    private readonly p: {
      settings: Settings;
      store: Pick<RunStore, 'event' | 'emit'>;
      slots: Pick<Slots, 'limiter'>;
      fleet: Pick<Fleet, 'loadUsage' | 'check'>;
      notifier: Pick<Notifier, 'setConfig'>;
      log: (msg: string) => void;
    },
  ) {}

  /** config.json changed: `load` reads it. */
  reload(load: () => Config): void {
    try {
      const next = load();
      const refusal = this.read(next);
      if (refusal) throw new Error(refusal);
      this.apply(next);
    } catch (e) {
      this.p.log(`config rejected, the previous config stays in force: ${(e as Error).message}`);
      this.reject((e as Error).message);
    }
  }

  /** config.json as just read: noted (cluster status tells an edit that waits for a restart), and why it cannot be applied while running (a cluster change), or null. */
  private read(next: Config): string | null {
    this.p.settings.onDisk = next;
    return clusterEditProblem(this.p.settings.config.cluster, next.cluster);
  }

  private apply(cfg: Config): void {
    const { settings, slots, fleet, store } = this.p;
    settings.error = null;
    settings.config = cfg;
    this.p.notifier.setConfig(cfg.notify);
    slots.limiter.setPolicy(admissionPolicy(cfg));
    fleet.loadUsage();
    fleet.check();
    store.emit({ kind: 'admit' });
    store.event(null, { type: 'config_reloaded', data: { warnings: cfg.warnings } });
  }

  private reject(message: string): void {
    this.p.settings.error = { at: Date.now(), message };
    this.p.store.event(null, { type: 'config_rejected', data: { error: message } });
  }
}
