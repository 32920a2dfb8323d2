// The config in force: replaced whole on a reload and read by the rooms at
// call time, config.json as last read (an edit may wait for a restart), and
// the last edit refused, until a good one loads.

import { clusterEditProblem } from '../config/cluster-edit.js';
import type { Config } from '../config/load.js';

export class Settings {
  /** config.json as last read: the config in force, unless an edit of it was refused (a cluster edit waits for a restart). */
  onDisk: Config;
  /** The last config.json edit that was refused (the previous config stays in force), until a good one loads. */
  error: { at: number; message: string } | null = null;

  constructor(public config: Config) {
    this.onDisk = config;
  }

  readonly get = (): Config => this.config;

  /** Why config.json's "cluster" is not the one in force (an edit waiting for the next start), or null. */
  clusterPending(): string | null {
    return clusterEditProblem(this.config.cluster, this.onDisk.cluster);
  }
}
