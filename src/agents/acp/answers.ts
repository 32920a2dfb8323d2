// orcr's answer to an ACP agent's permission request: one of the options
// the agent offered, selected by its id — allow once, or allow always when
// asked to allow the like of it from now on and offered; reject once (a
// denial's words are orcr's record only: ACP carries none). Without an
// option of the kind wanted, the request is answered `cancelled`, which the
// agent reads as not allowed.

import type { AgentAnswer } from '../protocol.js';
import { idOfRef } from '../rpc/frames.js';
import { isObject } from '../util.js';

export function answerLine(ref: string, answer: AgentAnswer, asked: { input: unknown; offers: unknown }): string {
  const options = Array.isArray(asked.offers) ? asked.offers.filter(isObject) : [];
  const wanted =
    answer.verdict === 'allow' ? (answer.always ? ['allow_always', 'allow_once'] : ['allow_once', 'allow_always']) : ['reject_once', 'reject_always'];
  const chosen = wanted.map((kind) => options.find((o) => o.kind === kind)).find((o) => o !== undefined);
  const outcome = chosen && typeof chosen.optionId === 'string' ? { outcome: 'selected', optionId: chosen.optionId } : { outcome: 'cancelled' };
  return JSON.stringify({ jsonrpc: '2.0', id: idOfRef(ref), result: { outcome } }) + '\n';
}
