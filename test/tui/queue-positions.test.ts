// The place in the queue the TUI shows is the supervisor's: the TUI's real
// connection (Controller, snapshot, stream) on a real supervisor started in
// this process, its store and its rendered runs list held against each
// queued run's queue_position as `orcr ps` gives it, through what moves
// places without an event about the run (a higher priority queued ahead,
// the head started, the priorities changed). In a cluster the queue is the
// cluster's: a run of this machine waits behind another machine's, and the
// TUI, which holds only this machine's runs, shows the place the cluster gives.

import './no-ci.js';
import React from 'react';
import { render } from 'ink-testing-library';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureHome } from '../../src/config/home.js';
import { App } from '../../src/tui/app.js';
import { Controller } from '../../src/tui/connection/controller.js';
import { createTuiStore, type TuiStore } from '../../src/tui/state/store.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { until } from '../support/harness.js';
import { useLiveHomes, type LiveHome } from '../support/in-process.js';
import { onPg, PgServer, pgNeed } from '../support/pg.js';
import { describeWhen } from '../support/skip.js';

const home = useLiveHomes();

interface Tui {
  store: TuiStore;
  frame(): string;
  close(): void;
}

let open: Tui[] = [];
afterEach(() => {
  for (const t of open) t.close();
  open = [];
});

/** The TUI on a home: its store, and its frames as drawn. Stats are asked for seldom: the places must not need them. */
function tui(h: LiveHome): Tui {
  const store = createTuiStore({ home: h.dir });
  const ctl = new Controller(store, ensureHome(h.dir), { env: { TERM: 'xterm' }, cwd: h.dir, statsIntervalMs: 3_600_000 });
  ctl.start();
  const inst = render(
    React.createElement(App, { store, actions: ctl, themes: loadThemes([builtinThemeDir()]), onExit: () => undefined, size: { columns: 160, rows: 30 } }),
  );
  const t: Tui = {
    store,
    frame: () => (inst.lastFrame() ?? '').replace(/\x1b\[[0-9;]*m/g, ''),
    close: () => {
      inst.unmount();
      ctl.stop();
    },
  };
  open.push(t);
  return t;
}

/** This home's queued runs by name → queue_position, as the supervisor gives it. */
async function places(h: LiveHome): Promise<Map<string, number | null>> {
  return new Map((await h.ps()).filter((r) => r.status === 'queued').map((r) => [r.name, r.queue_position]));
}

/** What the TUI shows for the same runs: the place in its store, and the `#N` on the run's line of the list. */
function shown(t: Tui, names: Iterable<string>): Map<string, number | null> {
  const s = t.store.getState();
  const lines = t.frame().split('\n');
  const out = new Map<string, number | null>();
  for (const name of names) {
    const r = Object.values(s.runs.byId).find((x) => x.name === name && x.status === 'queued');
    const pos = r ? (s.view.positions[r.uuid] ?? null) : null;
    // The run's row: its name, then provider/workload, then the QUEUE column (the limiter pane may name it further along the line).
    const drawn = lines.map((l) => new RegExp(`○ queued .*\\s${name}\\s+\\S+\\s+#(\\d+)\\s`).exec(l)?.[1]).find((d) => d !== undefined);
    // The list draws what the store holds, or the test says which differs.
    out.set(name, drawn !== undefined && Number(drawn) === pos ? pos : (`store ${pos}, drawn ${drawn ?? 'none'}` as unknown as number));
  }
  return out;
}

/** Until the supervisor gives these places (null: any), then until the TUI shows every queued run at the supervisor's place. */
async function agree(t: Tui, h: LiveHome, what: string, expected: Map<string, number> | null = null): Promise<Map<string, number | null>> {
  let want = new Map<string, number | null>();
  const same = (a: Map<string, number | null>, b: Map<string, number | null>): boolean => a.size === b.size && [...a].every(([n, p]) => b.get(n) === p);
  if (expected) await until(async () => same(await places(h), expected), `${what}: the supervisor's places`);
  await until(
    async () => {
      want = await places(h);
      return same(shown(t, want.keys()), want) ? true : null;
    },
    () => `${what}: the supervisor says ${JSON.stringify([...want])}, the TUI shows ${JSON.stringify([...shown(t, want.keys())])}\n${t.frame()}`,
  );
  return want;
}

describe('the place in the queue the TUI shows', () => {
  it("is the supervisor's, as places move without an event about the run", async () => {
    const h = await home({ concurrency: { max: 1, workloads: { urgent: { priority: 5 } } } });
    await h.run(['-n', 'busy', '--', 'sleep', '600']);
    await until(async () => (await h.show('busy')).status === 'working', 'the slot to be taken');
    for (const n of ['n1', 'n2']) await h.run(['-n', n, '--', 'sleep', '600']);
    await h.run(['-n', 'u1', '-w', 'urgent', '--', 'sleep', '600']);
    const t = tui(h);
    expect(await agree(t, h, 'at the start')).toEqual(
      new Map([
        ['n1', 2],
        ['n2', 3],
        ['u1', 1],
      ]),
    );

    await h.run(['-n', 'u2', '-w', 'urgent', '--', 'sleep', '600']);
    const ahead = new Map([
      ['n1', 3],
      ['n2', 4],
      ['u1', 1],
      ['u2', 2],
    ]);
    expect(await agree(t, h, 'a higher priority queued', ahead)).toEqual(ahead);

    await h.kill(['busy']);
    const started = new Map([
      ['n1', 2],
      ['n2', 3],
      ['u2', 1],
    ]);
    expect(await agree(t, h, 'the head started', started)).toEqual(started);

    h.writeConfig({ concurrency: { max: 1, workloads: { urgent: { priority: 5 }, default: { priority: 9 } } } });
    const turned = new Map([
      ['n1', 1],
      ['n2', 2],
      ['u2', 3],
    ]);
    expect(await agree(t, h, 'the priorities changed', turned)).toEqual(turned);
  });
});

const need = pgNeed();
let server: PgServer;

describeWhen(need, `the place in a cluster's queue the TUI shows ${onPg()}`, () => {
  beforeAll(async () => {
    if (need.reason === null) server = await PgServer.start();
  }, 60_000);
  afterAll(async () => {
    await server?.destroy();
  });

  it("counts the runs of other machines ahead of this one's, as the cluster does", async () => {
    // Both supervisors share this process's event loop with the TUI: with a short lease_ttl a stall
    // under CI's load let the busy run's lease lapse, the other machine's run took the slot, and this
    // machine's run was first in a queue of one (CI saw 1 for 2). Nothing here waits on a lapse.
    const cluster = { url: server.url, name: `tui-places-${process.pid}`, lease_ttl: '10m' };
    const m1 = await home({ concurrency: { max: 1 }, cluster: { ...cluster, host: 'm1' } });
    const m2 = await home({ concurrency: { max: 1 }, cluster: { ...cluster, host: 'm2' } });
    await m1.run(['-n', 'busy', '--', 'sleep', '600']);
    await until(async () => (await m1.show('busy')).status === 'working', 'the slot to be taken');
    await m2.run(['-n', 'theirs', '--', 'sleep', '600']);
    await until(async () => (await m2.show('theirs')).queue_position === 1, "the other machine's run at the head");
    await m1.run(['-n', 'mine', '--', 'sleep', '600']);
    const t = tui(m1);
    // Alone among this machine's runs, yet second in the cluster's queue.
    expect(await agree(t, m1, "behind the other machine's run")).toEqual(new Map([['mine', 2]]));
    // The other machine's run leaves the queue with no event here: this one moves up.
    await m2.kill(['theirs']);
    expect(await agree(t, m1, "the other machine's run gone", new Map([['mine', 1]]))).toEqual(new Map([['mine', 1]]));
  });
});
