// Events as an async iterator: the journal's replay from a seq, then the live
// stream, in order and without repeats; across a supervisor restart it picks
// up from the last seq it gave out. Its own connection: a subscription turns
// a connection into a stream, which must not mix with a program's calls.

import { Client } from '../client/client.js';
import type { Home } from '../config/home.js';
import type { RunEvent } from '../core/events.js';
import { RemoteError } from '../protocol/errors.js';
import type { PublicRun } from '../protocol/views.js';
import { OrcrError, toOrcrError } from './errors.js';

export interface EventItem {
  event: RunEvent;
  /**
   * The run: as of this event for a live one; for a replayed one, its
   * current row. Null for an event of no run, or of a run gc has removed.
   */
  run: PublicRun | null;
}

type Step = { item: EventItem } | { error: unknown } | { end: true };

export function subscribe(home: Home, since: number): AsyncIterableIterator<EventItem> {
  const queue: Step[] = [];
  let wake: (() => void) | null = null;
  let client: Client | null = null;
  let closed = false;
  let last = since;
  const push = (s: Step): void => {
    queue.push(s);
    wake?.();
    wake = null;
  };
  const emit = (event: RunEvent, run: PublicRun | null): void => {
    if (event.seq <= last) return;
    last = event.seq;
    push({ item: { event, run } });
  };

  async function follow(first: boolean): Promise<void> {
    const c = first ? await Client.connect(home) : await Client.reconnect(home);
    if (closed) return c.close();
    client = c;
    // Live events may come in the same read as the reply, before its replay: held until the replay is out.
    let held: EventItem[] | null = [];
    c.onEvent((m) => (held ? held.push({ event: m.event, run: m.run }) : emit(m.event, m.run)));
    c.onClose((stopped) => {
      if (closed) return;
      if (stopped) push({ error: new OrcrError('stopped', 'the supervisor was stopped (orcr server stop); no more events') });
      else follow(false).catch((e) => push({ error: toOrcrError(e) }));
    });
    const res = await c.call<{ seq: number; events: RunEvent[]; more?: boolean; pruned?: { first_seq: number } }>('subscribe', { since: last });
    if (res.pruned) {
      // As `events --follow` says it, but a program must choose to skip the hole: it resubscribes from there.
      const first = res.pruned.first_seq;
      throw new OrcrError('pruned', `events ${last + 1}–${first - 1} were removed by retention (retention.ended, orcr gc); subscribe({ since: ${first - 1} }) follows from ${first}`, { firstSeq: first });
    }
    // Replayed events carry no row: each run's current one, looked up once per replay.
    const rows = new Map<string, PublicRun | null>();
    const replay = async (events: RunEvent[]): Promise<void> => {
      const missing = [...new Set(events.map((e) => e.run).filter((u): u is string => u !== null && !rows.has(u)))];
      await Promise.all(missing.map(async (uuid) => rows.set(uuid, await currentRow(c, uuid))));
      for (const e of events) emit(e, e.run === null ? null : (rows.get(e.run) ?? null));
    };
    await replay(res.events);
    for (let more = res.more === true; more; ) {
      const page = await c.call<{ events: RunEvent[] }>('events', { since: last });
      await replay(page.events);
      more = page.events.length > 0 && last < res.seq;
    }
    for (const h of held) emit(h.event, h.run);
    held = null;
  }

  const stop = (): void => {
    closed = true;
    client?.close();
    push({ end: true });
  };
  follow(true).catch((e) => push({ error: toOrcrError(e) }));

  const it: AsyncIterableIterator<EventItem> = {
    async next() {
      while (queue.length === 0) await new Promise<void>((r) => (wake = r));
      const s = queue.shift()!;
      if ('item' in s) return { value: s.item, done: false };
      if ('error' in s) {
        stop();
        throw s.error;
      }
      queue.unshift(s);
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

/** The run's public row now; null when it is gone (gc removed it). */
async function currentRow(c: Client, uuid: string): Promise<PublicRun | null> {
  try {
    return (await c.call<{ run: PublicRun }>('run.get', { ref: uuid })).run;
  } catch (e) {
    if (e instanceof RemoteError && e.code === 'not_found') return null;
    throw e;
  }
}
