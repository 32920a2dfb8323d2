// Every run event the supervisor broadcasts carries the run's row as of that
// event, and the TUI's model takes it as it comes: after a burst of events of
// every kind, each row the TUI holds is the row `orcr show --json` prints.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/client/client.js';
import { ensureHome } from '../../src/config/home.js';
import type { PublicRun } from '../../src/protocol/views.js';
import type { ParamsOf } from '../../src/protocol/methods.js';
import { Controller } from '../../src/tui/connection/controller.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { until } from '../support/harness.js';
import { Home, MOCK_AGENT } from './home.js';

let home: Home | null = null;
let controller: Controller | null = null;
let client: Client | null = null;

afterEach(() => {
  controller?.stop();
  controller = null;
  client?.close();
  client = null;
  home?.cleanup();
  home = null;
});

const agent = (scenario: string, turns: number, extra: string[] = []): string[] => [
  process.execPath,
  MOCK_AGENT,
  '--format',
  'jsonl',
  '--scenario',
  scenario,
  '--turns',
  String(turns),
  '--delay',
  '30',
  ...extra,
];

describe('events carry their row', () => {
  it('after a burst of events, every row the TUI holds equals orcr show --json of that run', async () => {
    home = new Home({ concurrency: { max: 4 } });
    const h = home;
    const store = createTuiStore({ home: h.dir });
    controller = new Controller(store, ensureHome(h.dir), { quiet: true, cwd: h.dir, statsIntervalMs: 200 });
    controller.start();
    // Subscribed before the burst: every row below comes from the stream, not from a snapshot.
    await until(() => store.getState().conn.state === 'up', 'the TUI connected');
    expect(store.getState().runs.byId).toEqual({});

    client = await Client.connect(ensureHome(h.dir));
    const cwd = h.dir;
    const specs: ParamsOf<'run.enqueue'>['specs'] = [
      ...Array.from({ length: 6 }, (_, i) => ({ name: `work-${i}`, protocol: 'jsonl', cwd, command: agent('work', 3) })),
      ...Array.from({ length: 2 }, (_, i) => ({ name: `crash-${i}`, protocol: 'jsonl', cwd, command: agent('crash', 2) })),
      // A turn ceiling below what the agent does: stop_requested, then ended by budget.
      { name: 'over-budget', protocol: 'jsonl', cwd, max_turns: 1, command: agent('work', 6) },
      { name: 'chat', protocol: 'jsonl', cwd, interactive: true, command: agent('interactive', 1) },
      ...Array.from({ length: 3 }, (_, i) => ({ name: `exit-${i}`, cwd, command: ['sh', '-c', `exit ${i}`] })),
      ...Array.from({ length: 4 }, (_, i) => ({ name: `sleeper-${i}`, cwd, command: ['sleep', '30'] })),
    ];
    const { runs } = await client.call('run.enqueue', { specs });
    const uuid = (name: string): string => runs.find((r) => r.name === name)!.uuid;
    // Two sleepers canceled while they wait, one killed while it works.
    await client.call('run.kill', { refs: [uuid('sleeper-2'), uuid('sleeper-3')] });
    await until(() => h.ps().find((r) => r.name === 'sleeper-0')?.status === 'working', 'a sleeper working', 30_000);
    await client.call('run.kill', { refs: [uuid('sleeper-0')] });
    // Input to the interactive agent once it is idle (input_sent and the turn it starts), then it ends.
    await until(() => h.ps().find((r) => r.name === 'chat')?.status === 'idle', 'chat idle', 30_000);
    await client.call('run.send', { ref: uuid('chat'), text: 'one more thing' });
    await until(
      () => {
        const c = h.ps().find((r) => r.name === 'chat');
        return c?.status === 'idle' && c.input_seq === 1;
      },
      'chat done with the input',
      30_000,
    );
    await client.call('run.kill', { refs: [uuid('chat'), uuid('sleeper-1')] });

    await until(() => h.ps().every((r) => r.status === 'ended'), 'every run ended', 60_000);
    const { seq } = await client.call('server.status');
    await until(() => store.getState().runs.seq >= seq, `the TUI to apply every event up to seq ${seq}`);

    const held = store.getState().runs.byId;
    expect(Object.keys(held).sort()).toEqual(runs.map((r) => r.uuid).sort());
    const reasons = new Set<string | null>();
    for (const r of runs) {
      const shown = h.json<PublicRun>(['show', r.uuid]);
      expect({ name: r.name, row: held[r.uuid] }).toEqual({ name: r.name, row: shown });
      reasons.add(shown.exit_reason);
    }
    // The burst had what it was meant to have.
    expect([...reasons].sort()).toEqual(expect.arrayContaining(['budget', 'canceled', 'completed', 'errored', 'killed']));
    const types = new Set(
      store
        .getState()
        .log.slice(0, store.getState().log.size)
        .map((e) => e.type),
    );
    for (const t of ['queued', 'starting', 'working', 'idle', 'ended', 'stop_requested', 'input_sent']) expect(types).toContain(t);
  });
});
