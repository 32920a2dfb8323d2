// The TUI's only contact with the outside world: the supervisor connection
// (snapshot, then the event stream, reconnecting when it goes away), the
// stats poll, the actions keys trigger, and the details pane's /proc and
// output reads. Components never see any of it; they read the store.

import { Client, type StreamMessage } from '../client/client.js';
import type { Home } from '../config/home.js';
import { callerEnv, parseRunArgs } from '../cli/run-args.js';
import { RemoteError } from '../server/protocol.js';
import type { PublicRun } from '../server/view.js';
import { applyDeferred, FrameBatcher, type Deferred } from './batcher.js';
import { clean, normalizeStats, type Snapshot, type Stats } from './model.js';
import { notificationBytes, summarize } from './notify.js';
import { outputFile, readTail } from './output-tail.js';
import { writePrefs } from './prefs.js';
import { cpuPercent, sampleGroup, type GroupSample } from './proc-stats.js';
import { shellSplit } from './shell-split.js';
import { error, info, reduceSnapshot, reduceStats, reduceStream, type Patch, type TuiState, type TuiStore, type WaitBanner } from './store.js';

/** What the controller needs from a connection; the real Client fits it. */
export interface ClientLike {
  server: { pid: number; home: string; started_at: number } | null;
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  onEvent(fn: (m: StreamMessage) => void): void;
  onClose(fn: () => void): void;
  close(): void;
}

export type Connect = (home: Home, opts: { autoStart?: boolean; timeoutMs?: number }) => Promise<ClientLike>;

export interface Actions {
  kill(uuid: string, force: boolean): void;
  send(uuid: string, text: string): void;
  wait(uuid: string): void;
  enqueue(line: string): void;
  reconnect(): void;
  themeChanged(name: string): void;
  detailsOpened(): void;
}

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
}

const WAIT_BANNER_MS = 60_000;

/** What a kill did, from the run the supervisor returned (a queued run is canceled; an ended one is left as it was). */
/** What the server did with a kill (run.kill's per-target result). */
export interface KillOutcome {
  action: 'killing' | 'canceled' | 'already_ended' | 'not_found';
  exit_reason: string | null;
}

export function killResult(name: string, outcome: KillOutcome | undefined, force: boolean): string {
  switch (outcome?.action) {
    case 'canceled':
      return `canceled ${name}: it had not started`;
    case 'already_ended':
      return `${name} had already ended (${outcome.exit_reason}): nothing to kill`;
    case 'not_found':
      return `${name}: no such run`;
    default:
      return `kill sent to ${name}${force ? ' (SIGKILL)' : ''}`;
  }
}

/** Events after which slots or queues changed: refresh the limiter soon. */
const SLOT_EVENTS = new Set(['queued', 'starting', 'spawned', 'working', 'idle', 'blocked', 'ended', 'adopted', 'config_reloaded']);

export class Controller implements Actions {
  private client: ClientLike | null = null;
  private readonly batcher: FrameBatcher;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  private statsInFlight = false;
  private statsTimer: NodeJS.Timeout | null = null;
  private lastStatsAt = 0;
  private connecting = false;
  /** `r` while a reconnect loop sleeps: start a supervisor on its next try, now. */
  private startRequested = false;
  private wake: (() => void) | null = null;
  private waitId = 0;
  private lastBellAt = 0;
  private ticking = false;
  private lastStatsKey = '';
  private waitClients = new Set<ClientLike>();
  private procPrev: GroupSample | null = null;
  private procFor: string | null = null;
  /** Actions on a run still on their way (a send): a wait issued after them waits for them. */
  private inflight = new Map<string, Promise<unknown>>();
  private readonly connect: Connect;
  private readonly opts: Required<Pick<ControllerOptions, 'statsIntervalMs' | 'frameMs' | 'reconnectDelayMs'>> & ControllerOptions;

  constructor(
    private readonly store: TuiStore,
    private readonly home: Home,
    opts: ControllerOptions = {},
  ) {
    // 60 ms between frames (~16 a second): smooth to the eye, and with a frame
    // of a 160x50 screen costing a few ms a busy fleet stays under a quarter of
    // a core (bench item 7: ~20% at 200 events/s).
    this.opts = { statsIntervalMs: 1000, frameMs: 60, reconnectDelayMs: 1000, ...opts };
    this.connect = opts.connect ?? ((h, o) => Client.connect(h, o));
    this.batcher = new FrameBatcher((msgs, deferred) => this.applyFrame(msgs, deferred), this.opts.frameMs);
    this.batcher.hold();
  }

  start(): void {
    const tick = setInterval(() => void this.tick(), this.opts.statsIntervalMs);
    this.timers.push(tick);
    void this.connectLoop(true);
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
    for (const t of this.timers) clearInterval(t);
    if (this.statsTimer) clearTimeout(this.statsTimer);
    this.batcher.stop();
    this.client?.close();
    this.client = null;
    for (const c of this.waitClients) c.close();
    this.waitClients.clear();
  }

  get connected(): boolean {
    return this.client !== null;
  }

  // ---------- connection ----------

  private set(patch: Patch | ((s: TuiState) => Patch)): void {
    if (!this.stopped) this.store.setState(patch);
  }

  private setConn(state: 'connecting' | 'up' | 'down', extra: { error?: string | null; starting?: boolean } = {}): void {
    const now = Date.now();
    this.set((s) => ({
      conn: {
        state,
        pid: state === 'up' ? (this.client?.server?.pid ?? null) : s.conn.pid,
        startedAt: state === 'up' ? (this.client?.server?.started_at ?? null) : s.conn.startedAt,
        error: extra.error === undefined || extra.error === null ? null : clean(extra.error),
        since: s.conn.state === state ? s.conn.since : now,
        starting: extra.starting ?? false,
      },
      now,
    }));
  }

  private async connectLoop(autoStart: boolean): Promise<void> {
    if (this.connecting || this.stopped) return;
    this.connecting = true;
    try {
      while (!this.stopped && !this.client) {
        if (this.startRequested) {
          autoStart = true;
          this.startRequested = false;
        }
        try {
          let c: ClientLike;
          try {
            c = await this.connect(this.home, { autoStart: false });
          } catch (e) {
            if (!autoStart || !(e instanceof RemoteError) || e.code !== 'unavailable') throw e;
            this.setConn('connecting', { starting: true });
            c = await this.connect(this.home, { autoStart: true });
          }
          if (this.stopped) {
            c.close();
            return;
          }
          await this.attach(c);
        } catch (e) {
          this.client = null;
          this.batcher.clear();
          this.setConn('down', { error: (e as Error).message });
          // After the first attempt, only reconnect to a supervisor that is back; `r` starts one.
          autoStart = false;
          await new Promise<void>((r) => {
            const t = setTimeout(r, this.opts.reconnectDelayMs);
            this.wake = () => {
              clearTimeout(t);
              r();
            };
          });
          this.wake = null;
        }
      }
    } finally {
      this.connecting = false;
    }
  }

  private async attach(c: ClientLike): Promise<void> {
    // Listen before subscribing so nothing falls between the snapshot and the
    // stream; hold what arrives until the snapshot is in.
    this.batcher.hold();
    this.batcher.clear();
    let closed = false;
    c.onEvent((m) => {
      if (this.client === c) this.batcher.push(m);
    });
    c.onClose(() => {
      closed = true;
      if (this.client === c) this.lost();
    });
    this.client = c;
    const status = await c.call<{ seq: number }>('server.status');
    const since = Math.max(0, status.seq - 300);
    const snap = await c.call<Snapshot>('subscribe', { snapshot: true, since });
    if (closed || this.client !== c) throw new RemoteError('unavailable', 'the supervisor went away');
    const now = Date.now();
    this.set((s) => reduceSnapshot(s, snap, now));
    this.setConn('up');
    this.batcher.release();
    this.batcher.flush();
    this.requestStats(0);
  }

  private lost(): void {
    this.client = null;
    this.batcher.hold();
    this.batcher.clear();
    const now = Date.now();
    this.setConn('down', { error: 'the supervisor went away' });
    this.set(info('the supervisor went away — showing the last state; reconnecting when it is back (r starts one)', now));
    void this.connectLoop(false);
  }

  reconnect(): void {
    if (this.client) {
      this.set(info('connected', Date.now()));
      return;
    }
    this.set(info('starting the supervisor…', Date.now()));
    this.startRequested = true;
    this.wake?.();
    void this.connectLoop(true);
  }

  // ---------- stream ----------

  /** One frame: the deferred changes (stats, clock), then the stream's messages, as one store change. */
  private applyFrame(msgs: StreamMessage[], deferred: Deferred[]): void {
    const now = Date.now();
    let slotChange = false;
    let bell: string | null = null;
    this.set((s0) => {
      const { patch: early, state: s } = applyDeferred(s0, deferred);
      if (msgs.length === 0) return early;
      const { patch, notable } = reduceStream(s, msgs);
      slotChange = msgs.some((m) => SLOT_EVENTS.has(m.event.type));
      if (notable.length > 0) {
        const text = summarize(notable);
        Object.assign(patch, info(text, now));
        bell = text;
      }
      return Object.assign(early, patch);
    });
    // One bell per couple of seconds at most: a fleet ending together is one notification, not fifty.
    if (bell !== null && !this.opts.quiet && now - this.lastBellAt >= 2000) {
      this.lastBellAt = now;
      this.opts.writeTerminal?.(notificationBytes(bell, this.opts.env ?? process.env));
    }
    if (slotChange) this.requestStats(250);
  }

  // ---------- stats and the clock ----------

  /** Once a second: the clock, fresh stats and (in details) the process and output, as one store change. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const stats = await this.loadStats();
      const details = this.store.getState().mode === 'details' ? this.detailsPatch().details : undefined;
      const now = Date.now();
      // With the next frame; what the user may have changed meanwhile (scroll, banners, mode) is read then.
      this.batcher.defer((s) => {
        const patch: Patch = stats ? { now, ...reduceStats(s, stats) } : { now };
        if (details && s.mode === 'details' && s.selected === details.uuid) {
          const scroll = s.details?.uuid === details.uuid ? Math.min(s.details.scroll, Math.max(0, details.lines.length - 1)) : 0;
          patch.details = { ...details, scroll };
        }
        // A settled wait banner stays a minute, then gives its line back.
        const kept = s.waits.filter((w) => w.state === 'waiting' || now - w.at < WAIT_BANNER_MS);
        if (kept.length !== s.waits.length) patch.waits = kept;
        return patch;
      });
    } finally {
      this.ticking = false;
    }
  }

  /** Ask for stats within `delayMs`, at most one request in flight and one per 250 ms. */
  requestStats(delayMs: number): void {
    if (this.statsTimer || this.stopped) return;
    const wait = Math.max(delayMs, this.lastStatsAt + 250 - Date.now(), 0);
    this.statsTimer = setTimeout(() => {
      this.statsTimer = null;
      void this.fetchStats();
    }, wait);
  }

  private async fetchStats(): Promise<void> {
    const stats = await this.loadStats();
    if (stats) this.batcher.defer((s) => reduceStats(s, stats));
  }

  /** Stats if they changed since the last call, else null (no store change, no render). */
  private async loadStats(): Promise<Stats | null> {
    const c = this.client;
    if (!c || this.statsInFlight) return null;
    this.statsInFlight = true;
    this.lastStatsAt = Date.now();
    try {
      const raw = await c.call('stats');
      const key = JSON.stringify(raw);
      if (key === this.lastStatsKey && this.store.getState().stats) return null;
      this.lastStatsKey = key;
      return normalizeStats(raw);
    } catch {
      return null; // a dropped connection is reported by onClose
    } finally {
      this.statsInFlight = false;
    }
  }

  // ---------- actions ----------

  private nameOf(uuid: string): string {
    return this.store.getState().runs.byId[uuid]?.name ?? uuid.slice(0, 8);
  }

  private fail(what: string, e: unknown): void {
    const msg = e instanceof Error ? e.message : String(e);
    this.set(error(`${what}: ${msg}`, Date.now()));
  }

  private need(): ClientLike | null {
    if (this.client) return this.client;
    this.set(error('not connected to the supervisor (r to reconnect)', Date.now()));
    return null;
  }

  kill(uuid: string, force: boolean): void {
    const c = this.need();
    if (!c) return;
    const name = this.nameOf(uuid);
    c.call<{ results: KillOutcome[] }>('run.kill', { refs: [uuid], force })
      .then((res) => this.set(info(killResult(name, res.results[0], force), Date.now())))
      .catch((e) => this.fail(`kill ${name}`, e));
  }

  send(uuid: string, text: string): void {
    const c = this.need();
    if (!c) return;
    const name = this.nameOf(uuid);
    const p = c
      .call<{ run?: PublicRun }>('run.send', { ref: uuid, text })
      .then((res) => this.set(info(`sent to ${name}${res.run ? ` (input #${res.run.input_seq})` : ''}`, Date.now())))
      .catch((e) => this.fail(`send to ${name}`, e));
    this.inflight.set(uuid, p);
    void p.finally(() => {
      if (this.inflight.get(uuid) === p) this.inflight.delete(uuid);
    });
  }

  /** `w`: a second connection blocks in run.wait, so the main stream keeps flowing. */
  wait(uuid: string): void {
    if (!this.need()) return;
    const id = ++this.waitId;
    const name = this.nameOf(uuid);
    const banner: WaitBanner = { id, uuid, name, state: 'waiting', token: null, error: null, at: Date.now() };
    this.set((s) => ({
      waits: [...s.waits.filter((w) => w.state === 'waiting' || Date.now() - w.at < WAIT_BANNER_MS), banner].slice(-4),
      ...info(`waiting on ${name} until it is idle or ended…`, Date.now()),
    }));
    const update = (patch: Partial<WaitBanner>): void =>
      this.set((s) => ({
        waits: s.waits.map((w) => (w.id === id ? { ...w, ...patch, at: Date.now() } : w)),
        ...(patch.state === 'settled' ? info(`wait on ${name}: ${patch.token}`, Date.now()) : error(`wait on ${name} failed: ${patch.error}`, Date.now())),
      }));
    void (async () => {
      let wc: ClientLike | null = null;
      try {
        // `s` then `w`: wait for the turn the input starts, not the one before it.
        await this.inflight.get(uuid);
        wc = await this.connect(this.home, { autoStart: false });
        this.waitClients.add(wc);
        const res = await wc.call<{ settled: { uuid: string; name: string; token: string }[] }>('run.wait', { refs: [uuid] });
        // The stream told the main connection first; show that before the banner so they agree.
        this.batcher.flush();
        update({ state: 'settled', token: res.settled[0]?.token ?? 'unknown' });
      } catch (e) {
        update({ state: 'failed', error: clean((e as Error).message) });
      } finally {
        if (wc) {
          this.waitClients.delete(wc);
          wc.close();
        }
      }
    })();
  }

  enqueue(line: string): void {
    let spec;
    try {
      const args = shellSplit(line);
      if (args.length === 0) {
        this.set(error('new run: nothing typed (give -a PROVIDER -p PROMPT or -- COMMAND)', Date.now()));
        return;
      }
      spec = parseRunArgs(args, this.opts.cwd ?? process.cwd());
    } catch (e) {
      this.fail('new run', e);
      return;
    }
    const c = this.need();
    if (!c) return;
    // A run starts with the environment of whoever made it: here, this TUI's.
    c.call<{ runs: PublicRun[] }>('run.enqueue', { specs: [spec], caller_env: callerEnv(process.env) })
      .then((res) => {
        const r = res.runs[0];
        this.set(info(r ? `queued ${r.name} (${r.uuid.slice(0, 8)})` : 'queued', Date.now()));
      })
      .catch((e) => this.fail('new run', e));
  }

  themeChanged(name: string): void {
    const problem = writePrefs(this.home.dir, { theme: name });
    this.set(problem ? error(problem, Date.now()) : info(`theme: ${name}`, Date.now()));
  }

  detailsOpened(): void {
    this.procPrev = null;
    this.procFor = null;
    this.refreshDetails();
  }

  /** Read the selected run's process group and output tail into the details pane. */
  refreshDetails(): void {
    const patch = this.detailsPatch();
    if (patch.details) this.set(patch);
  }

  private detailsPatch(): Patch {
    const s = this.store.getState();
    const uuid = s.selected;
    if (!uuid) return {};
    const run = s.runs.byId[uuid];
    if (!run) return {};
    const now = Date.now();
    if (this.procFor !== uuid) {
      this.procPrev = null;
      this.procFor = uuid;
    }
    let cpu: number | null = null;
    let rssBytes: number | null = null;
    let pids: number[] = [];
    if (run.pid !== null && run.status !== 'ended' && run.status !== 'queued') {
      const sample = sampleGroup(run.pid, now);
      if (sample) {
        cpu = cpuPercent(this.procPrev, sample);
        rssBytes = sample.rssBytes;
        pids = sample.pids;
      }
      this.procPrev = sample;
    }
    const tail = readTail(outputFile(this.home.dir, uuid));
    const st = this.store.getState();
    return {
      details: {
        uuid,
        cpu,
        rssBytes,
        pids,
        lines: tail.lines,
        outMissing: tail.missing,
        scroll: st.details?.uuid === uuid ? Math.min(st.details.scroll, Math.max(0, tail.lines.length - 1)) : 0,
      },
    };
  }
}
