// The run store's unit of work against a real SQLite journal: a failure in the
// middle of a transition leaves memory exactly as the journal has it.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newRun } from '../../src/core/run-record.js';
import { transition } from '../../src/core/run-state.js';
import { event, type EventOf } from '../../src/core/events.js';
import type { Run } from '../../src/core/types.js';
import { Journal, JournalUnavailable } from '../../src/journal/journal.js';
import { RunStore } from '../../src/server/run-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function open(): { journal: Journal; store: RunStore } {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-store-'));
  dirs.push(d);
  const journal = new Journal(path.join(d, 'orcr.db'));
  return { journal, store: new RunStore(journal) };
}

const run = (j: Journal, name: string): Run =>
  newRun({ uuid: `uuid-${name}`, name, provider: 'p', workload: 'default', queue_seq: j.nextQueueSeq(), command: ['true'], cwd: '/', now: 1_000 });

const queued = (r: Run): EventOf<'queued'> => event('queued', { name: r.name, provider: r.provider, workload: r.workload, queue_seq: r.queue_seq });
const starting = event('starting', { from: 'queued' });

/** Memory as the store holds it, and the journal's active rows: they must agree. */
function agree(journal: Journal, store: RunStore): void {
  const fromJournal = journal.activeRuns().map((r) => [r.uuid, r.status]);
  const fromMemory = [...store.active()].map((r) => [r.uuid, r.status]);
  expect(fromMemory.sort()).toEqual(fromJournal.sort());
  for (const r of journal.activeRuns()) expect(store.get(r.uuid)).toEqual(r);
}

/** From now on every write that needs a new page fails with SQLITE_FULL, as on a full disk. */
function fillDisk(journal: Journal): void {
  const pages = journal.db.pragma('page_count', { simple: true }) as number;
  journal.db.pragma(`max_page_count = ${pages}`);
}

describe('RunStore', () => {
  it('memory changes only after the commit: a journal failure in the middle of a transition leaves memory equal to the journal', () => {
    const { journal, store } = open();
    const a = run(journal, 'a');
    store.insert(a, queued(a), 1, null);
    const b = run(journal, 'b');
    store.insert(b, queued(b), 1, null);
    let applied = 0;
    fillDisk(journal);
    // Promote a, then write a big event for b that needs pages the "disk" does not have.
    expect(() =>
      store.transaction(() => {
        const next = transition(a, 'starting', 2);
        store.save(next, starting);
        // Within the unit of work, its own writes are seen.
        expect(store.get(a.uuid)?.status).toBe('starting');
        store.afterCommit(() => applied++);
        store.save({ ...b, last_text: 'x'.repeat(200_000) }, event('input_failed', { error: 'y'.repeat(200_000) }));
      }),
    ).toThrow(JournalUnavailable);
    expect(applied).toBe(0);
    expect(store.get(a.uuid)?.status).toBe('queued');
    agree(journal, store);

    // The disk has room again: the same unit of work commits, and memory follows.
    journal.db.pragma('max_page_count = 1073741823');
    store.transaction(() => {
      store.save(transition(a, 'starting', 2), starting);
      store.afterCommit(() => applied++);
    });
    expect(applied).toBe(1);
    expect(store.get(a.uuid)?.status).toBe('starting');
    agree(journal, store);
  });

  it('an ended run leaves the active set and frees its name, after the commit', () => {
    const { journal, store } = open();
    const a = run(journal, 'twin');
    store.insert(a, queued(a), 1, null);
    expect(store.holderOfName('twin')).toBe(a.uuid);
    store.transaction(() => {
      store.save(transition(a, 'ended', 3, { exit_reason: 'canceled' }), event('ended', { from: 'queued', reason: 'canceled', detail: null, exit_code: null }));
      expect(store.get(a.uuid)).toBeUndefined();
      // Committed state until the commit.
      expect(store.holderOfName('twin')).toBe(a.uuid);
    });
    expect(store.holderOfName('twin')).toBeUndefined();
    expect(store.lookup(a.uuid)?.status).toBe('ended');
    agree(journal, store);
  });

  it('an event alone is heard with the run as it stands', () => {
    const { journal, store } = open();
    const a = run(journal, 'a');
    store.insert(a, queued(a), 1, null);
    const heard: (Run | null)[] = [];
    journal.onEvent((_e, r) => heard.push(r));
    store.event(a.uuid, event('input_sent', { input_seq: 1, bytes: 5 }));
    expect(heard).toEqual([a]);
  });

  it('refuses to start a unit of work inside a journal transaction it does not own', () => {
    const { journal, store } = open();
    expect(() => journal.transaction(() => store.transaction(() => 1))).toThrow(/unit of work/);
  });
});
