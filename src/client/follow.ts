// The event stream from a seq, for every client that follows it (`orcr
// events --follow`, the SDK's subscribe): the journal's replay from `since`,
// by pages when it is long, then the live stream, in order and without
// repeats; across a supervisor restart it picks up from the last seq it gave
// out (reconnecting, never starting a supervisor). Its own connection: a
// subscription turns a connection into a stream, which must not mix with a
// program's calls. A deliberate stop ends it with RemoteError `stopped`.

import type { Home } from '../config/home.js';
import type { RunEvent } from '../core/events.js';
import { RemoteError } from '../protocol/errors.js';
import { Client } from './client.js';
import type { PublicRun } from './methods.js';

export interface FollowItem {
  event: RunEvent;
  /**
   * The run: as of this event for a live one; for a replayed one, its current
   * row when asked for (`rows`), else null. Null for an event of no run, or of
   * a run gc has removed.
   */
  run: PublicRun | null;
  /** The run's name (live: its row's; replayed: as the reply names it), or null. */
  name: string | null;
}

export interface FollowOptions {
  /** Replay what came after this seq (0: the whole journal). */
  since: number;
  /** Look up each replayed event's run as it is now (one run.get per run per replay page). */
  rows?: boolean;
  /**
   * Retention removed events after `since`: `from` is the first one asked for,
   * `firstSeq` the oldest kept. Return to go on from `firstSeq`; throw to end
   * the stream with that error.
   */
  onPruned(from: number, firstSeq: number): void;
  /** Start a supervisor for the first connection when none runs (default true); reconnecting never does. */
  autoStart?: boolean;
}

type Step = { item: FollowItem } | { error: unknown } | { end: true };

/** The steps as they come, handed out in order: items, then the end, or an error that stops the follow. */
class Steps {
  private readonly queue: Step[] = [];
  private wake: (() => void) | null = null;

  push(s: Step): void {
    this.queue.push(s);
    this.wake?.();
    this.wake = null;
  }

  iterator(stop: () => void): AsyncIterableIterator<FollowItem> {
    const it: AsyncIterableIterator<FollowItem> = {
      next: async () => {
        while (this.queue.length === 0) await new Promise<void>((r) => (this.wake = r));
        const s = this.queue.shift()!;
        if ('item' in s) return { value: s.item, done: false };
        if ('error' in s) {
          stop();
          throw s.error;
        }
        this.queue.unshift(s);
        return { value: undefined, done: true };
      },
      async return() {
        stop();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return it;
      },
    };
    return it;
  }
}

type Emit = (event: RunEvent, run: PublicRun | null, name: string | null) => void;

/** Emits replayed events, each with its run's row as it is now when `withRows` (one run.get per run). */
function replayer(c: Client, withRows: boolean, emit: Emit): (events: RunEvent[], names: Record<string, string> | undefined) => Promise<void> {
  const rows = new Map<string, PublicRun | null>();
  return async (events, names) => {
    if (withRows) {
      const missing = [...new Set(events.map((e) => e.run).filter((u): u is string => u !== null && !rows.has(u)))];
      await Promise.all(missing.map(async (uuid) => rows.set(uuid, await currentRow(c, uuid))));
    }
    for (const e of events) {
      const run = e.run === null ? null : (rows.get(e.run) ?? null);
      emit(e, run, run?.name ?? nameIn(names, e));
    }
  };
}

export function follow(home: Home, opts: FollowOptions): AsyncIterableIterator<FollowItem> {
  const steps = new Steps();
  let client: Client | null = null;
  let closed = false;
  let last = opts.since;
  const emit: Emit = (event, run, name) => {
    if (event.seq <= last) return;
    last = event.seq;
    steps.push({ item: { event, run, name } });
  };

  async function attach(first: boolean): Promise<void> {
    const c = first ? await Client.connect(home, { autoStart: opts.autoStart ?? true }) : await Client.reconnect(home);
    if (closed) return c.close();
    client = c;
    // Live events may come in the same read as the reply, before its replay: held until the replay is out.
    let held: FollowItem[] | null = [];
    c.onEvent((m) => {
      const item = { event: m.event, run: m.run, name: m.run?.name ?? null };
      if (held) held.push(item);
      else emit(item.event, item.run, item.name);
    });
    c.onClose((stopped) => {
      if (closed) return;
      if (stopped) steps.push({ error: new RemoteError('stopped', 'the supervisor was stopped (orcr server stop); no more events') });
      else attach(false).catch((e: unknown) => steps.push({ error: e }));
    });
    const res = await c.call('subscribe', { since: last });
    if (res.pruned) opts.onPruned(last + 1, res.pruned.first_seq);
    const replay = replayer(c, opts.rows === true, emit);
    await replay(res.events ?? [], res.names);
    // A replay longer than a page: the rest by pages, live events held meanwhile.
    for (let more = res.more === true; more;) {
      const page = await c.call('events', { since: last });
      await replay(page.events, page.names);
      more = page.events.length > 0 && last < res.seq;
    }
    for (const h of held) emit(h.event, h.run, h.name);
    held = null;
  }

  const stop = (): void => {
    closed = true;
    client?.close();
    steps.push({ end: true });
  };
  attach(true).catch((e: unknown) => steps.push({ error: e }));
  return steps.iterator(stop);
}

/** The name of an event's run, from the names a reply carries. */
export const nameIn = (names: Record<string, string> | undefined, e: RunEvent): string | null =>
  e.run !== null && names && Object.hasOwn(names, e.run) ? names[e.run]! : null;

/** The run's public row now; null when it is gone (gc removed it). */
async function currentRow(c: Client, uuid: string): Promise<PublicRun | null> {
  try {
    return (await c.call('run.get', { ref: uuid })).run;
  } catch (e) {
    if (e instanceof RemoteError && e.code === 'not_found') return null;
    throw e;
  }
}
