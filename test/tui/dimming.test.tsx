// What only colour shows: while the supervisor is away the runs are greyed
// (SGR 2, dim) with their text unchanged, and only then. Colours are forced on
// (color-on.js, before Ink loads), so the frames carry the escape codes a
// terminal would get.

import './color-on.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { RunsTable } from '../../components/RunsTable.js';
import { reduceSnapshot } from '../../src/tui/state/reducers.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { builtinThemeDir, loadThemes } from '../../src/tui/view/theme.js';
import { run, T0 } from './fixtures.js';
import { renderPane, until } from './helpers.js';

afterEach(() => cleanup());

const DIM = '\x1b[2m';
// Every SGR sequence: what is left is the text a person reads.
const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');

describe('stale rows', () => {
  it('greys every row while the supervisor is away, and not while it is up; the text stays as it was', async () => {
    const names = ['build-api', 'chat-ui', 'later-1', 'old-job'];
    const runs = [
      run({ name: names[0], status: 'working', queue_seq: 1 }),
      run({ name: names[1], status: 'idle', queue_seq: 2 }),
      run({ name: names[2], status: 'queued', queue_seq: 3 }),
      run({ name: names[3], status: 'ended', exit_reason: 'killed', queue_seq: 0 }),
    ];
    const store = createTuiStore({ home: '/tmp/h', now: T0 + 120_000, theme: 'dark' });
    store.setState((s) => reduceSnapshot(s, { seq: 10, runs }, T0 + 120_000));
    store.setState({ conn: { state: 'up', pid: 1, startedAt: T0, error: null, since: T0, starting: false } });
    const theme = loadThemes([builtinThemeDir()]).themes.get('dark')!;
    const inst = renderPane(store, <RunsTable width={100} body={6} />, theme);
    const rows = (frame: string): string[] => frame.split('\n').filter((l) => names.some((n) => l.includes(n)));

    const up = await until(inst, (f) => rows(f).length === names.length);
    expect(up).toMatch(/\x1b\[(?:3[0-8]|9[0-7])[;m]/); // the theme's colours are on: the check below means something
    for (const r of rows(up)) expect(r).not.toContain(DIM);

    store.setState((s) => ({ conn: { ...s.conn, state: 'down' } }));
    const down = await until(inst, (f) => rows(f).length === names.length && rows(f).every((r) => r.includes(DIM)));
    expect(plain(down)).toBe(plain(up));

    store.setState((s) => ({ conn: { ...s.conn, state: 'up' } }));
    const back = await until(inst, (f) => rows(f).length === names.length && rows(f).every((r) => !r.includes(DIM)));
    expect(back).toBe(up);
  });
});
