// The approvals table through the journal: a request journaled once per run
// and agent ref, read back checked, found pending and by run; ids never
// reused in a home, retention's collection included; a record that does not
// read is named with the field.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../src/core/approvals.js';
import { newRun } from '../../src/core/run-record.js';
import { transition } from '../../src/core/run-state.js';
import { Journal } from '../../src/journal/journal.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function journal(): { j: Journal; file: string } {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'orcr-ja-'));
  dirs.push(d);
  const file = path.join(d, 'orcr.db');
  return { j: new Journal(file), file };
}

const request = (run: string, ref: string, asked = 1000): Omit<ApprovalRecord, 'id'> => ({
  run,
  ref,
  tool: 'Bash',
  summary: 'Bash: npm test',
  question: false,
  questions: null,
  always: null,
  asked_at: asked,
  deadline_at: asked + 60_000,
  on_timeout: 'deny',
  state: 'pending',
  decided_at: null,
  by: null,
  message: null,
  answers: null,
  always_added: false,
  delivered: false,
});

describe('the approvals table', () => {
  it('keeps a request, finds it by id, by its run and ref, pending across the home oldest first; a decision reads back with who made it', () => {
    const { j } = journal();
    const a = j.insertApproval(request('r1', 'req-a', 2000));
    const b = j.insertApproval(request('r2', 'req-b', 1000));
    const c = j.insertApproval({
      ...request('r1', 'req-c', 3000),
      question: true,
      questions: [{ question: 'Which?', header: null, options: [{ label: 'A', description: null }], multi: false }],
    });
    expect([a, b, c]).toEqual([1, 2, 3]);
    expect(j.approval(a)).toEqual({ id: a, ...request('r1', 'req-a', 2000) });
    expect(j.approvalByRef('r1', 'req-c')?.questions?.[0]?.options).toEqual([{ label: 'A', description: null }]);
    expect(j.approvalByRef('r2', 'req-a')).toBeNull();
    expect(j.pendingApprovals(10).map((x) => x.id)).toEqual([b, a, c]);
    const decided: ApprovalRecord = { ...j.approval(a)!, state: 'allowed', decided_at: 2500, by: { kind: 'person', via: 'tui', who: 'pts/1' } };
    j.updateApproval(decided);
    expect(j.approval(a)).toEqual(decided);
    expect(j.pendingApprovalsOf('r1').map((x) => x.id)).toEqual([c]);
    expect(j.approvalsOf('r1').map((x) => x.id)).toEqual([a, c]);
    expect(j.recentApprovals(2).map((x) => x.id)).toEqual([c, b]);
    // A request read twice (a restart re-reading output) is one row.
    expect(() => j.insertApproval(request('r1', 'req-a'))).toThrow(/UNIQUE/);
  });

  it('ids are never reused in a home: retention removes an ended run with its requests, and the next request gets a new id', () => {
    const { j } = journal();
    const r = newRun({ uuid: 'gone', name: 'gone', provider: 'p', workload: 'default', queue_seq: j.nextQueueSeq(), command: ['true'], cwd: '/', now: 1 });
    j.insertRun(r, { type: 'queued', data: { name: 'gone', provider: 'p', workload: 'default', queue_seq: r.queue_seq } });
    const id = j.insertApproval(request('gone', 'req'));
    j.updateRun(transition(r, 'ended', 10, { exit_reason: 'canceled' }), null);
    expect(j.retention.collectEnded(1_000_000, 10).uuids).toEqual(['gone']);
    expect(j.approval(id)).toBeNull();
    expect(j.insertApproval(request('other', 'req'))).toBe(id + 1);
  });

  it('a record that does not read is named with its field', () => {
    const { j, file } = journal();
    const id = j.insertApproval(request('r1', 'req'));
    j.close();
    const raw = new Database(file);
    raw.prepare(`UPDATE approvals SET record = json_set(record, '$.state', 'maybe') WHERE id = ?`).run(id);
    raw.close();
    const again = new Journal(file);
    expect(() => again.approval(id)).toThrow(
      `the journal's record of request ${id} does not read: state: expected one of pending, allowed, denied, withdrawn, found "maybe"`,
    );
    again.close();
  });
});
