// The header counts what waits for a person (`⚑ 3 to approve`) whatever the
// width: on a narrow terminal the run counts lose their words before it goes.

import './no-ci.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { Header } from '../../components/Header.js';
import { createTuiStore } from '../../src/tui/state/store.js';
import { reduceRequestList, reduceSnapshot } from '../../src/tui/state/reducers.js';
import type { PublicApproval } from '../../src/protocol/views.js';
import { run, T0 } from './fixtures.js';
import { lines, renderPane } from './helpers.js';

afterEach(() => cleanup());

const NOW = T0 + 60_000;

const request = (id: number, name: string): PublicApproval => ({
  id,
  run: `uuid-${name}`,
  name,
  tool: 'Bash',
  summary: 'Bash: npm test',
  question: false,
  questions: null,
  always: null,
  state: 'pending',
  asked_at: new Date(T0 + id * 1000).toISOString(),
  deadline_at: null,
  on_timeout: 'deny',
  decided_at: null,
  by: null,
  decided_by: null,
  message: null,
  answers: null,
  always_added: false,
  delivered: false,
});

describe('the header and the requests waiting', () => {
  it('says ⚑ N to approve and that ! opens the queue; at 80 columns the counts lose their words first', () => {
    const statuses = ['queued', 'starting', 'working', 'idle', 'blocked', 'ended'] as const;
    const runs = statuses.map((status, i) => run({ uuid: `uuid-r${i}`, name: `r${i}`, status, ...(status === 'blocked' ? { blocked_kind: 'approval' } : {}) }));
    const store = createTuiStore({ home: '/tmp/orcr-home', now: NOW });
    store.setState((s) => reduceSnapshot(s, { seq: 10, runs, events: [] }, NOW));
    store.setState({ conn: { state: 'up', pid: 4321, startedAt: T0, error: null, since: T0, starting: false } });
    store.setState((s) => reduceRequestList(s, [request(1, 'r4'), request(2, 'r4'), request(3, 'r4')], true));

    const wide = lines(renderPane(store, <Header width={160} />).lastFrame()!);
    expect(wide[1]).toMatch(/▲ 1 blocked · ■ 1 ended \(6\)\s+│ ⚑ 3 to approve \(! opens\)$/);
    cleanup();
    const narrow = lines(renderPane(store, <Header width={80} />).lastFrame()!);
    expect(narrow[1]).toContain('│ ⚑ 3 to approve');
    expect(narrow[1]).toMatch(/^○ 1 · ◐ 1 · ● 1 · ◇ 1 · ▲ 1 · ■ 1 \(6\)/);
  });
});
