// What a client follows: pages of events, the subscription (snapshot, replay,
// then live), and waits on runs.

import { PAGE } from '../../protocol/wire.js';
import { RemoteError } from '../../protocol/errors.js';
import type { SubscribeResult } from '../../protocol/results.js';
import type { HandlerFamily } from './context.js';

export const streamHandlers: HandlerFamily<'events' | 'subscribe' | 'run.wait'> = {
  events: (p, { reads, queries }) => {
    const events = reads.eventsSince(p.since ?? 0, Math.min(p.limit ?? PAGE, PAGE));
    return { events, names: queries.eventNames(events) };
  },
  subscribe: (p, { reads, queries, conn }) => {
    // Snapshot and replay are computed synchronously, and the journal only
    // commits on this same thread, so no event can fall between them.
    const out: SubscribeResult = { seq: reads.lastSeq() };
    if (p.snapshot) {
      const snap = reads.snapshot(p.ended);
      out.runs = snap.runs.map((r) => queries.view(r));
      out.total = snap.total;
      out.truncated = out.total > out.runs.length;
    }
    if (p.since !== undefined) {
      // At most a page: a client that gets a full one reads the rest with `events` (and holds live ones meanwhile).
      out.events = reads.eventsSince(p.since, PAGE);
      out.more = out.events.length === PAGE;
      out.names = queries.eventNames(out.events);
      // Retention removed what came after `since`: say so, so the client takes the snapshot instead of a history with a hole.
      const first = reads.firstSeq();
      if (first > p.since + 1) out.pruned = { first_seq: first };
    }
    conn.subscribe(p.rows === true);
    return out;
  },
  'run.wait': async (p, { tree, queries, waits, conn }) => {
    const uuids = p.all ? tree.waitAllTargets(p.caller_env?.ORCR_RUN) : (p.refs ?? []).map((r) => queries.resolve(r).uuid);
    if (uuids.length === 0 && !p.all) throw new RemoteError('usage', 'wait needs at least one run or --all');
    return { settled: await waits.wait(uuids, p.timeout_ms ?? null, conn.signal, p.caller_env?.ORCR_RUN) };
  },
};
