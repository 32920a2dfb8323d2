// `orcr approve ID --answer …`: each --answer, in order, answers the question
// at its place — an option's label as the request shows it, or its number
// (as `orcr approvals` numbers them); a multi-select question takes several,
// separated by commas (`--answer Lint,Tests`, `--answer 1,2`), unless the
// whole value is one label. The supervisor checks the labels against the
// agent's own again; a label the request shows cut or escaped goes to it as
// given, since only the agent's exact one can match.

import type { Question } from '../core/approvals.js';
import { previewValue } from '../text/json-text.js';
import { optionsText } from './approval-text.js';

/** The answers an approve sends, one per question. */
export type Answers = (string | string[])[];

/** `the question "Which database?"`, `question 2 ("Which checks?")`: how a refusal names a question. */
const named = (q: Question, i: number, of: number): string => (of === 1 ? `the question "${q.question}"` : `question ${i + 1} ("${q.question}")`);

/** A question's option at a label or a number, or null. */
function option(q: Question, word: string): string | null {
  const labels = q.options.map((o) => o.label);
  if (labels.includes(word)) return word;
  const n = /^\d+$/.test(word) ? Number(word) : 0;
  return n >= 1 && n <= labels.length ? labels[n - 1]! : null;
}

/** Its labels may differ from the agent's: cut (…) or with characters written out. */
const shownOtherwise = (q: Question): boolean => q.options.some((o) => o.label.endsWith('…') || o.label.includes('\\'));

function answerTo(q: Question, value: string, i: number, of: number): string | string[] | { error: string } {
  if (q.options.length === 0) return value;
  const whole = option(q, value.trim());
  if (whole !== null) return q.multi ? [whole] : whole;
  if (q.multi) {
    const picked = value.split(',').map((w) => option(q, w.trim()));
    if (picked.every((p) => p !== null)) return [...new Set(picked)];
  }
  if (shownOtherwise(q)) return value;
  return { error: `${previewValue(value)} is not an option of ${named(q, i, of)}: ${optionsText(q)}` };
}

/**
 * The --answer values as the answers to a request's questions, or what is
 * wrong: none given to a question, a count that is not one per question, a
 * value no option is.
 */
export function chosenAnswers(id: number, questions: readonly Question[], given: readonly string[]): Answers | { error: string } {
  const of = questions.length;
  if (given.length === 0) {
    const what = of === 1 ? `a question: ${questions[0]!.question} — ${optionsText(questions[0]!)}` : `${of} questions: ${listed(questions)}`;
    return { error: `request ${id} asks ${what}; approve it with --answer LABEL or the option's number${of === 1 ? '' : ', once per question in order'}` };
  }
  if (given.length !== of) {
    return {
      error: `request ${id} asks ${of === 1 ? 'one question' : `${of} questions`}, and --answer was given ${given.length} times: once per question, in order: ${listed(questions)}`,
    };
  }
  const out: Answers = [];
  for (const [i, q] of questions.entries()) {
    const a = answerTo(q, given[i]!, i, of);
    if (typeof a === 'object' && !Array.isArray(a)) return a;
    out.push(a);
  }
  return out;
}

function listed(questions: readonly Question[]): string {
  return questions.map((q, i) => `${i + 1}. ${q.question} (${optionsText(q)})`).join('; ');
}
