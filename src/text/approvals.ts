// What a run's requests read as, for `ps`, `show` and the TUI alike: the WHY
// of a run blocked on them (`approve Bash: npm test +2 more`, `answer: Which
// database?`), the mark of a run whose agent CLI refused tools by itself
// (`⊘ 2 denied`), and one request's line in `show`. Pure: the supervisor's
// summaries are bounded and escaped already (core/approval-summary.ts).

import type { PublicApproval, PublicRun } from '../protocol/views.js';

/** The oldest pending request of a run blocked on them, as its WHY; null for any other run. */
export function askingText(r: Pick<PublicRun, 'status' | 'blocked_kind'> & { asking?: PublicRun['asking'] }): string | null {
  const a = r.asking;
  if (r.status !== 'blocked' || r.blocked_kind !== 'approval' || !a) return null;
  const head = a.question ? `answer: ${a.summary.replace(/^question: /, '')}` : `approve ${a.summary}`;
  return a.more > 0 ? `${head} +${a.more} more` : head;
}

/** `⊘ 2 denied`: tool calls its agent CLI refused by its own settings; null for none (older supervisors send no count). */
export function denialsMark(r: { denials?: number }): string | null {
  return r.denials ? `⊘ ${r.denials} denied` : null;
}

/** What a request's line in `show` reads: this machine's, or another's as published (`id` then `b:12`; what its deadline decides may be unknown). */
export type ShownApproval = Pick<
  PublicApproval,
  'state' | 'summary' | 'question' | 'deadline_at' | 'decided_by' | 'decided_at' | 'message' | 'answers' | 'always' | 'always_added'
> & {
  id: number | string;
  on_timeout: PublicApproval['on_timeout'] | null;
};

/** One request in `show`: `#12 allowed Bash: npm test — by the CLI (pts/3) at 10:42:01Z` and the denial's words, if any. */
export function approvalLine(a: ShownApproval): string {
  const decides = a.on_timeout === null ? '' : ` (${a.on_timeout})`;
  const when = a.state === 'pending' ? (a.deadline_at ? `, decided by its deadline${decides} at ${a.deadline_at}` : ', no deadline') : '';
  const by = a.decided_by
    ? ` — by ${a.decided_by}${a.decided_at ? ` at ${a.decided_at}` : ''}`
    : a.state === 'withdrawn' && a.decided_at
      ? ` — at ${a.decided_at}`
      : '';
  const said = a.message ? `: "${a.message}"` : a.answers ? `: ${a.answers.map((x) => `"${x}"`).join(', ')}` : '';
  const always = a.always_added && a.always ? ` (always: ${a.always})` : '';
  // Another machine's request is named as it is typed back (`b:12`), this machine's `#12`.
  const id = typeof a.id === 'number' ? `#${a.id}` : a.id;
  return `${id} ${a.state} ${a.summary}${when}${by}${said}${always}`;
}
