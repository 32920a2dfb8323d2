// The TUI's only contact with the outside world, put together: the session
// (snapshot, stream, reconnects), the stats poll, the run actions and the
// details pane's reads, on one once-a-second clock. It implements the
// Actions the router calls; components never see any of it.

import type { Params, Result } from '../../client/methods.js';
import type { Home } from '../../config/home.js';
import type { Actions } from '../input/actions.js';
import { writePrefs } from '../state/prefs.js';
import { reduceStats } from '../state/reducers.js';
import { error, info, type Patch, type TuiStore } from '../state/store.js';
import type { SortSpec } from '../state/sort.js';
import { liveWaits, RunActions } from './actions.js';
import { DetailsRefresh, keptScroll } from './details-refresh.js';
import { OlderRuns } from './older-runs.js';
import { Takeover, type HandOver } from './takeover.js';
import { normalizeSpend, type Spend } from '../state/spend.js';
import { normalizeLoops, type LoopsView } from '../state/loops.js';
import { Session, type Connect } from './session.js';
import { StatsPoll } from './stats-poll.js';
import { TranscriptFeed } from './transcript-feed.js';
import { loadDiff } from './diff-load.js';

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
  /** Lends the terminal to an agent's CLI taking a run over (`o`); without it only tmux can. */
  handOver?: HandOver;
}

export class Controller implements Actions {
  private readonly session: Session;
  private readonly stats: StatsPoll;
  private readonly actions: RunActions;
  private readonly details: DetailsRefresh;
  private readonly older: OlderRuns;
  private readonly takeovers: Takeover;
  private readonly transcript: TranscriptFeed;
  private clock: NodeJS.Timeout | null = null;
  private ticking = false;
  private readonly statsIntervalMs: number;

  constructor(
    private readonly store: TuiStore,
    private readonly home: Home,
    opts: ControllerOptions = {},
  ) {
    this.statsIntervalMs = opts.statsIntervalMs ?? 1000;
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
    });
    this.stats = new StatsPoll(store, this.session);
    this.actions = new RunActions(store, this.session, { cwd: opts.cwd });
    this.takeovers = new Takeover(store, this.session, { env: opts.env, handOver: opts.handOver });
    this.details = new DetailsRefresh();
    this.older = new OlderRuns(store, this.session);
    this.transcript = new TranscriptFeed(store, home);
  }

  start(): void {
    this.clock = setInterval(() => void this.tick(), this.statsIntervalMs);
    this.session.start();
  }

  stop(): void {
    if (this.clock) clearInterval(this.clock);
    this.clock = null;
    this.stats.stop();
    this.takeovers.stop();
    this.transcript.close();
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
      const st = this.store.getState();
      const fed = this.transcript.uuid;
      if (fed && st.runs.byId[fed]?.status === 'ended') this.transcript.ended(fed);
      const details = this.store.getState().mode === 'details' ? this.details.read(this.store.getState()) : null;
      const spend = this.store.getState().mode === 'spend' ? await this.loadSpend() : null;
      const loops = this.store.getState().mode === 'loops' ? await this.loadLoops() : null;
      const now = Date.now();
      // With the next frame; what the person may have changed meanwhile (scroll, banners, mode) is read then.
      this.session.batcher.defer((s) => {
        const patch: Patch = stats ? { now, ...reduceStats(s, stats) } : { now };
        if (details && s.mode === 'details' && s.selected === details.uuid) patch.details = { ...details, scroll: keptScroll(s, details.uuid), raw: s.details?.uuid === details.uuid ? s.details.raw : false };
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

  // ---------- Actions ----------

  kill(uuid: string, force: boolean): void {
    this.actions.kill(uuid, force);
  }

  killMany(uuids: readonly string[], force: boolean): void {
    this.actions.killMany(uuids, force);
  }

  send(uuid: string, text: string): void {
    this.actions.send(uuid, text);
  }

  wait(uuid: string): void {
    this.actions.wait(uuid);
  }

  enqueue(line: string): void {
    this.actions.enqueue(line);
  }

  rerun(uuid: string): void {
    this.actions.rerun(uuid);
  }

  spendOpened(): void {
    void this.loadSpend().then((spend) => spend && this.session.set({ spend }));
  }

  private async loadSpend(): Promise<Spend | null> {
    const c = this.session.client;
    if (!c) return null;
    try {
      return normalizeSpend(await c.call('spend'));
    } catch (e) {
      this.session.set(error(`spend: ${(e as Error).message}`, Date.now()));
      return null;
    }
  }

  loopsOpened(): void {
    void this.loadLoops().then((loops) => loops && this.session.set({ loops }));
  }

  private async loadLoops(): Promise<LoopsView | null> {
    const c = this.session.client;
    if (!c) return null;
    try {
      return normalizeLoops(await c.call('loop.list'), Date.now());
    } catch (e) {
      this.session.set(error(`loops: ${(e as Error).message}`, Date.now()));
      return null;
    }
  }

  pauseLoop(name: string, paused: boolean): void {
    void this.loopCall('loop.pause', { name, paused }, () => `${name} ${paused ? 'paused: it fires no more until resumed (p)' : 'resumed'}`);
  }

  fireLoop(name: string): void {
    void this.loopCall('loop.start', { name }, (r) => {
      // The same rules as a scheduled fire: at its concurrency a fire may wait or be dropped.
      if (r.action === 'started') return `${name} fired: ${r.name ?? 'a run'} started`;
      if (r.action === 'skipped') return `${name} at its concurrency (overlap skip): the fire was dropped`;
      return `${name} at its concurrency: the fire waits for a place (${r.action ?? 'pending'})`;
    });
  }

  /** A loop change, then the view read again so that it shows at once. */
  private async loopCall<M extends 'loop.pause' | 'loop.start'>(method: M, params: Params<M>, said: (result: Result<M>) => string): Promise<void> {
    const c = this.session.client;
    if (!c) return void this.session.set(error('not connected to the supervisor', Date.now()));
    try {
      const result = (await (c.call as (m: M, p: Params<M>) => Promise<Result<M>>)(method, params));
      const loops = await this.loadLoops();
      this.session.set({ ...info(said(result), Date.now()), ...(loops ? { loops } : {}) });
    } catch (e) {
      this.session.set(error(`${String(params.name)}: ${(e as Error).message}`, Date.now()));
    }
  }

  takeover(uuid: string): void {
    this.takeovers.start(uuid);
  }

  resumeProvider(provider: string): void {
    this.actions.resumeProvider(provider);
  }

  pauseQueue(paused: boolean): void {
    this.actions.pauseQueue(paused);
  }

  loadOlder(): void {
    this.older.load();
  }

  reconnect(): void {
    this.session.reconnect();
  }

  themeChanged(name: string): void {
    const problem = writePrefs(this.home.dir, { theme: name });
    this.session.set(problem ? error(problem, Date.now()) : info(`theme: ${name}`, Date.now()));
  }

  sortChanged(sort: SortSpec): void {
    const problem = writePrefs(this.home.dir, { sort });
    if (problem) this.session.set(error(problem, Date.now()));
  }

  detailsOpened(): void {
    this.details.reset();
    this.refreshDetails();
    const uuid = this.store.getState().selected;
    if (uuid) this.transcript.show(uuid);
  }

  detailsClosed(): void {
    this.transcript.close();
  }

  transcriptOpened(uuid: string): void {
    this.transcript.show(uuid);
  }

  transcriptClosed(): void {
    // Back in details, which go on showing (and following) the same output.
    const s = this.store.getState();
    if (s.mode !== 'details' || s.selected !== this.transcript.uuid) this.transcript.close();
  }

  diffOpened(uuid: string): void {
    void loadDiff(this.store, this.session, uuid);
  }

  /** Read the selected run's process group and output tail into the details pane. */
  refreshDetails(): void {
    const details = this.details.read(this.store.getState());
    if (details) this.session.set({ details });
  }
}
