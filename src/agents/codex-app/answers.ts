// orcr's answer to a request of Codex's app-server: the JSON-RPC result its
// method takes, under the request's own id. A command or a patch: `accept`,
// `acceptForSession` (when asked to allow the like of it from now on, and
// offered), or `decline` (the model is told it was refused; Codex takes no
// words with it, so a denial's message is orcr's record only). A question:
// each answer under its question's id.

import type { AgentAnswer } from '../protocol.js';
import { idOfRef } from '../rpc/frames.js';
import { isObject, type JsonObject } from '../util.js';
import { offers, USER_INPUT, type CodexOffers } from './asks.js';

export function answerLine(ref: string, answer: AgentAnswer, asked: { input: unknown; offers: unknown }): string {
  return JSON.stringify({ id: idOfRef(ref), result: resultOf(answer, asked) }) + '\n';
}

function resultOf(answer: AgentAnswer, asked: { input: unknown; offers: unknown }): JsonObject {
  const offered = asked.offers as Partial<CodexOffers> | null;
  if (offered?.method === USER_INPUT) return { answers: keyed(asked.input, answer.verdict === 'allow' ? answer.answers : null) };
  const decisions = Array.isArray(offered?.decisions) ? offered.decisions : null;
  if (answer.verdict === 'deny') return { decision: 'decline' };
  return { decision: answer.always && offers(decisions, 'acceptForSession') ? 'acceptForSession' : 'accept' };
}

/** Answers by question id; a denied question is answered with nothing. */
function keyed(input: unknown, answers: readonly string[] | null): JsonObject {
  const questions =
    isObject(input) && Array.isArray(input.questions)
      ? input.questions.filter((q): q is JsonObject => isObject(q) && typeof q.id === 'string' && typeof q.question === 'string')
      : [];
  const out: JsonObject = {};
  questions.forEach((q, i) => {
    const a = answers?.[i];
    // defineProperty: a question whose id is `__proto__` stays a key.
    Object.defineProperty(out, q.id as string, { value: { answers: typeof a === 'string' ? [a] : [] }, enumerable: true, writable: true, configurable: true });
  });
  return out;
}
