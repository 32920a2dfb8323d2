// A person's answer to a request, checked before it is decided: a verdict,
// a denial's words, a question's chosen options (each one the agent
// offered), allowed "always". Pure: the answering room turns what is
// refused here into a usage error.

import { bounded } from './approval-summary.js';
import type { ApprovalRecord, Question, Verdict } from './approvals.js';

/** The most a denial's words to the model may hold. */
export const MESSAGE_MAX = 2000;

/** What a denial's words may not hold: a control character but the newline and the tab (the agent reads them, and every screen shows them). */
export const MESSAGE_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** An answer as a person gives it: a question's answers one per question, several labels for a multi-select one. */
export interface GivenAnswer {
  verdict: Verdict;
  message?: string | null;
  answers?: readonly (string | readonly string[])[] | null;
  always?: boolean;
}

/** An answer as it is decided and sent: a multi-select's labels joined as the agent reads them. */
export interface CheckedAnswer {
  verdict: Verdict;
  message: string | null;
  answers: string[] | null;
  always: boolean;
}

/**
 * The answer checked against the request. `questions` are the agent's own,
 * exact (not the record's escaped ones): a label must be one it offered,
 * as it wrote it. A question that offers no options takes any text.
 */
export function checkAnswer(
  a: Pick<ApprovalRecord, 'id' | 'question' | 'always'>,
  questions: readonly Question[] | null,
  given: GivenAnswer,
): CheckedAnswer | { error: string } {
  const message = given.message ?? null;
  if (message !== null && given.verdict !== 'deny') return { error: 'a message goes with a denial only (it is what the agent is told)' };
  if (message !== null && message.length > MESSAGE_MAX) return { error: `the message is longer than ${MESSAGE_MAX} characters` };
  if (message !== null && MESSAGE_CONTROL.test(message))
    return { error: 'the message holds a control character: the agent is told plain text (newlines and tabs aside)' };
  const always = given.always === true;
  if (always && given.verdict !== 'allow') return { error: '"always" goes with allow only' };
  if (always && a.always === null) return { error: `request ${a.id} offers no rule to allow the like of it from now on` };
  const answers = given.answers ?? null;
  if (answers !== null && (!a.question || given.verdict !== 'allow')) {
    return { error: a.question ? 'answers go with allow (a denial answers no question)' : `request ${a.id} asks no question: it takes allow or deny` };
  }
  if (!a.question || given.verdict === 'deny') return { verdict: given.verdict, message, answers: null, always };
  const qs = questions ?? [];
  if (answers === null || answers.length !== qs.length) {
    const wanted = qs.map((q, i) => `${i + 1}. ${bounded(q.question)} (${optionList(q)})`).join('; ');
    return { error: `request ${a.id} asks ${qs.length === 1 ? 'a question' : `${qs.length} questions`}: give one answer to each: ${wanted}` };
  }
  const out: string[] = [];
  for (const [i, q] of qs.entries()) {
    const one = answerTo(q, answers[i]!, i);
    if (typeof one !== 'string') return one;
    out.push(one);
  }
  return { verdict: 'allow', message: null, answers: out, always };
}

/** One question's answer: its labels checked and, for a multi-select, joined (Claude Code reads `A, B`). */
function answerTo(q: Question, given: string | readonly string[], i: number): string | { error: string } {
  const labels = typeof given === 'string' ? [given] : [...given];
  if (labels.length === 0) return { error: `answer ${i + 1} chooses nothing (${optionList(q)})` };
  if (labels.length > 1 && !q.multi) return { error: `question ${i + 1} takes one answer, not ${labels.length} (${optionList(q)})` };
  if (q.options.length > 0) {
    const offered = new Set(q.options.map((o) => o.label));
    const bad = labels.find((l) => !offered.has(l));
    if (bad !== undefined) return { error: `${JSON.stringify(bad).slice(0, 200)} is not an option of question ${i + 1} (${optionList(q)})` };
  }
  return labels.join(', ');
}

function optionList(q: Question): string {
  if (q.options.length === 0) return 'any text';
  const list = q.options.map((o) => JSON.stringify(o.label)).join(', ');
  return `${q.multi ? 'one or more of' : 'one of'} ${list}`;
}
