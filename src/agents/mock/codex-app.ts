// How orcr-mock-agent speaks Codex's app-server (`codex app-server`): a
// JSON-RPC server on stdio, as codex 0.171.0 was recorded speaking
// (test/fixtures/codex-app/, test/real/README.md "Codex app-server"). orcr,
// its client, initializes it, opens a thread (thread/start; thread/resume
// carries the one it names on), and starts each turn (turn/start, answered
// at once with the turn's id, its notifications after: codex-app-turn.ts).
// Its own requests (an approval, a question) wait for the response with their
// id; a response to no request of its own is let go without a word, as a line
// that is no JSON is (said on stderr), and a request it does not serve is
// answered -32600 as Codex answers it.

import { CodexAppSession } from './codex-app-session.js';
import { CLOSED, DECLINED, endlessTurn, failedTurn, turnSteps, UNREADABLE } from './codex-app-turn.js';
import type { Rng } from './rng.js';
import { parseJson, type Renderer, type Reply, type StdinLine } from './render.js';

const SERVED = ['initialize', 'thread/start', 'thread/resume', 'turn/start'];
const LIMIT = 'You’ve hit your usage limit. Try again later.';
const UNAUTHORIZED = 'unexpected status 401 Unauthorized: Missing bearer or basic authentication in header, url: https://api.openai.com/v1/responses';

export function codexAppMock(rng: Rng): Renderer {
  const s = new CodexAppSession(rng);
  const read = (line: string): StdinLine => readLine(s, line);
  return {
    start: () => [],
    turn(plan) {
      const lines: string[] = [];
      for (const step of turnSteps(s, plan, false)) lines.push(...step.lines);
      return lines;
    },
    limit: () => failedTurn(s, LIMIT, 'usageLimitExceeded'),
    // Not logged in: the thread opens, and each turn fails on the API's 401; the server lives on.
    auth: () => ({ code: 0, lines: failedTurn(s, UNAUTHORIZED, { httpConnectionFailed: { httpStatusCode: 401 } }) }),
    parseInput: (line) => {
      const o = parseJson(line);
      return o?.method === 'turn/start' ? inputText(o.params) : null;
    },
    asking: { turn: (plan) => turnSteps(s, plan, true), read, closed: CLOSED },
    server: { read, loop: (plan) => endlessTurn(s, plan) },
  };
}

function readLine(s: CodexAppSession, line: string): StdinLine {
  if (line.trim() === '') return null;
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return { kind: 'served', lines: [], stderr: `ERROR codex_app_server_transport::transport: Failed to deserialize JSONRPCMessage: ${(e as Error).message}` };
  }
  if (!isRecord(msg)) return { kind: 'served', lines: [], stderr: 'ERROR codex_app_server_transport::transport: Failed to deserialize JSONRPCMessage' };
  if (typeof msg.method !== 'string') return answer(s, msg);
  // A notification (`initialized`, or one it does not know) asks for nothing.
  if (msg.id === undefined || msg.id === null) return null;
  return request(s, msg.id, msg.method, msg.params);
}

function request(s: CodexAppSession, id: unknown, method: string, params: unknown): StdinLine {
  const refuse = (message: string): StdinLine => ({ kind: 'served', lines: [CodexAppSession.error(id, message)] });
  if (!SERVED.includes(method)) return refuse(`Invalid request: unknown variant \`${method}\`, expected one of ${SERVED.map((m) => `\`${m}\``).join(', ')}`);
  if (!isRecord(params)) return refuse('Invalid request: missing field `params`');
  if (method === 'initialize') return initialize(s, id, params);
  if (!s.initialized) return refuse('Not initialized');
  if (method === 'turn/start') {
    const text = inputText(params);
    if (text === null) return refuse('Invalid request: missing field `input`');
    if (params.threadId !== s.thread) return refuse(`thread not found: ${String(params.threadId)}`);
    const turnId = s.queueTurn(text);
    const turn = {
      id: turnId,
      rootTurnId: turnId,
      items: [],
      itemsView: 'notLoaded',
      status: 'inProgress',
      error: null,
      startedAt: null,
      completedAt: null,
      durationMs: null,
    };
    return { kind: 'input', text, reply: [CodexAppSession.result(id, { turn })] };
  }
  if (typeof params.cwd === 'string') s.cwd = params.cwd;
  if (method === 'thread/resume') {
    if (typeof params.threadId !== 'string') return refuse('Invalid request: missing field `threadId`');
    // Any thread it is named is taken as its own: the mock keeps no rollouts.
    s.thread = params.threadId;
    return { kind: 'served', lines: [CodexAppSession.result(id, s.threadResult(s.thread, params)), s.restateUsage(s.thread)] };
  }
  s.thread = s.uuid7();
  return {
    kind: 'served',
    lines: [CodexAppSession.result(id, s.threadResult(s.thread, params)), s.note('thread/started', { thread: s.threadObject(s.thread) })],
  };
}

function initialize(s: CodexAppSession, id: unknown, params: Record<string, unknown>): StdinLine {
  const client = params.clientInfo;
  if (!isRecord(client) || typeof client.name !== 'string')
    return { kind: 'served', lines: [CodexAppSession.error(id, 'Invalid request: missing field `clientInfo`')] };
  if (s.initialized) return { kind: 'served', lines: [CodexAppSession.error(id, 'Already initialized')] };
  s.initialized = true;
  s.clientName = client.name;
  const version = typeof client.version === 'string' ? client.version : '';
  const result = {
    userAgent: `${client.name}/0.171.0 (orcr-mock-agent; ${process.arch}) unknown (${client.name}; ${version})`,
    codexHome: s.codexHome(),
    platformFamily: 'unix',
    platformOs: process.platform === 'darwin' ? 'macos' : process.platform,
  };
  return {
    kind: 'served',
    lines: [
      CodexAppSession.result(id, result),
      s.note('remoteControl/status/changed', { status: 'disabled', serverName: 'orcr-mock-agent', environmentId: null }),
    ],
  };
}

/** A response to one of its own requests; one to no request it made is let go. */
function answer(s: CodexAppSession, msg: Record<string, unknown>): StdinLine {
  const id = msg.id;
  const kind = typeof id === 'number' ? s.asked.get(id) : undefined;
  if (kind === undefined) return null;
  s.asked.delete(id as number);
  const ref = JSON.stringify(id);
  // An error response, or a result it cannot read: the request failed (a question is left unanswered).
  const result = isRecord(msg.result) ? msg.result : null;
  if (kind === 'question') return { kind: 'answer', ref, reply: result ? { allow: true, input: result } : { allow: false, message: UNREADABLE } };
  return { kind: 'answer', ref, reply: decision(result) };
}

/** A decision, as Codex reads it: accepted (for the session, or with a rule), declined, cancelled, or unreadable. */
function decision(result: Record<string, unknown> | null): Reply {
  const d = result?.decision;
  if (d === 'accept' || d === 'acceptForSession') return { allow: true, input: result };
  if (isRecord(d) && (Object.hasOwn(d, 'acceptWithExecpolicyAmendment') || Object.hasOwn(d, 'applyNetworkPolicyAmendment')))
    return { allow: true, input: result };
  if (d === 'decline') return { allow: false, message: DECLINED };
  if (d === 'cancel') return { allow: false, message: DECLINED, stop: true };
  return { allow: false, message: UNREADABLE };
}

/** A turn's input, its text parts joined; null when it has none. */
function inputText(params: unknown): string | null {
  if (!isRecord(params) || !Array.isArray(params.input)) return null;
  const texts = params.input.flatMap((p) => (isRecord(p) && p.type === 'text' && typeof p.text === 'string' ? [p.text] : []));
  return texts.length > 0 ? texts.join('\n') : null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
