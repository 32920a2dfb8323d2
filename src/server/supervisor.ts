// The supervisor: the single writer of orcr's state, and its lifecycle. Its
// rooms are built once in compose.ts; the handlers reach the ones they need
// through their narrow ports (`rooms`), the socket what it sends subscribers
// (`feed`). What the supervisor itself does is the lifecycle, each part in a
// room of its own: join a cluster (cluster-join.ts), start and let go
// (start-up.ts), degrade and probe (degrading.ts), reload config
// (config-reload.ts), drain and stop (stopping.ts). It holds no run state.

import type { Config } from '../config/load.js';
import type { Home } from '../config/home.js';
import { wallNow, type WallClock } from './clock.js';
import { compose, type House } from './compose.js';
import type { ClusterLink } from './cluster-link.js';
import type { Dependencies } from './dependencies.js';
import type { Rooms } from './handlers/context.js';
import { Settings } from './settings.js';
import type { Feed } from './subscriber-feed.js';

export class Supervisor {
  /** What each handler is given: the rooms' narrow ports. */
  readonly rooms: Rooms;
  /** What the socket reads for its subscribers. */
  readonly feed: Feed;
  private readonly h: House;

  constructor(
    home: Home,
    config: Config,
    log: (msg: string) => void = () => undefined,
    /** The wall clock the loops' schedules are read by (clock.ts). */
    loopClock: WallClock = wallNow,
  ) {
    this.h = compose(home, new Settings(config), log, loopClock);
    this.rooms = this.h.rooms;
    this.feed = this.h.feed;
  }

  /** This machine's membership of a cluster (joined by joinCluster), or null on its own. */
  get clusterLink(): ClusterLink | null {
    return this.h.slots.cluster;
  }

  /** Runs waiting for other machines' runs (run --after b:fix): their inputs read there (cluster-inputs.ts). */
  get remoteInputs(): Pick<Dependencies, 'readRemote' | 'remoteWaitedOn' | 'onEnded'> {
    return this.h.dependencies;
  }

  /** Why the journal could not be written when it was opened (a full disk), or null: then the supervisor starts degraded. */
  get unwritableAtOpen(): string | null {
    return this.h.store.unwritableAtOpen;
  }

  /** Why the journal cannot be written, while it cannot. */
  get degraded(): string | null {
    return this.h.lifecycle.degraded;
  }

  /**
   * With config `cluster`: join it before start(). A refusal (caps differ, a
   * bad URL, credentials or privileges) is thrown; a database that is merely
   * away leaves this machine failed closed until it is back.
   */
  joinCluster(): Promise<void> {
    return this.h.clusterJoin.join();
  }

  /**
   * Rebuild memory from the journal and repair what changed while no
   * supervisor watched. `draining`: admit nothing from the start (a
   * supervisor started only to kill the agents left running).
   */
  start(opts: { draining?: boolean } = {}): void {
    this.h.startUp.start(opts);
  }

  /** config.json changed: `load` reads it; applied, or refused with the previous config kept (the log and the journal say why). */
  reloadConfig(load: () => Config): void {
    this.h.configReload.reload(load);
  }

  /** The journal cannot be written: fail closed, and probe until it can. */
  degrade(reason: string): void {
    this.h.degrading.degrade(reason);
  }

  /** A journal that cannot be written, as thrown: degrade, and say it was absorbed; anything else is not. */
  absorbs(e: unknown): e is Error {
    return this.h.degrading.absorbs(e);
  }

  /**
   * `server stop --drain` (admit nothing more, wait for the running agents) or
   * `--kill-agents` (kill them first); resolves once no agent runs.
   */
  drain(kill: boolean): Promise<void> {
    return this.h.stopping.drain(kill);
  }

  /** Stop supervising; agents keep running and are re-adopted by the next supervisor. */
  stop(): void {
    this.h.stopping.stop();
  }
}
