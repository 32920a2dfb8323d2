// Gemini CLI `--output-format stream-json` → signals.
//
// - Text: assistant `message` events arrive as `delta:true` chunks. Chunks are
//   concatenated and ONE text signal is emitted per assistant message — when
//   anything else arrives (tool_use, tool_result, a user message, error,
//   result) or at end(). A non-delta assistant message is a complete message
//   of its own.
// - Usage: `result.stats` are the session's running totals (the CLI converts
//   its session metrics), so they are diffed like Codex's (cumulative.ts).
//   `input_tokens` is the prompt count and INCLUDES `cached` (the CLI's own
//   types call `cached` and `input` a breakdown of input_tokens), so
//   input = input_tokens − cached (or `input` when present), cached = cached,
//   output = output_tokens. Gemini reports no cost.
// - result ok iff status === "success" — unless the CLI's own loop detector
//   stopped the turn ("Loop detected, stopping execution", a warning), which
//   it still reports as success: that is a failed result, detail `loop`.
//   A failed result names its cause in
//   `detail`: `limit` (429 / quota, with the delay the CLI suggests, e.g.
//   "Suggested retry after 3s."), `login` (401 UNAUTHENTICATED, "API key not
//   valid"), else the error type. The real CLI retries 429s silently (on
//   stderr only) before it prints that result: see test/real/README.md.
//
// Model turns (option `modelTurns`): a model response is the text and tool
// calls printed between two rounds of tool results; `model_turn` is emitted
// when the next response starts (output after a tool_result) or at result.

import type { Adapter, AdapterOptions, ExtendedAdapter, ExtendedSignal, PlainAdapterOptions, Signal } from './signals.js';
import { createCumulativeCounter } from './cumulative.js';
import { CERTAINTY, defineProtocol } from './protocol.js';
import { createTurnTracker, type TurnTracker } from './turns.js';
import {
  jsonLinesAdapter,
  isObject,
  mentionsLimit,
  mentionsLogin,
  num,
  optNum,
  present,
  statedRetryAfter,
  str,
  withModelTurns,
  type JsonObject,
} from './util.js';

export const gemini = defineProtocol({
  name: 'gemini',
  // Its shapes of shared type names; every event carries an ISO timestamp.
  detect(type, obj) {
    if (type === 'init' && (present(obj, 'timestamp') || present(obj, 'session_id'))) return CERTAINTY.shape;
    if (type === 'message' && typeof obj.role === 'string') return CERTAINTY.shape;
    if (type === 'tool_use' && typeof obj.tool_name === 'string') return CERTAINTY.shape;
    if (type === 'tool_result' && present(obj, 'tool_id')) return CERTAINTY.shape;
    if (type === 'error' && typeof obj.severity === 'string') return CERTAINTY.shape;
    if (type === 'result' && (present(obj, 'stats') || (typeof obj.status === 'string' && present(obj, 'timestamp')))) return CERTAINTY.shape;
    return null;
  },
  adapter: (options) => createGeminiAdapter(options),
  // No `resume`. Gemini CLI (0.61) does resume a session by its ID (`--resume ID`: its --help names only "latest"
  // and an index, but an ID is matched first), yet it saves a session only once the model has answered: a turn a
  // limit or a 429 stopped before that — the turns orcr would resume — leaves none, and `--resume ID` then exits 42.
  // So a Gemini run is not resumed: a retry starts afresh, a limit ends it (test/real/gemini.test.ts).
  // Tokens only: its cost is tokens × a configured price.
  reportsCost: false,
  /**
   * With stdin not a terminal it is one-shot and reads its prompt from stdin;
   * headless it needs an auth method (exit 41 otherwise) and a trusted
   * workspace (exit 55): `--skip-trust` trusts the run's working directory
   * for that session only.
   */
  preset: {
    command: ['gemini', '--output-format', 'stream-json', '--skip-trust'],
    // A run that answered has a saved session, and a person takes it over by its ID.
    takeover: { title: 'Gemini', args: (session) => ['--resume', session] },
  },
  mock: async () => (await import('./mock/gemini.js')).geminiMock,
  // Tool results, the prompt echoed as a user message, errors.
  transcript: {
    types: ['tool_result', 'message', 'error'],
    read(obj) {
      if (obj.type === 'tool_result') {
        const err = isObject(obj.error) ? str(obj.error.message) : undefined;
        return [{ kind: 'tool_result', text: str(obj.output) ?? err ?? '', failed: obj.status === 'error' }];
      }
      if (obj.type === 'message' && obj.role === 'user' && typeof obj.content === 'string') return [{ kind: 'echo', text: obj.content }];
      return obj.type === 'error' && typeof obj.message === 'string' ? [{ kind: 'error', text: obj.message }] : [];
    },
  },
});

export function createGeminiAdapter(options?: PlainAdapterOptions): Adapter;
export function createGeminiAdapter(options: AdapterOptions): ExtendedAdapter;
export function createGeminiAdapter(options?: AdapterOptions): Adapter | ExtendedAdapter {
  return withModelTurns(createCore(options?.now ?? Date.now), options);
}

function createCore(now: () => number): ExtendedAdapter {
  const turns = createTurnTracker();
  const usage = createCumulativeCounter();
  const stream = createResponseStream(turns);
  // The CLI stopped the turn itself on a loop (its warning), else null.
  let stoppedByLoop: string | null = null;

  function error(obj: JsonObject): Signal[] {
    const out = stream.flush();
    const msg = str(obj.message);
    // The CLI's own loop detector stops the turn with a mere warning, and the
    // result that follows still says "success": remember why it stopped.
    if (msg !== undefined && /loop detected/i.test(msg)) stoppedByLoop = msg;
    if (str(obj.severity) !== 'warning' && mentionsLimit(msg)) out.push(limitBlock(msg, now()).block);
    return out;
  }

  function result(obj: JsonObject): ExtendedSignal[] {
    const out: ExtendedSignal[] = turns.start();
    out.push(...stream.flush(), ...stream.closeResponse());
    if (isObject(obj.stats)) {
      const s = obj.stats;
      const cached = num(s.cached);
      const input = optNum(s.input) ?? Math.max(0, num(s.input_tokens) - cached);
      out.push({ kind: 'usage', ...usage.next({ input, output: num(s.output_tokens), cached }) });
    }
    const loop = stoppedByLoop;
    stoppedByLoop = null;
    out.push(...verdict(obj, loop, now()), ...turns.end());
    return out;
  }

  function handle(obj: JsonObject): ExtendedSignal[] | null {
    const type = obj.type;
    if (typeof type !== 'string') return null;
    switch (type) {
      case 'init':
        return turns.alive({ session_id: str(obj.session_id), model: str(obj.model) });
      case 'message':
        return stream.message(obj);
      case 'tool_use':
        return stream.toolUse(obj);
      case 'tool_result':
        return stream.toolResult();
      case 'error':
        return error(obj);
      case 'result':
        return result(obj);
      default:
        return null;
    }
  }

  return jsonLinesAdapter<ExtendedSignal>(handle, stream.flush);
}

interface ResponseStream {
  message(obj: JsonObject): ExtendedSignal[] | null;
  toolUse(obj: JsonObject): ExtendedSignal[] | null;
  toolResult(): ExtendedSignal[];
  /** Close the assistant message being streamed, if any. */
  flush(): Signal[];
  /** The turn's result: the response open ends. */
  closeResponse(): ExtendedSignal[];
}

/** The model's responses as they stream: assistant text in delta chunks, tool calls, and where one response ends. */
function createResponseStream(turns: TurnTracker): ResponseStream {
  let pending: string | null = null;
  // Model-turn bookkeeping: output seen in the current response, and whether
  // tool results came back since (the next output is a new response).
  let responseOpen = false;
  let toolResultsSince = false;

  /** Model output is about to be emitted: close the previous response if it ended. */
  function modelOutput(): ExtendedSignal[] {
    const out: ExtendedSignal[] = [];
    if (responseOpen && toolResultsSince) {
      out.push(...flush(), { kind: 'model_turn' });
    }
    responseOpen = true;
    toolResultsSince = false;
    return out;
  }

  function flush(): Signal[] {
    if (pending === null) return [];
    const text = pending;
    pending = null;
    return text ? [{ kind: 'text', text }] : [];
  }

  return {
    flush,
    closeResponse() {
      if (!responseOpen) return [];
      responseOpen = false;
      toolResultsSince = false;
      return [{ kind: 'model_turn' }];
    },
    message(obj) {
      const role = str(obj.role);
      const content = str(obj.content);
      if (role === undefined || content === undefined) return null;
      const out: ExtendedSignal[] = turns.start();
      if (role !== 'assistant') {
        out.push(...flush());
        return out;
      }
      out.push(...modelOutput());
      if (obj.delta === true) {
        pending = (pending ?? '') + content;
        return out;
      }
      out.push(...flush());
      if (content) out.push({ kind: 'text', text: content });
      return out;
    },
    toolUse(obj) {
      const name = str(obj.tool_name);
      if (!name) return null;
      const out: ExtendedSignal[] = turns.start();
      out.push(...modelOutput(), ...flush(), { kind: 'tool', name, input: obj.parameters ?? null });
      return out;
    },
    toolResult() {
      if (responseOpen) toolResultsSince = true;
      return flush();
    },
  };
}

/** A quota or rate limit the CLI names: blocked, with the delay it suggests ("Suggested retry after 3s."). */
function limitBlock(msg: string | undefined, now: number): { block: Signal; retry: number | undefined } {
  const block: Signal = { kind: 'blocked', blocked: 'limit', message: msg ?? 'quota exceeded' };
  const retry = statedRetryAfter(msg, now);
  if (retry !== undefined) block.retry_after_s = retry;
  return { block, retry };
}

/** A result's verdict: ok iff `status` is success and the CLI did not stop itself on a loop; a failure's cause, blocked. */
function verdict(obj: JsonObject, loop: string | null, now: number): Signal[] {
  const out: Signal[] = [];
  const ok = str(obj.status) === 'success' && loop === null;
  const sig: Signal = { kind: 'result', ok };
  if (loop !== null && str(obj.status) === 'success') {
    // Not done: the agent gave up on a loop it detected in itself.
    sig.text = loop;
    sig.detail = 'loop';
  } else if (!ok) {
    const err = isObject(obj.error) ? obj.error : undefined;
    const msg = err ? str(err.message) : undefined;
    if (msg !== undefined) sig.text = msg;
    sig.detail = (err && str(err.type)) ?? str(obj.status) ?? 'error';
    if (mentionsLimit(msg) || mentionsLimit(err ? str(err.type) : undefined)) {
      const { block, retry } = limitBlock(msg, now);
      out.push(block);
      // Gemini's own classifier: a daily quota (or QUOTA_EXHAUSTED, or a wait over 5 minutes) holds until it
      // resets — a usage limit; a per-minute rate limit or "Please retry in Xs" passes — for the retry policy.
      const words = `${msg ?? ''} ${err ? (str(err.type) ?? '') : ''}`;
      const terminal = /daily quota|QUOTA_EXHAUSTED|per day/i.test(words) || (retry !== undefined && retry > 300);
      const passing = !terminal && (/RATE_LIMIT_EXCEEDED|per minute|retry in \d/i.test(words) || (retry !== undefined && retry <= 300));
      sig.detail = passing ? 'rate_limited' : 'limit';
    } else if (mentionsLogin(msg) || mentionsLogin(err ? str(err.type) : undefined)) {
      out.push({ kind: 'blocked', blocked: 'login', message: msg ?? 'authentication failed' });
      sig.detail = 'login';
    }
  }
  out.push(sig);
  return out;
}
