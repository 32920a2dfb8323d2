// The ids of orcr's requests to Codex's app-server, and the lines that carry
// them. Each id says what its request was for ("orcr:open", "orcr:turn:3"):
// an answer means the same thing however late it is read, by whichever
// supervisor reads it, with nothing remembered between them.

import type { InputContext } from '../protocol.js';
import type { RpcId } from '../rpc/frames.js';

export const OWN = { init: 'init', open: 'open', turn: 'turn' } as const;
type Own = { kind: typeof OWN.init | typeof OWN.open } | { kind: typeof OWN.turn; seq: number };

/** What one of orcr's ids was for; null for an id orcr never sends. */
export function ownRequest(id: RpcId): Own | null {
  if (typeof id !== 'string' || !id.startsWith('orcr:')) return null;
  const [, kind, seq] = id.split(':');
  if (kind === OWN.init || kind === OWN.open) return seq === undefined ? { kind } : null;
  if (kind === OWN.turn && seq !== undefined && /^[1-9]\d*$/.test(seq)) return { kind, seq: Number(seq) };
  return null;
}

const line = (message: object): string => JSON.stringify(message) + '\n';

/**
 * initialize, initialized, and the thread: started in `cwd`, or resumed
 * (without its turns in the answer: a long thread's history would be one
 * huge line, and Codex 0.171 warns that whole-history hydration is
 * deprecated). Written before Codex says a word.
 */
export function openingLines(ctx: { cwd: string; session: string | null }, version: string): string {
  return (
    line({ method: 'initialize', id: 'orcr:init', params: { clientInfo: { name: 'orcr', title: 'orcr', version } } }) +
    line({ method: 'initialized' }) +
    line(
      ctx.session
        ? { method: 'thread/resume', id: 'orcr:open', params: { threadId: ctx.session, excludeTurns: true } }
        : { method: 'thread/start', id: 'orcr:open', params: { cwd: ctx.cwd } },
    )
  );
}

/** One input as a turn of the thread. */
export function turnLine(text: string, ctx: InputContext): string {
  return line({ method: 'turn/start', id: `orcr:turn:${ctx.seq}`, params: { threadId: ctx.session, input: [{ type: 'text', text }] } });
}
