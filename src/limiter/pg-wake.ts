// How a machine of the cluster hears that something changed elsewhere (a
// slot freed, a grant for it, a hold): LISTEN on the cluster's channel,
// checked by a probe — a notification it sends itself through the query
// connection — at start and now and then, since a transaction-mode pooler
// (PgBouncer) accepts LISTEN and then drops every notification without a
// word. While notifications arrive, one cheap read of the cluster's change
// counter every `pollMs` catches one that was lost; while they do not (or
// are not known to yet), that read runs every `fastPollMs`. Either way the
// database's load grows with machines, not with waiting runs.

import crypto from 'node:crypto';
import pg from 'pg';

export type NotificationState = 'unknown' | 'arriving' | 'not arriving';

export interface WakeOptions {
  /** Where to LISTEN: the cluster's URL, or `listen_url` (a direct connection past a pooler). */
  listenUrl: string;
  channel: string;
  /** Send a NOTIFY on the channel through the query connection (the path other machines' notices take). */
  notify: (payload: string) => Promise<void>;
  /** The cluster's change counter, read through the query connection. */
  readChange: () => Promise<string>;
  /** Something changed: run an admission pass. */
  onWake: () => void;
  /** The notification state changed (said once per change). */
  onState: (state: NotificationState, why: string) => void;
  pollMs: number;
  fastPollMs?: number;
  /** A second channel on the same connection: this machine's own (commands and answers addressed to it, pg-commands). */
  also?: { channel: string; onNotice: (payload: string) => void };
  probeEveryMs?: number;
  probeTimeoutMs?: number;
}

export class Wakeup {
  private listener: pg.Client | null = null;
  private stateNow: NotificationState = 'unknown';
  private probe: { token: string; heard: () => void } | null = null;
  private seenChange: string | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private probeTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly o: WakeOptions) {}

  get state(): NotificationState {
    return this.stateNow;
  }

  /** Listen (a failure here is the caller's: the database is away), then probe and poll in the background. */
  async start(): Promise<void> {
    await this.listen();
    this.schedulePoll();
    void this.runProbe();
    this.probeTimer = setInterval(() => void this.runProbe(), this.o.probeEveryMs ?? 60_000);
    this.probeTimer.unref();
  }

  private async listen(): Promise<void> {
    const c = new pg.Client({ connectionString: this.o.listenUrl, connectionTimeoutMillis: 5000 });
    c.on('error', () => undefined);
    c.on('notification', (n) => {
      const payload = n.payload ?? '';
      if (this.o.also && n.channel === this.o.also.channel) {
        this.o.also.onNotice(payload);
        return;
      }
      if (payload.startsWith('probe:')) {
        if (this.probe && payload === `probe:${this.probe.token}`) this.probe.heard();
        return;
      }
      this.o.onWake();
    });
    c.on('end', () => {
      if (this.listener !== c) return;
      this.listener = null;
      this.setState('unknown', 'the listening connection ended');
    });
    await c.connect();
    await c.query(`LISTEN ${this.o.channel}`);
    if (this.o.also) await c.query(`LISTEN ${this.o.also.channel}`);
    this.listener = c;
  }

  /** After the database was away: listen again (and probe) if the connection went with it. */
  async ensureListening(): Promise<void> {
    if (this.listener || this.closed) return;
    try {
      await this.listen();
      void this.runProbe();
    } catch {
      /* the poll goes on */
    }
  }

  /** Send ourselves a notification; whether it arrives says whether others' will. */
  private async runProbe(): Promise<void> {
    if (this.closed || this.probe || !this.listener) return;
    const token = crypto.randomBytes(8).toString('hex');
    let timer: NodeJS.Timeout | null = null;
    // null: the probe could not be sent (the database is away), which says nothing of notifications.
    const heard = await new Promise<boolean | null>((resolve) => {
      this.probe = { token, heard: () => resolve(true) };
      timer = setTimeout(() => resolve(false), this.o.probeTimeoutMs ?? 2000);
      this.o.notify(`probe:${token}`).catch(() => resolve(null));
    });
    if (timer) clearTimeout(timer);
    this.probe = null;
    if (this.closed || heard === null) return;
    if (heard) this.setState('arriving', 'a probe notification came back');
    else if (this.listener) {
      this.setState(
        'not arriving',
        'a probe notification sent through the cluster URL never came back (a transaction-mode pooler such as PgBouncer drops them; set cluster.listen_url to a direct connection)',
      );
    }
  }

  private setState(state: NotificationState, why: string): void {
    if (state === this.stateNow) return;
    this.stateNow = state;
    this.o.onState(state, why);
    this.schedulePoll();
  }

  private schedulePoll(): void {
    if (this.closed) return;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    const every = this.stateNow === 'arriving' ? this.o.pollMs : Math.min(this.o.pollMs, this.o.fastPollMs ?? 250);
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.poll().finally(() => {
        if (!this.pollTimer) this.schedulePoll();
      });
    }, every);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    let change: string;
    try {
      change = await this.o.readChange();
    } catch {
      return; // the database is away: the cluster link notices through its own calls
    }
    const before = this.seenChange;
    this.seenChange = change;
    if (before !== null && before !== change) this.o.onWake();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.probeTimer) clearInterval(this.probeTimer);
    const l = this.listener;
    this.listener = null;
    await l?.end().catch(() => undefined);
  }
}
