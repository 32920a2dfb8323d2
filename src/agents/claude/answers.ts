// orcr's answer to Claude Code's can_use_tool request: the `control_response`
// line the CLI waits for on stdin. The CLI exits at once on a line that is not
// JSON, and denies the call on an answer it cannot read ("invalid permission
// result"): the line is built by JSON.stringify alone, and holds only what
// the CLI's schema takes.

import type { AgentAnswer } from '../protocol.js';
import { isObject, type JsonObject } from '../util.js';
import { answerableQuestions, isAllowRules } from './asks.js';

/** The CLI requires a denial's message; the model reads it as the tool's error. */
const DEFAULT_DENIAL = 'denied by orcr';

export function answerLine(ref: string, answer: AgentAnswer, asked: { input: unknown; offers: unknown }): string {
  return JSON.stringify({ type: 'control_response', response: { subtype: 'success', request_id: ref, response: decision(answer, asked) } }) + '\n';
}

function decision(answer: AgentAnswer, asked: { input: unknown; offers: unknown }): JsonObject {
  if (answer.verdict === 'deny') return { behavior: 'deny', message: answer.message?.trim() ? answer.message : DEFAULT_DENIAL };
  // The input sent back is what runs: the original, whole (an absent or empty one runs it too, but says less).
  const input = isObject(asked.input) ? asked.input : {};
  const out: JsonObject = { behavior: 'allow', updatedInput: answer.answers ? withAnswers(input, answer.answers) : input };
  const permissions = answer.always ? sessionRules(asked.offers) : [];
  if (permissions.length > 0) out.updatedPermissions = permissions;
  return out;
}

/** AskUserQuestion's answers: keyed by each question's text (a key that is not one reads as no answer to the model). */
function withAnswers(input: JsonObject, answers: readonly string[]): JsonObject {
  const keyed = answerableQuestions(input).flatMap((q, i) => (typeof answers[i] === 'string' ? [[q.question as string, answers[i]] as const] : []));
  // fromEntries, not assignment: a question worded `__proto__` stays a key.
  return { ...input, answers: Object.fromEntries(keyed) };
}

/**
 * The allowing rules the CLI offered, kept for the session only: its own
 * destination (localSettings) would write them into .claude/ in the run's
 * work tree. Its other offers (a mode that lets every edit through, whole
 * directories) reach much further than a rule, and are not sent.
 */
function sessionRules(offers: unknown): JsonObject[] {
  if (!Array.isArray(offers)) return [];
  return offers.filter(isAllowRules).map((o) => ({ ...o, destination: 'session' }));
}
