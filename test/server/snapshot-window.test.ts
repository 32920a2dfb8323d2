// A subscriber's snapshot with `ended`: every active run, and only the newest
// ended ones, that many (the TUI asks for the window of ended runs it keeps:
// with 10,000 runs in a home, the rest was parsed only to be dropped, and its
// memory peaked on them). total and truncated say what was left out.

import { describe, expect, it } from 'vitest';
import { useLiveHomes } from '../support/in-process.js';

const home = useLiveHomes();

interface Snap {
  runs: { name: string; status: string }[];
  total: number;
  truncated: boolean;
}

describe('the snapshot, windowed', () => {
  it('sends every active run and the newest `ended` ended ones; without it, every run (up to its bound)', async () => {
    const h = await home({ concurrency: { max: 1 } });
    await h.run(['-n', 'holder', '--', 'sleep', '30']);
    const killed = [];
    for (let i = 0; i < 4; i++) killed.push(await h.run(['-n', `gone-${i}`, '--', 'true']));
    await h.run(['-n', 'waiting', '--', 'true']);
    await h.kill(killed.map((r) => r.uuid));

    const names = (s: Snap): string[] => s.runs.map((r) => r.name);
    const two = await h.call<Snap>('subscribe', { snapshot: true, ended: 2 });
    expect(names(two)).toEqual(['holder', 'gone-2', 'gone-3', 'waiting']);
    expect(two).toMatchObject({ total: 6, truncated: true });

    const none = await h.call<Snap>('subscribe', { snapshot: true, ended: 0 });
    expect(names(none)).toEqual(['holder', 'waiting']);
    expect(none.truncated).toBe(true);

    const all = await h.call<Snap>('subscribe', { snapshot: true });
    expect(names(all)).toEqual(['holder', 'gone-0', 'gone-1', 'gone-2', 'gone-3', 'waiting']);
    expect(all).toMatchObject({ total: 6, truncated: false });

    for (const bad of [-1, 1.5, 'ten', 2_000_000]) await expect(h.call('subscribe', { snapshot: true, ended: bad })).rejects.toThrow(/ended/);
  });
});
