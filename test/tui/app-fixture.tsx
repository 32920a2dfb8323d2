// The App over a small fleet (a working, an idle, a queued and an ended run,
// one global cap), with Actions that record each call: what the App's tests
// press keys at.

import './no-ci.js';
import { render } from 'ink-testing-library';
import { App } from '../../src/tui/app.js';
import { createTuiStore, type TuiStore } from '../../src/tui/state/store.js';
import { reduceSnapshot } from '../../src/tui/state/reducers.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { run, statsOf, T0 } from './fixtures.js';
import { fakeActions, type Call } from './helpers.js';

export const themes = loadThemes([builtinThemeDir()]);

export function setupApp(rows = 30): { store: TuiStore; calls: Call[]; exits: number[]; inst: ReturnType<typeof render> } {
  const working = run({ name: 'worker-a', status: 'working', queue_seq: 1 });
  const idle = run({ name: 'idler-b', status: 'idle', queue_seq: 2, interactive: true });
  const queued = run({ name: 'waiter-c', status: 'queued', queue_seq: 3 });
  const ended = run({ name: 'done-d', status: 'ended', exit_reason: 'completed', queue_seq: 0 });
  const store = createTuiStore({ home: '/tmp/h', now: T0 + 5000, theme: 'dark' });
  store.setState((s) => reduceSnapshot(s, { seq: 10, runs: [working, idle, queued, ended] }, T0 + 5000));
  store.setState({
    conn: { state: 'up', pid: 99, startedAt: T0, error: null, since: T0, starting: false },
    stats: statsOf({
      caps: [{ cap: 'global', limit: 2, active: 2, holders: [working.uuid, idle.uuid], queued: 1, oldest_wait_ms: 4000, waiting: [queued.uuid] }],
      queued: 1,
      active: 2,
    }),
  });
  const calls: Call[] = [];
  const exits: number[] = [];
  const inst = render(<App store={store} actions={fakeActions(calls)} themes={themes} onExit={() => exits.push(1)} size={{ columns: 100, rows }} />);
  return { store, calls, exits, inst };
}
