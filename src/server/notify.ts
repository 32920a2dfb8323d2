// Telling a person that runs need them (config `notify`): every committed
// event is offered here; the notable ones (core/notify-policy.ts) are batched
// for `notify.batch`, and each batch goes to every configured sink through
// its own queue. Hearing an event costs a lookup and, for a notable one, a
// view of its run; delivery happens off the supervisor's path entirely.

import { Batcher, MAX_BATCH_ITEMS, notableKind, summarize, type Batch, type NotifyEvent, type SummaryItem } from '../core/notify-policy.js';
import type { Run } from '../core/types.js';
import type { RunEvent } from '../core/events.js';
import type { Config } from '../config/load.js';
import { safeLine } from '../text/terminal-text.js';
import { SinkQueue } from './notify-queue.js';
import { commandSink, desktopSink, findNotifySend, ntfySink, webhookSink, type Message, type Sink } from './notify-sinks.js';
import type { PublicRun } from '../protocol/views.js';

export type NotifyConfig = NonNullable<Config['notify']>;

/** A run as a notification shows it: the public view without the agent's last words (they may quote a secret it read). */
type NotifiedRun = Omit<PublicRun, 'last_text'>;

interface Item extends SummaryItem {
  seq: number;
  at: number;
  run: NotifiedRun | null;
}

export interface NotifierDeps {
  log: (msg: string) => void;
  /** A run's public view, as clients see it. */
  view: (run: Run) => PublicRun;
  /** A run's row by uuid, for an event committed without one. */
  lookup: (uuid: string) => Run | null;
  now: () => number;
}

export class Notifier {
  private config: NotifyConfig | null = null;
  private events = new Set<NotifyEvent>();
  private batcher = new Batcher<Item>(5_000);
  private timer: NodeJS.Timeout | null = null;
  private queues = new Map<string, SinkQueue>();
  private desktopMissingTold = false;
  private stopped = false;

  constructor(private readonly deps: NotifierDeps) {}

  /** Follow a (re)loaded config: its sinks, its events and its batch window from now on. */
  setConfig(cfg: NotifyConfig | undefined): void {
    this.config = cfg ?? null;
    this.events = new Set(cfg?.events ?? []);
    this.batcher.setBatchMs(cfg?.batch ?? 0);
    const sinks = cfg ? this.sinksOf(cfg) : [];
    const keep = new Set(sinks.map((s) => s.key));
    for (const [key, q] of this.queues) {
      if (!keep.has(key)) {
        q.close();
        this.queues.delete(key);
      }
    }
    for (const s of sinks) if (!this.queues.has(s.key)) this.queues.set(s.key, new SinkQueue(s, this.deps.log));
    // An open batch is due by the new window (or goes now, if nobody is to be told any more).
    if (this.batcher.dueAt() !== null) this.arm();
  }

  private sinksOf(cfg: NotifyConfig): Sink[] {
    const out: Sink[] = [];
    if (cfg.webhook) out.push(webhookSink(cfg.webhook));
    if (cfg.ntfy) out.push(ntfySink(cfg.ntfy));
    if (cfg.command) out.push(commandSink(cfg.command));
    if (cfg.desktop) {
      const bin = findNotifySend();
      if (bin) out.push(desktopSink(bin));
      else if (!this.desktopMissingTold) {
        this.desktopMissingTold = true;
        this.deps.log(
          "notify: notify.desktop is on, but notify-send is not on the supervisor's PATH: no desktop notifications (orcr-tui still tells its own terminal)",
        );
      }
    }
    return out;
  }

  /** A committed event (heard through the run store's reader). Never throws: a notification is not worth a failed transition. */
  onEvent(event: RunEvent, row: Run | null): void {
    if (this.stopped || this.queues.size === 0) return;
    try {
      const run = row ?? (event.run ? this.deps.lookup(event.run) : null);
      const kind = notableKind({ type: event.type, data: event.data, run });
      if (kind === null || !this.events.has(kind)) return;
      let view: NotifiedRun | null = null;
      if (run) {
        const { last_text: _words, ...rest } = this.deps.view(run);
        view = rest;
      }
      this.batcher.add({ kind, seq: event.seq, at: event.ts, type: event.type, data: event.data, name: run?.name ?? null, run: view }, this.deps.now());
      if (this.timer === null) this.arm();
    } catch (e) {
      this.deps.log(`notify: event ${event.seq} not considered: ${(e as Error)?.stack ?? String(e)}`);
    }
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    const due = this.batcher.dueAt();
    if (due === null) {
      this.timer = null;
      return;
    }
    this.timer = setTimeout(() => this.flush(), Math.max(0, due - this.deps.now()));
    this.timer.unref();
  }

  private flush(): void {
    this.timer = null;
    const batch = this.batcher.take(this.deps.now());
    if (batch === null) {
      this.arm();
      return;
    }
    if (this.queues.size === 0) return;
    const msg = render(batch);
    for (const q of this.queues.values()) q.push(msg);
  }

  /** Stop: pending notifications are dropped (the process is going away). */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const q of this.queues.values()) q.close();
    this.queues.clear();
  }
}

/** The webhook's JSON (a command's stdin) and the one line for ntfy and the desktop. */
function render(batch: Batch<Item>): Message {
  const text = safeLine(summarize(batch)).slice(0, 1000);
  const payload = {
    source: 'orcr',
    summary: text,
    count: batch.items.length + batch.omitted,
    omitted: batch.omitted,
    max_listed: MAX_BATCH_ITEMS,
    events: batch.items.map((i) => ({ event: i.kind, seq: i.seq, at: new Date(i.at).toISOString(), type: i.type, data: i.data, run: i.run })),
  };
  return { json: JSON.stringify(payload), text };
}
