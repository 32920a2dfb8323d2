// A request as it arrives (what is journaled of it, decided by rules or
// pending until its deadline), the run blocked on it and back at work, a
// person's answer checked against it, and when `wait` goes on through it.
// Pure: no journal, no agent.

import { describe, expect, it } from 'vitest';
import { checkAnswer, MESSAGE_MAX } from '../../src/core/approval-answers.js';
import { blockOnRequest, boundedQuestions, newApproval, unblockIfAnswered } from '../../src/core/approval-intake.js';
import { decidedInTime, mergePolicies, type ApprovalPolicy, type Ask, type Question } from '../../src/core/approvals.js';
import { newRun } from '../../src/core/run-record.js';
import { transition } from '../../src/core/run-state.js';

const policy = (p: Parameters<typeof mergePolicies>[0][number]): ApprovalPolicy => {
  const m = mergePolicies([p]);
  if ('error' in m) throw new Error(m.error);
  return m;
};
const ask = (over: Partial<Ask> = {}): Ask => ({
  ref: 'req-1',
  tool: 'Bash',
  subject: 'npm test',
  tool_use_id: 't1',
  size: null,
  questions: null,
  always: null,
  ...over,
});
const at = { run: 'u1', cwd: '/w', home: '/home/me', now: 1000 };
const question = (q: string, labels: string[], multi = false): Question => ({
  question: q,
  header: null,
  options: labels.map((label) => ({ label, description: null })),
  multi,
});

describe('a request as it arrives', () => {
  it('nothing matching: pending for a person, its deadline from the policy, nothing decided yet', () => {
    expect(newApproval(ask(), { ...at, policy: policy({ timeout_ms: 5000, on_timeout: 'allow' }) })).toEqual({
      run: 'u1',
      ref: 'req-1',
      tool: 'Bash',
      summary: 'Bash: npm test',
      question: false,
      questions: null,
      always: null,
      asked_at: 1000,
      deadline_at: 6000,
      on_timeout: 'allow',
      state: 'pending',
      decided_at: null,
      by: null,
      message: null,
      answers: null,
      always_added: false,
      delivered: false,
    });
    expect(newApproval(ask(), { ...at, policy: policy({ timeout_ms: null }) }).deadline_at).toBeNull();
  });

  it('a rule decides it at once, and says which; a decided one has no deadline', () => {
    const allowed = newApproval(ask({ always: 'Bash(npm test)' }), { ...at, policy: policy({ allow: ['Bash(npm:*)'] }) });
    expect(allowed).toMatchObject({
      state: 'allowed',
      by: { kind: 'rule', rule: 'Bash(npm:*)', list: 'allow' },
      decided_at: 1000,
      deadline_at: null,
      always: 'Bash(npm test)',
    });
    expect(newApproval(ask(), { ...at, policy: policy({ deny: ['Bash'] }) })).toMatchObject({ state: 'denied', by: { list: 'deny' } });
  });

  it("a question is a person's, its questions kept bounded and escaped", () => {
    const long = 'Which \u001b[31mdatabase\u001b[0m? ' + 'x'.repeat(500);
    const q = newApproval(ask({ tool: 'AskUserQuestion', subject: null, questions: [question(long, ['Postgres', 'SQL\nite'])] }), {
      ...at,
      policy: policy({ allow: ['AskUserQuestion'] }),
    });
    expect(q).toMatchObject({ state: 'pending', question: true });
    expect(q.summary).toMatch(/^question: Which \\x1b\[31mdatabase\\x1b\[0m\? x+…$/);
    expect(q.questions![0]!.question.length).toBeLessThanOrEqual(160);
    expect(q.questions![0]!.options.map((o) => o.label)).toEqual(['Postgres', 'SQL\\nite']);
    expect(boundedQuestions([])).toBeNull();
    expect(boundedQuestions(Array.from({ length: 30 }, () => question('q', ['a'])))).toHaveLength(10);
  });
});

describe('the run and its requests', () => {
  const working = transition(
    transition(newRun({ uuid: 'u1', name: 'r', provider: 'p', workload: 'w', queue_seq: 1, command: ['x'], cwd: '/', now: 0 }), 'starting', 1),
    'working',
    2,
  );

  it('a request blocks a working run (kind approval, its slot kept); a run already blocked on one stays as it is', () => {
    const b = blockOnRequest(working, 10);
    expect(b.run).toMatchObject({ status: 'blocked', blocked_kind: 'approval', status_at: 10 });
    expect(b.event).toEqual({ type: 'blocked', data: { from: 'working', kind: 'approval', retry_after_s: null } });
    expect(blockOnRequest(b.run, 20)).toEqual({ run: b.run, event: null });
  });

  it('a limit block gives way to a request: the agent waits for the answer first', () => {
    const limited = transition(working, 'blocked', 5, { blocked_kind: 'limit' });
    expect(blockOnRequest(limited, 10)).toMatchObject({ run: { status: 'blocked', blocked_kind: 'approval' }, event: { data: { from: 'blocked' } } });
  });

  it('back at work once nothing of it is pending; another block or a pending request keeps it', () => {
    const blocked = blockOnRequest(working, 10).run;
    expect(unblockIfAnswered(blocked, 1, 20)).toEqual({ run: blocked, event: null });
    expect(unblockIfAnswered(blocked, 0, 20)).toMatchObject({ run: { status: 'working', blocked_kind: null, status_at: 20 }, event: { type: 'working' } });
    const limited = transition(working, 'blocked', 5, { blocked_kind: 'limit' });
    expect(unblockIfAnswered(limited, 0, 20).event).toBeNull();
    expect(unblockIfAnswered(working, 0, 20).event).toBeNull();
  });

  it('`wait` goes on through requests that each have a deadline, and settles on one that has none', () => {
    expect(decidedInTime([{ deadline_at: 5 }, { deadline_at: 9 }])).toBe(true);
    expect(decidedInTime([{ deadline_at: 5 }, { deadline_at: null }])).toBe(false);
    expect(decidedInTime([])).toBe(false);
  });
});

describe("a person's answer, checked", () => {
  const tool = { id: 4, question: false, always: 'Bash(npm test)' };
  const asks = { id: 5, question: true, always: null };
  const qs = [question('Which database?', ['Postgres', 'SQLite']), question('Which checks?', ['Lint', 'Tests', 'Types'], true)];

  it('allow and deny; a message goes with a denial, "always" with an allow the agent offers a rule for', () => {
    expect(checkAnswer(tool, null, { verdict: 'allow' })).toEqual({ verdict: 'allow', message: null, answers: null, always: false });
    expect(checkAnswer(tool, null, { verdict: 'deny', message: 'no' })).toEqual({ verdict: 'deny', message: 'no', answers: null, always: false });
    expect(checkAnswer(tool, null, { verdict: 'allow', always: true })).toMatchObject({ always: true });
    expect(checkAnswer(tool, null, { verdict: 'allow', message: 'x' })).toEqual({ error: expect.stringMatching(/denial only/) });
    expect(checkAnswer(tool, null, { verdict: 'deny', always: true })).toEqual({ error: expect.stringMatching(/allow only/) });
    expect(checkAnswer({ ...tool, always: null }, null, { verdict: 'allow', always: true })).toEqual({
      error: expect.stringMatching(/request 4 offers no rule/),
    });
    expect(checkAnswer(tool, null, { verdict: 'deny', message: 'x'.repeat(MESSAGE_MAX + 1) })).toEqual({ error: expect.stringMatching(/longer than/) });
    // A control character but a newline or a tab: refused, whoever answers; the agent is told plain text.
    for (const c of ['\x1b', '\x07', '\r', '\x7f', '\u009b'])
      expect(checkAnswer(tool, null, { verdict: 'deny', message: `no${c}[2J` })).toEqual({ error: expect.stringMatching(/control character/) });
    expect(checkAnswer(tool, null, { verdict: 'deny', message: 'no:\n\tuse the fixtures' })).toMatchObject({ message: 'no:\n\tuse the fixtures' });
    expect(checkAnswer(tool, null, { verdict: 'allow', answers: ['a'] })).toEqual({ error: 'request 4 asks no question: it takes allow or deny' });
  });

  it("a question's answers: one per question, each an option it offers (several for a multi-select, joined as the agent reads them)", () => {
    expect(checkAnswer(asks, qs, { verdict: 'allow', answers: ['SQLite', ['Lint', 'Tests']] })).toEqual({
      verdict: 'allow',
      message: null,
      answers: ['SQLite', 'Lint, Tests'],
      always: false,
    });
    expect(checkAnswer(asks, qs, { verdict: 'deny', message: 'decide yourself' })).toMatchObject({ verdict: 'deny', answers: null });
  });

  it('a label not offered, too few answers, or two for a one-answer question: refused, the options listed', () => {
    const wrong = checkAnswer(asks, qs, { verdict: 'allow', answers: ['MySQL', 'Lint'] });
    expect(wrong).toEqual({ error: '"MySQL" is not an option of question 1 (one of "Postgres", "SQLite")' });
    const few = checkAnswer(asks, qs, { verdict: 'allow' });
    expect(few).toEqual({
      error:
        'request 5 asks 2 questions: give one answer to each: 1. Which database? (one of "Postgres", "SQLite"); 2. Which checks? (one or more of "Lint", "Tests", "Types")',
    });
    expect(checkAnswer(asks, qs, { verdict: 'allow', answers: [['Postgres', 'SQLite'], 'Lint'] })).toEqual({
      error: 'question 1 takes one answer, not 2 (one of "Postgres", "SQLite")',
    });
    expect(checkAnswer(asks, qs, { verdict: 'allow', answers: [[], 'Lint'] })).toEqual({ error: expect.stringMatching(/chooses nothing/) });
    // A question that offers no options takes any text.
    expect(checkAnswer(asks, [question('Name it', [])], { verdict: 'allow', answers: ['anything'] })).toMatchObject({ answers: ['anything'] });
  });
});
