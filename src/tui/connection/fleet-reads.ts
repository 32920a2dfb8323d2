// Cluster scope's side of the connection (`m`): the fleet read from the
// supervisor with cluster.runs — first when the key asks for the cluster
// (a home in no cluster is told so in the footer, and stays on this
// machine), then every POLL_MS while the scope is the cluster's, one read
// in flight, its answer applied with the next frame — and another
// machine's run read with cluster.run when its details open. The
// supervisor answers from the database (or its last good read, with
// stale_since, while the database is away); nothing here reads the
// journal or the database.

import type { ClusterRunsReply } from '../../protocol/results.js';
import type { FleetPort } from '../input/actions.js';
import { reduceFleet, reduceFleetRun, reduceScope } from '../state/reducers.js';
import { error, info, type TuiStore } from '../state/store.js';
import type { Session } from './session.js';

/** How often the fleet is read while shown: a change on another machine is on screen within a publish (100 ms) and this. */
const POLL_MS = 500;

export class FleetReads implements FleetPort {
  private timer: NodeJS.Timeout | null = null;
  private reading = false;

  constructor(
    private readonly store: TuiStore,
    private readonly session: Session,
    private readonly pollMs = POLL_MS,
  ) {}

  /** `m`: to the cluster (after a first read says this home is in one), or back to this machine. */
  toggleScope(): void {
    if (this.store.getState().scope === 'cluster') {
      this.stop();
      this.session.set((s) => ({ ...reduceScope(s, 'machine', null, Date.now()), ...info('scope: this machine', Date.now()) }));
      return;
    }
    const c = this.session.client;
    if (!c) return void this.session.set(error('not connected to the supervisor (r to reconnect)', Date.now()));
    c.call('cluster.runs', { all: true })
      .then((reply) => {
        this.session.set((s) => ({ ...reduceScope(s, 'cluster', reply, Date.now()), ...info(scopeWords(reply), Date.now()) }));
        this.schedule();
      })
      .catch((e: Error) => this.session.set(error(`no cluster scope: ${e.message}`, Date.now())));
  }

  /** Details opened on another machine's run: its face read now (the list's may be half a second old). */
  remoteDetailsOpened(key: string): void {
    const c = this.session.client;
    if (!c) return;
    c.call('cluster.run', { ref: key })
      .then((reply) => this.session.batcher.defer((s) => reduceFleetRun(s, key, reply.run)))
      .catch((e: Error) => this.session.set(error(`${key}: ${e.message}`, Date.now())));
  }

  /** Read again soon: after an action on another machine's run, its answer shows without waiting for the poll. */
  readFleetSoon(): void {
    if (this.store.getState().scope !== 'cluster') return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.schedule(50);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay = this.pollMs): void {
    if (this.timer || this.session.isStopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.read();
    }, delay);
  }

  private async read(): Promise<void> {
    if (this.store.getState().scope !== 'cluster') return;
    const c = this.session.client;
    if (c && !this.reading) {
      this.reading = true;
      try {
        const reply = await c.call('cluster.runs', { all: true });
        this.session.batcher.defer((s) => reduceFleet(s, reply, Date.now()));
      } catch {
        // A dropped connection is the header's to say; the last read stays shown, and the next poll reads again.
      } finally {
        this.reading = false;
      }
    }
    if (this.store.getState().scope === 'cluster') this.schedule();
  }
}

function scopeWords(r: ClusterRunsReply): string {
  const n = r.machines.length;
  return `scope: cluster ${r.cluster} — ${n} machine${n === 1 ? '' : 's'}, ${r.runs.length} run${r.runs.length === 1 ? '' : 's'} (m: this machine only)`;
}
