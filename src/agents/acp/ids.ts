// The ids of orcr's requests to an ACP agent, and the lines that carry them.
// Each id says what its request was for ("orcr:open", "orcr:load:SESSION",
// "orcr:turn:3"), so an answer means the same thing however late it is read,
// by whichever supervisor reads it: a `session/load` answers with no session
// id of its own, so its id carries the session it loads.

import type { InputContext } from '../protocol.js';
import type { RpcId } from '../rpc/frames.js';

type Own = { kind: 'init' } | { kind: 'open' } | { kind: 'load'; session: string } | { kind: 'turn'; seq: number };

/** What one of orcr's ids was for; null for an id orcr never sends. */
export function ownRequest(id: RpcId): Own | null {
  if (typeof id !== 'string' || !id.startsWith('orcr:')) return null;
  const rest = id.slice('orcr:'.length);
  if (rest === 'init' || rest === 'open') return { kind: rest };
  if (rest.startsWith('load:') && rest.length > 'load:'.length) return { kind: 'load', session: rest.slice('load:'.length) };
  const seq = /^turn:([1-9]\d*)$/.exec(rest)?.[1];
  return seq !== undefined ? { kind: 'turn', seq: Number(seq) } : null;
}

const line = (message: object): string => JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n';

/** The ACP version orcr speaks. */
const PROTOCOL_VERSION = 1;

/**
 * initialize, then a new session in `cwd` or the given one loaded. orcr
 * serves neither files nor terminals: the agent uses its own tools in the
 * run's folder. No MCP servers of orcr's: the agent's own settings apply.
 */
export function openingLines(ctx: { cwd: string; session: string | null }, version: string): string {
  const init = line({
    id: 'orcr:init',
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'orcr', title: 'orcr', version },
    },
  });
  const open = ctx.session
    ? line({ id: `orcr:load:${ctx.session}`, method: 'session/load', params: { sessionId: ctx.session, cwd: ctx.cwd, mcpServers: [] } })
    : line({ id: 'orcr:open', method: 'session/new', params: { cwd: ctx.cwd, mcpServers: [] } });
  return init + open;
}

/** One input as a prompt of the session. */
export function promptLine(text: string, ctx: InputContext): string {
  return line({ id: `orcr:turn:${ctx.seq}`, method: 'session/prompt', params: { sessionId: ctx.session, prompt: [{ type: 'text', text }] } });
}
