// How orcr-mock-agent speaks ACP, the Agent Client Protocol: a JSON-RPC 2.0
// server on stdio in the shapes of Gemini CLI's `--acp` (0.61: its bundle's
// acp/ modules; acp-session.ts, acp-turn.ts). orcr, its client, initializes
// it, opens a session (session/new; session/load of the one it names, its
// history replayed before the answer, as the spec says) and sends each
// prompt (session/prompt, answered when its turn ends). Its permission
// requests wait for the response with their id; a response to no request of
// its own is let go, a line that is no JSON said on stderr (no answer), and a
// method it does not serve answered -32601.

import { AcpSession } from './acp-session.js';
import { CLOSED, endlessPrompt, promptSteps, UNREADABLE } from './acp-turn.js';
import type { Rng } from './rng.js';
import { parseJson, type Renderer, type Reply, type StdinLine } from './render.js';

const LIMIT = 'Rate limit exceeded. Try again later.';
const AUTH = 'Authentication required.';
const ALLOWING = new Set(['proceed_once', 'proceed_always', 'proceed_always_and_save', 'proceed_always_server', 'proceed_always_tool']);

export function acpMock(rng: Rng): Renderer {
  const s = new AcpSession(rng);
  const read = (line: string): StdinLine => readLine(s, line);
  return {
    start: () => [],
    turn(plan) {
      const lines: string[] = [];
      for (const step of promptSteps(s, plan, false)) lines.push(...step.lines);
      return lines;
    },
    // Gemini answers a prompt the API refused with 429 by the JSON-RPC error of that code.
    limit: () => [AcpSession.error(s.beginPrompt().id, 429, LIMIT)],
    auth: () => ({ code: 0, lines: [AcpSession.error(s.beginPrompt().id, -32000, AUTH)] }),
    parseInput: (line) => {
      const o = parseJson(line);
      return o?.method === 'session/prompt' ? promptText(o.params) : null;
    },
    asking: { turn: (plan) => promptSteps(s, plan, true), read, closed: CLOSED },
    server: { read, loop: (plan) => endlessPrompt(s, plan), loggedOut: () => (s.loggedOut = true) },
  };
}

function readLine(s: AcpSession, line: string): StdinLine {
  if (line.trim() === '') return null;
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return { kind: 'served', lines: [], stderr: `Failed to parse JSON message: ${line.trim()} ${String(e)}` };
  }
  if (!isRecord(msg)) return { kind: 'served', lines: [], stderr: `Invalid message ${line.trim()}` };
  if (typeof msg.method !== 'string') return answer(s, msg);
  // A notification (session/cancel among them) asks for no answer; the mock acts on none.
  if (msg.id === undefined || msg.id === null) return null;
  return request(s, msg.id, msg.method, msg.params);
}

function request(s: AcpSession, id: unknown, method: string, params: unknown): StdinLine {
  const served = (...lines: string[]): StdinLine => ({ kind: 'served', lines });
  if (!isRecord(params)) return served(AcpSession.error(id, -32602, 'Invalid params'));
  if (typeof params.cwd === 'string') s.cwd = params.cwd;
  switch (method) {
    case 'initialize':
      return served(AcpSession.result(id, initialized()));
    case 'session/new':
      if (s.loggedOut) return served(AcpSession.error(id, -32000, AUTH));
      s.newSession();
      return served(AcpSession.result(id, s.sessionResult(true)), commands(s));
    case 'session/load': {
      if (s.loggedOut) return served(AcpSession.error(id, -32000, AUTH));
      if (typeof params.sessionId !== 'string') return served(AcpSession.error(id, -32602, 'Invalid params'));
      // Any session it is named is taken as its own: its history (made up: the mock keeps none) replayed, then the answer.
      s.session = params.sessionId;
      const replay = [
        s.update({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'An earlier prompt' } }),
        s.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'An earlier answer.' } }),
      ];
      return served(...replay, AcpSession.result(id, s.sessionResult(false)), commands(s));
    }
    case 'session/prompt': {
      if (params.sessionId !== s.session || s.session === null) return served(AcpSession.error(id, -32602, `Session not found: ${String(params.sessionId)}`));
      const text = promptText(params);
      if (text === null) return served(AcpSession.error(id, -32602, 'Invalid params'));
      s.queuePrompt(id, s.session);
      return { kind: 'input', text };
    }
    case 'session/set_mode':
      return served(AcpSession.result(id, {}));
    default:
      return served(AcpSession.error(id, -32601, `"Method not found": ${method}`, { method }));
  }
}

function initialized(): Record<string, unknown> {
  return {
    protocolVersion: 1,
    authMethods: [{ id: 'mock-api-key', name: 'API key', description: 'Use an API key' }],
    agentInfo: { name: 'orcr-mock-agent', title: 'orcr mock agent', version: '0.0.0' },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: false, sse: false },
    },
  };
}

/** What Gemini sends once a session is open: its slash commands. */
function commands(s: AcpSession): string {
  return s.update({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'memory', description: 'Manage memory' }] });
}

/** A response to one of its permission requests; one to no request it made is let go. */
function answer(s: AcpSession, msg: Record<string, unknown>): StdinLine {
  const id = msg.id;
  const tool = typeof id === 'number' ? s.asked.get(id) : undefined;
  if (tool === undefined) return null;
  s.asked.delete(id as number);
  return { kind: 'answer', ref: JSON.stringify(id), reply: outcome(tool, msg.result) };
}

/** An option selected (allow once or for the session, or reject), the request cancelled, or an answer it cannot read. */
function outcome(tool: string, result: unknown): Reply {
  const o = isRecord(result) && isRecord(result.outcome) ? result.outcome : null;
  const canceled: Reply = { allow: false, message: `Tool "${tool}" was canceled by the user.` };
  if (o?.outcome === 'cancelled') return canceled;
  if (o?.outcome !== 'selected' || typeof o.optionId !== 'string') return { allow: false, message: UNREADABLE };
  if (ALLOWING.has(o.optionId)) return { allow: true, input: { optionId: o.optionId } };
  return o.optionId === 'cancel' ? canceled : { allow: false, message: UNREADABLE };
}

/** A prompt's text blocks, joined; null when it has none. */
function promptText(params: unknown): string | null {
  if (!isRecord(params) || !Array.isArray(params.prompt)) return null;
  const texts = params.prompt.flatMap((p) => (isRecord(p) && p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
  return texts.length > 0 ? texts.join('\n') : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
