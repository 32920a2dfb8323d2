// The TUI's only contact with the outside world, put together: the session
// (snapshot, stream, reconnects), the stats poll, and the rooms that carry
// out what keys ask (the Actions ports: run actions, take-over, older runs,
// the views' reads, the fleet's in cluster scope, the approvals queue's answers, the output followed, the
// saved prefs), on one
// once-a-second clock. Each port is the room itself: nothing here forwards a
// call. Components never see any of it.

import type { Home } from '../../config/home.js';
import type { Actions } from '../input/actions.js';
import { reduceStats } from '../state/reducers.js';
import type { Patch, TuiStore } from '../state/store.js';
import { liveWaits, RunActions } from './actions.js';
import { ApprovalDesk, answererName } from './approval-desk.js';
import { keptScroll } from './details-refresh.js';
import { OlderRuns } from './older-runs.js';
import { OutputFollow } from './output-follow.js';
import { SavedPrefs } from './saved-prefs.js';
import { Takeover, type HandOver } from './takeover.js';
import { Session, type Connect } from './session.js';
import { StatsPoll } from './stats-poll.js';
import { ViewReads } from './view-reads.js';
import { FleetReads } from './fleet-reads.js';

export interface ControllerOptions {
  quiet?: boolean;
  /** Where bells and OSC 9 go (the terminal). */
  writeTerminal?: (bytes: string) => void;
  connect?: Connect;
  env?: NodeJS.ProcessEnv;
  /** Working directory for `n` (relative --cwd and the default cwd of new runs). */
  cwd?: string;
  statsIntervalMs?: number;
  frameMs?: number;
  reconnectDelayMs?: number;
  /** Open in cluster scope once connected (`orcr-tui --cluster`). */
  cluster?: boolean;
  /** How often the fleet is read in cluster scope (default 500 ms). */
  fleetPollMs?: number;
  /** Lends the terminal to an agent's CLI taking a run over (`o`); without it only tmux can. */
  handOver?: HandOver;
}

/** The Actions the keys call are its rooms themselves, each the port it implements. */
export class Controller implements Actions {
  readonly runs: RunActions;
  readonly takeover: Takeover;
  readonly older: OlderRuns;
  readonly session: Session;
  readonly views: ViewReads;
  readonly approvals: ApprovalDesk;
  readonly output: OutputFollow;
  readonly prefs: SavedPrefs;
  readonly fleet: FleetReads;
  private readonly stats: StatsPoll;
  private clock: NodeJS.Timeout | null = null;
  private ticking = false;
  private clusterPending: boolean;
  private readonly statsIntervalMs: number;

  constructor(
    private readonly store: TuiStore,
    home: Home,
    opts: ControllerOptions = {},
  ) {
    this.statsIntervalMs = opts.statsIntervalMs ?? 1000;
    this.clusterPending = opts.cluster === true;
    this.session = new Session(store, home, {
      connect: opts.connect,
      quiet: opts.quiet,
      writeTerminal: opts.writeTerminal,
      env: opts.env,
      // 66 ms between frames (15 a second): smooth to the eye, an event on
      // screen ~40 ms after it happened, and with a frame of a 160x50 screen
      // costing a few ms a busy fleet takes about a seventh of a core (bench
      // item 7: ~13% at 200 events/s; 60 ms drew 10% more frames for 3 ms less
      // latency).
      frameMs: opts.frameMs ?? 66,
      reconnectDelayMs: opts.reconnectDelayMs ?? 1000,
      wantStats: (delayMs) => this.stats.request(delayMs),
      wantRequests: (fresh) => {
        this.approvals.refresh(fresh);
        // --cluster: the first connection opens cluster scope (or says why it cannot), as `m` would.
        if (fresh && this.clusterPending && this.store.getState().scope === 'machine') {
          this.clusterPending = false;
          this.fleet.toggleScope();
        }
      },
    });
    this.stats = new StatsPoll(store, this.session);
    this.runs = new RunActions(store, this.session, { cwd: opts.cwd });
    this.takeover = new Takeover(store, this.session, { env: opts.env, handOver: opts.handOver });
    this.older = new OlderRuns(store, this.session);
    this.views = new ViewReads(this.session);
    // An answer from inside a run says so: the supervisor refuses a run's answer to its own requests.
    this.approvals = new ApprovalDesk(store, this.session, { who: answererName(), caller: (opts.env ?? process.env).ORCR_RUN || null });
    this.output = new OutputFollow(store, this.session, home);
    this.prefs = new SavedPrefs(home.dir, this.session);
    this.fleet = new FleetReads(store, this.session, opts.fleetPollMs);
  }

  start(): void {
    this.clock = setInterval(() => void this.tick(), this.statsIntervalMs);
    this.session.start();
  }

  stop(): void {
    if (this.clock) clearInterval(this.clock);
    this.clock = null;
    this.stats.stop();
    this.fleet.stop();
    this.takeover.stop();
    this.output.close();
    this.session.stop();
  }

  get connected(): boolean {
    return this.session.client !== null;
  }

  /** Once a second: the clock, fresh stats and (in details) the process and output, as one store change. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const stats = await this.stats.load();
      const details = this.output.tick();
      const spend = this.store.getState().mode === 'spend' ? await this.views.loadSpend() : null;
      const loops = this.store.getState().mode === 'loops' ? await this.views.loadLoops() : null;
      const now = Date.now();
      // With the next frame; what the person may have changed meanwhile (scroll, banners, mode) is read then.
      this.session.batcher.defer((s) => {
        const patch: Patch = stats ? { now, ...reduceStats(s, stats) } : { now };
        if (details && s.mode === 'details' && s.selected === details.uuid)
          patch.details = { ...details, scroll: keptScroll(s, details.uuid), raw: s.details?.uuid === details.uuid ? s.details.raw : false };
        if (spend) patch.spend = spend;
        if (loops) patch.loops = loops;
        const kept = liveWaits(s.waits, now);
        if (kept.length !== s.waits.length) patch.waits = kept;
        return patch;
      });
    } finally {
      this.ticking = false;
    }
  }
}
