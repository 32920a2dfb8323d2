// The connection to the supervisor: connect (starting one if asked), take a
// snapshot, follow the event stream into the store one frame at a time, and
// reconnect when it goes away. It never decides what a key does (actions.ts)
// and never renders; the store is its only output.

import { Client, type RowsMessage, type StreamMessage } from '../../client/client.js';
import type { Caller, Result } from '../../client/methods.js';
import type { Home } from '../../config/home.js';
import type { SessionPort } from '../input/actions.js';
import { RemoteError } from '../../protocol/errors.js';
import { applyDeferred, FrameBatcher, type Deferred } from './batcher.js';
import { notificationBytes, summarize } from './notify.js';
import { reduceSnapshot, reduceStream } from '../state/reducers.js';
import { asksIn } from '../state/approvals.js';
import { clean } from '../state/safe-text.js';
import type { Incoming, Snapshot } from '../state/runs.js';
import { info, type Patch, type TuiState, type TuiStore } from '../state/store.js';
import { ENDED_WINDOW } from '../state/ended-window.js';

/** What the TUI needs from a connection; the real Client fits it. */
export interface ClientLike extends Caller {
  server: Result<'hello'> | null;
  onEvent(fn: (m: StreamMessage) => void): void;
  /** Rows changed without an event (asked for with `rows: true` at subscribe). */
  onRows?(fn: (m: RowsMessage) => void): void;
  onClose(fn: () => void): void;
  close(): void;
}

export type Connect = (home: Home, opts: { autoStart?: boolean; timeoutMs?: number }) => Promise<ClientLike>;

export interface SessionOptions {
  connect?: Connect;
  /** No bell or desktop notification. */
  quiet?: boolean;
  /** Where bells and OSC 9 go (the terminal). */
  writeTerminal?: (bytes: string) => void;
  env?: NodeJS.ProcessEnv;
  frameMs: number;
  reconnectDelayMs: number;
  /** The snapshot is in, or slots may have moved: stats are worth asking for now. */
  wantStats: (delayMs: number) => void;
  /** The pending requests are worth reading: on a new connection (`fresh`: the whole truth), or after new ones were asked. */
  wantRequests?: (fresh: boolean) => void;
}

/** Events after which slots or queues changed: refresh the limiter soon. */
const SLOT_EVENTS = new Set([
  'queued',
  'starting',
  'spawned',
  'working',
  'idle',
  'blocked',
  'ended',
  'adopted',
  'config_reloaded',
  'queue_paused',
  'queue_resumed',
  'cluster_unavailable',
  'cluster_available',
]);

export class Session implements SessionPort {
  private current: ClientLike | null = null;
  readonly batcher: FrameBatcher;
  private stopped = false;
  private connecting = false;
  /** `r` while a reconnect loop sleeps: start a supervisor on its next try, now. */
  private startRequested = false;
  private wake: (() => void) | null = null;
  private lastBellAt = 0;
  /** Connections opened beside the main one (a wait blocks on its own): closed with the session. */
  private extras = new Set<ClientLike>();
  private readonly connect: Connect;

  constructor(
    private readonly store: TuiStore,
    readonly home: Home,
    private readonly opts: SessionOptions,
  ) {
    this.connect = opts.connect ?? ((h, o) => Client.connect(h, o));
    this.batcher = new FrameBatcher((msgs, deferred) => this.applyFrame(msgs, deferred), opts.frameMs);
    this.batcher.hold();
  }

  get client(): ClientLike | null {
    return this.current;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  start(): void {
    void this.connectLoop(true);
  }

  stop(): void {
    this.stopped = true;
    this.wake?.();
    this.batcher.stop();
    this.current?.close();
    this.current = null;
    for (const c of this.extras) c.close();
    this.extras.clear();
  }

  /** One store change, unless the TUI is closing. */
  set(patch: Patch | ((s: TuiState) => Patch)): void {
    if (!this.stopped) this.store.setState(patch);
  }

  /** A second connection to the same supervisor (never starting one), closed by `release` or with the session. */
  async openExtra(): Promise<ClientLike> {
    const c = await this.connect(this.home, { autoStart: false });
    if (this.stopped) {
      c.close();
      throw new RemoteError('unavailable', 'the TUI is closing');
    }
    this.extras.add(c);
    return c;
  }

  releaseExtra(c: ClientLike): void {
    this.extras.delete(c);
    c.close();
  }

  private setConn(state: 'connecting' | 'up' | 'down', extra: { error?: string | null; starting?: boolean } = {}): void {
    const now = Date.now();
    this.set((s) => ({
      conn: {
        state,
        pid: state === 'up' ? (this.current?.server?.pid ?? null) : s.conn.pid,
        startedAt: state === 'up' ? (this.current?.server?.started_at ?? null) : s.conn.startedAt,
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
      while (!this.stopped && !this.current) {
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
          this.current = null;
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
      if (this.current === c) this.batcher.push(m);
    });
    c.onRows?.((m) => {
      if (this.current === c) this.batcher.push(m);
    });
    c.onClose(() => {
      closed = true;
      if (this.current === c) this.lost();
    });
    this.current = c;
    const status = await c.call('server.status');
    const since = Math.max(0, status.seq - 300);
    // Only the window of ended runs it keeps: the rest would be parsed to be dropped.
    const snap = await c.call('subscribe', { snapshot: true, since, rows: true, ended: ENDED_WINDOW });
    if (closed || this.current !== c) throw new RemoteError('unavailable', 'the supervisor went away');
    this.takeSnapshot({ ...snap, runs: snap.runs ?? [] });
    this.setConn('up');
    this.batcher.release();
    this.batcher.flush();
    this.opts.wantStats(0);
    this.opts.wantRequests?.(true);
  }

  /**
   * Apart from attach: a closure there that saw the snapshot would share its
   * scope with the stream listeners, which live as long as the connection,
   * and keep every run the snapshot sent, however few the window holds.
   */
  private takeSnapshot(snap: Snapshot): void {
    const now = Date.now();
    this.set((s) => reduceSnapshot(s, snap, now));
  }

  private lost(): void {
    this.current = null;
    this.batcher.hold();
    this.batcher.clear();
    const now = Date.now();
    this.setConn('down', { error: 'the supervisor went away' });
    this.set(info('the supervisor went away — showing the last state; reconnecting when it is back (r starts one)', now));
    void this.connectLoop(false);
  }

  /** `r`: connected, say so; else try now, starting a supervisor if none runs. */
  reconnect(): void {
    if (this.current) {
      this.set(info('connected', Date.now()));
      return;
    }
    this.set(info('starting the supervisor…', Date.now()));
    this.startRequested = true;
    this.wake?.();
    void this.connectLoop(true);
  }

  /** One frame: the deferred changes (stats, clock), then the stream's messages, as one store change. */
  private applyFrame(msgs: Incoming[], deferred: Deferred[]): void {
    const now = Date.now();
    let slotChange = false;
    let asked = false;
    let bell: string | null = null;
    this.set((s0) => {
      const { patch: early, state: s } = applyDeferred(s0, deferred);
      if (msgs.length === 0) return early;
      const { patch, notable } = reduceStream(s, msgs);
      slotChange = msgs.some((m) => m.type === 'event' && SLOT_EVENTS.has(m.event.type));
      asked = asksIn(msgs);
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
    if (slotChange) this.opts.wantStats(250);
    if (asked) this.opts.wantRequests?.(false);
  }
}
