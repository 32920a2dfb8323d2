// The queue positions the supervisor pushes: a subscriber with `rows` is sent
// every queued run's place in admission order once, then the places that
// moved (a higher priority queued ahead, the head started, a queued run
// canceled, the priorities changed), each the run's queue_position as its
// view gives it; a place gone is null. A subscriber without `rows` is sent
// none. The supervisor runs in this process, behind its real socket.

import { describe, expect, it } from 'vitest';
import { Client, type RowsMessage } from '../../src/client/client.js';
import { ensureHome } from '../../src/config/home.js';
import { until } from '../support/harness.js';
import { useLiveHomes, type LiveHome } from '../support/in-process.js';

const home = useLiveHomes();

const config = (urgent: number) => ({ concurrency: { max: 1, workloads: { urgent: { priority: urgent } } } });

/** A subscriber that keeps what the positions messages said, merged, and each message's places. */
async function subscriber(h: LiveHome, rows = true): Promise<{ places: Map<string, number | null>; messages: Record<string, number | null>[]; close(): void }> {
  const c = await Client.connect(ensureHome(h.dir), { autoStart: false });
  const places = new Map<string, number | null>();
  const messages: Record<string, number | null>[] = [];
  c.onRows((m: RowsMessage) => {
    if (!m.positions) return;
    messages.push(m.positions);
    for (const [u, p] of Object.entries(m.positions)) places.set(u, p);
  });
  await c.call('subscribe', { snapshot: true, rows });
  return { places, messages, close: () => c.close() };
}

/** Every queued run's queue_position, as `orcr ps` shows it. */
async function shown(h: LiveHome): Promise<Map<string, number | null>> {
  return new Map((await h.ps()).filter((r) => r.status === 'queued').map((r) => [r.uuid, r.queue_position]));
}

/** The places a subscriber holds for the queued runs: what it last heard for each. */
const held = (places: Map<string, number | null>, queued: Map<string, number | null>): Map<string, number | null> =>
  new Map([...queued.keys()].map((u) => [u, places.get(u) ?? null]));

describe('queue positions, pushed', () => {
  it("all places once, then the ones that moved, each the run view's queue_position", async () => {
    const h = await home(config(5));
    const busy = await h.run(['-n', 'busy', '--', 'sleep', '30']);
    await until(async () => (await h.show(busy.uuid)).status === 'working', 'the slot to be taken');
    const n1 = await h.run(['-n', 'n1', '--', 'sleep', '30']);
    const n2 = await h.run(['-n', 'n2', '--', 'sleep', '30']);
    const u1 = await h.run(['-n', 'u1', '-w', 'urgent', '--', 'sleep', '30']);
    const sub = await subscriber(h);
    const quiet = await subscriber(h, false);
    try {
      // The first message holds every queued run's place.
      await until(() => sub.messages.length > 0, 'the first positions');
      expect(sub.messages[0]).toEqual({ [u1.uuid]: 1, [n1.uuid]: 2, [n2.uuid]: 3 });
      expect(held(sub.places, await shown(h))).toEqual(await shown(h));

      // A run of the higher priority goes ahead of n1 and n2: only the places that moved are sent.
      const u2 = await h.run(['-n', 'u2', '-w', 'urgent', '--', 'sleep', '30']);
      await until(() => sub.places.get(n2.uuid) === 4, 'n2 to move back');
      expect(sub.messages.at(-1)).toEqual({ [u2.uuid]: 2, [n1.uuid]: 3, [n2.uuid]: 4 });
      expect((await h.show(u2.uuid)).queue_position).toBe(2);

      // A queued run canceled: its place is gone (null), those behind it move up.
      await h.kill([u1.uuid]);
      await until(() => sub.places.get(u1.uuid) === null, 'u1 to have no place');
      expect(held(sub.places, await shown(h))).toEqual(
        new Map([
          [u2.uuid, 1],
          [n1.uuid, 2],
          [n2.uuid, 3],
        ]),
      );

      // The head starts when the slot comes free: everyone moves up, without an event about them.
      await h.kill([busy.uuid]);
      await until(() => sub.places.get(n2.uuid) === 2, 'n2 to move up');
      expect((await h.show(u2.uuid)).status).not.toBe('queued');
      expect(held(sub.places, await shown(h))).toEqual(await shown(h));

      // The priorities change (config.json): the order turns round.
      const u3 = await h.run(['-n', 'u3', '-w', 'urgent', '--', 'sleep', '30']);
      await until(() => sub.places.get(u3.uuid) === 1 && sub.places.get(n2.uuid) === 3, 'u3 ahead');
      const before = sub.messages.length;
      h.writeConfig({ concurrency: { max: 1, workloads: { urgent: { priority: 5 }, default: { priority: 9 } } } });
      await until(() => sub.messages.length > before && sub.places.get(u3.uuid) === 3, 'the new order');
      expect(held(sub.places, await shown(h))).toEqual(
        new Map([
          [n1.uuid, 1],
          [n2.uuid, 2],
          [u3.uuid, 3],
        ]),
      );
      expect(await shown(h)).toEqual(
        new Map([
          [n1.uuid, 1],
          [n2.uuid, 2],
          [u3.uuid, 3],
        ]),
      );

      expect(quiet.messages).toEqual([]);
    } finally {
      sub.close();
      quiet.close();
    }
  });

  it('a subscriber that comes later is sent every place, whatever moved before it came', async () => {
    const h = await home(config(5));
    const busy = await h.run(['-n', 'busy', '--', 'sleep', '30']);
    await until(async () => (await h.show(busy.uuid)).status === 'working', 'the slot to be taken');
    const first = await subscriber(h);
    try {
      const a = await h.run(['-n', 'a', '--', 'sleep', '30']);
      await until(() => first.places.get(a.uuid) === 1, 'a at the head');
      const b = await h.run(['-n', 'b', '-w', 'urgent', '--', 'sleep', '30']);
      await until(() => first.places.get(a.uuid) === 2, 'a behind b');
      const late = await subscriber(h);
      try {
        await until(() => late.messages.length > 0, "the late one's positions");
        expect(late.messages[0]).toEqual({ [b.uuid]: 1, [a.uuid]: 2 });
      } finally {
        late.close();
      }
    } finally {
      first.close();
    }
  });
});
