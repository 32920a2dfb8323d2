// The approvals table: an agent's requests, one row each — its record as
// JSON (core/approvals' ApprovalRecord, its id the row's) beside the columns
// it is found by (its run and the agent's ref, its state, when it was asked).
// Rows only: the journal wraps the writes in its transactions, with the
// events that explain them. Records read back are checked field by field.

import type Database from 'better-sqlite3';
import { ANSWER_VIAS, APPROVAL_STATES, VERDICTS, type ApprovalRecord, type Decider, type Question } from '../core/approvals.js';
import { arrayOf, bool, decodeAs, nullable, num, object, oneOf, str, strings, type Decoder } from './decode.js';

const nullStr = nullable(str);
const nullNum = nullable(num);
const verdict = oneOf(VERDICTS);

const decider: Decoder<Decider> = (v, key) => {
  const kind = typeof v === 'object' && v !== null ? (v as { kind?: unknown }).kind : undefined;
  if (kind === 'rule')
    return object<Decider>((d) => ({ kind: 'rule', rule: str(d.rule, 'rule'), list: oneOf(['allow', 'deny'] as const)(d.list, 'list') }))(v, key);
  if (kind === 'person') return object<Decider>((d) => ({ kind: 'person', via: oneOf(ANSWER_VIAS)(d.via, 'via'), who: nullStr(d.who, 'who') }))(v, key);
  return object<Decider>((d) => ({ kind: oneOf(['deadline'] as const)(d.kind, 'kind') }))(v, key);
};

const question = object<Question>((q) => ({
  question: str(q.question, 'question'),
  header: nullStr(q.header, 'header'),
  options: arrayOf(object<Question['options'][number]>((o) => ({ label: str(o.label, 'label'), description: nullStr(o.description, 'description') })))(
    q.options,
    'options',
  ),
  multi: bool(q.multi, 'multi'),
}));

/** The record without its id: the row's. */
type Stored = Omit<ApprovalRecord, 'id'>;

const record = object<Stored>((a) => ({
  run: str(a.run, 'run'),
  ref: str(a.ref, 'ref'),
  tool: str(a.tool, 'tool'),
  summary: str(a.summary, 'summary'),
  question: bool(a.question, 'question'),
  questions: nullable(arrayOf(question))(a.questions, 'questions'),
  always: nullStr(a.always, 'always'),
  asked_at: num(a.asked_at, 'asked_at'),
  deadline_at: nullNum(a.deadline_at, 'deadline_at'),
  on_timeout: verdict(a.on_timeout, 'on_timeout'),
  state: oneOf(APPROVAL_STATES)(a.state, 'state'),
  decided_at: nullNum(a.decided_at, 'decided_at'),
  by: nullable(decider)(a.by, 'by'),
  message: nullStr(a.message, 'message'),
  answers: nullable(strings)(a.answers, 'answers'),
  always_added: bool(a.always_added, 'always_added'),
  delivered: bool(a.delivered, 'delivered'),
}));

interface Row {
  id: number;
  record: string;
}

const approvalOf = (r: Row): ApprovalRecord => ({ id: r.id, ...decodeAs(record, JSON.parse(r.record), `record of request ${r.id}`) });

/** The record as stored: its id is the row's. */
function stored(a: Stored | ApprovalRecord): string {
  const { id: _id, ...rest } = a as ApprovalRecord;
  return JSON.stringify(rest);
}

export class ApprovalRows {
  private readonly stmts;

  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare<[string, string, string, number, string]>(`INSERT INTO approvals (run, ref, state, asked_at, record) VALUES (?, ?, ?, ?, ?)`),
      update: db.prepare<[string, string, number]>(`UPDATE approvals SET state = ?, record = ? WHERE id = ?`),
      get: db.prepare<[number], Row>(`SELECT id, record FROM approvals WHERE id = ?`),
      byRef: db.prepare<[string, string], Row>(`SELECT id, record FROM approvals WHERE run = ? AND ref = ?`),
      ofRun: db.prepare<[string], Row>(`SELECT id, record FROM approvals WHERE run = ? ORDER BY id`),
      pendingOfRun: db.prepare<[string], Row>(`SELECT id, record FROM approvals WHERE run = ? AND state = 'pending' ORDER BY id`),
      pending: db.prepare<[number], Row>(`SELECT id, record FROM approvals WHERE state = 'pending' ORDER BY asked_at, id LIMIT ?`),
      recent: db.prepare<[number], Row>(`SELECT id, record FROM approvals ORDER BY id DESC LIMIT ?`),
      deleteOfRun: db.prepare<[string]>(`DELETE FROM approvals WHERE run = ?`),
    };
  }

  /** A new request's row: its id. */
  insert(a: Stored): number {
    return Number(this.stmts.insert.run(a.run, a.ref, a.state, a.asked_at, stored(a)).lastInsertRowid);
  }

  update(a: ApprovalRecord): void {
    this.stmts.update.run(a.state, stored(a), a.id);
  }

  get(id: number): ApprovalRecord | null {
    const r = this.stmts.get.get(id);
    return r ? approvalOf(r) : null;
  }

  /** A run's request by its agent's ref, or null. */
  byRef(run: string, ref: string): ApprovalRecord | null {
    const r = this.stmts.byRef.get(run, ref);
    return r ? approvalOf(r) : null;
  }

  /** Every request of a run, oldest first. */
  ofRun(run: string): ApprovalRecord[] {
    return this.stmts.ofRun.all(run).map(approvalOf);
  }

  /** A run's pending requests, oldest first. */
  pendingOfRun(run: string): ApprovalRecord[] {
    return this.stmts.pendingOfRun.all(run).map(approvalOf);
  }

  /** The pending requests of the home, oldest first, at most `limit`. */
  pending(limit: number): ApprovalRecord[] {
    return this.stmts.pending.all(limit).map(approvalOf);
  }

  /** The home's newest requests, newest first, at most `limit`. */
  recent(limit: number): ApprovalRecord[] {
    return this.stmts.recent.all(limit).map(approvalOf);
  }

  /** A run's requests removed (retention: the run goes). */
  deleteOfRun(run: string): number {
    return this.stmts.deleteOfRun.run(run).changes;
  }
}
