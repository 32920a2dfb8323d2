// A run's requests in words, as ps, show and the TUI word them.

import { describe, expect, it } from 'vitest';
import { approvalLine, askingText, denialsMark } from '../../src/text/approvals.js';
import type { PublicApproval } from '../../src/protocol/views.js';

const blocked = { status: 'blocked', blocked_kind: 'approval' } as const;
const asking = (over: Partial<NonNullable<Parameters<typeof askingText>[0]['asking']>> = {}) => ({
  id: 3,
  summary: 'Bash: npm test',
  question: false,
  deadline_at: null,
  more: 0,
  ...over,
});

describe('a run blocked on its requests', () => {
  it('reads `approve TOOL: …`, `answer: …` for a question, `+N more` when several wait; nothing for another run', () => {
    expect(askingText({ ...blocked, asking: asking() })).toBe('approve Bash: npm test');
    expect(askingText({ ...blocked, asking: asking({ more: 2 }) })).toBe('approve Bash: npm test +2 more');
    expect(askingText({ ...blocked, asking: asking({ question: true, summary: 'question: Which database? (+1 more)' }) })).toBe(
      'answer: Which database? (+1 more)',
    );
    expect(askingText({ status: 'blocked', blocked_kind: 'limit', asking: null })).toBeNull();
    expect(askingText({ status: 'working', blocked_kind: null })).toBeNull();
  });

  it('marks the CLI refusals, and nothing for none (or an older supervisor that sends no count)', () => {
    expect(denialsMark({ denials: 2 })).toBe('⊘ 2 denied');
    expect(denialsMark({ denials: 0 })).toBeNull();
    expect(denialsMark({})).toBeNull();
  });
});

describe('a request in show', () => {
  const base: PublicApproval = {
    id: 12,
    run: 'u',
    name: 'r',
    tool: 'Bash',
    summary: 'Bash: npm test',
    question: false,
    questions: null,
    always: 'Bash(npm test)',
    state: 'pending',
    asked_at: '2026-01-01T10:00:00.000Z',
    deadline_at: '2026-01-01T11:00:00.000Z',
    on_timeout: 'deny',
    decided_at: null,
    by: null,
    decided_by: null,
    message: null,
    answers: null,
    always_added: false,
    delivered: false,
  };

  it('says its state, when its deadline decides it, who decided it and what they said', () => {
    expect(approvalLine(base)).toBe('#12 pending Bash: npm test, decided by its deadline (deny) at 2026-01-01T11:00:00.000Z');
    expect(approvalLine({ ...base, deadline_at: null })).toBe('#12 pending Bash: npm test, no deadline');
    const decided = { ...base, state: 'allowed' as const, decided_at: '2026-01-01T10:01:00.000Z', decided_by: 'the CLI (pts/3)' };
    expect(approvalLine({ ...decided, always_added: true })).toBe(
      '#12 allowed Bash: npm test — by the CLI (pts/3) at 2026-01-01T10:01:00.000Z (always: Bash(npm test))',
    );
    expect(approvalLine({ ...decided, state: 'denied', message: 'no' })).toBe(
      '#12 denied Bash: npm test — by the CLI (pts/3) at 2026-01-01T10:01:00.000Z: "no"',
    );
    expect(approvalLine({ ...base, state: 'allowed', question: true, answers: ['SQLite'], decided_by: 'the TUI' })).toBe(
      '#12 allowed Bash: npm test — by the TUI: "SQLite"',
    );
    expect(approvalLine({ ...base, state: 'withdrawn', decided_at: '2026-01-01T10:02:00.000Z' })).toBe(
      '#12 withdrawn Bash: npm test — at 2026-01-01T10:02:00.000Z',
    );
  });
});
