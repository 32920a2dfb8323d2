// A scripted model server on 127.0.0.1 for running the REAL agent CLIs offline
// and deterministically. It speaks just enough of three wire APIs:
//
// - Anthropic Messages (`POST /v1/messages`, streaming SSE or JSON; plus
//   `count_tokens`), for Claude Code via ANTHROPIC_BASE_URL;
// - Gemini (`:generateContent`, `:streamGenerateContent?alt=sse`,
//   `:countTokens`), for Gemini CLI via GOOGLE_GEMINI_BASE_URL;
// - OpenAI Responses (`POST /v1/responses`, streaming SSE), for Codex via a
//   custom model provider given with `-c model_providers.mock.*`.
//
// Each test scripts the model: a queue of steps per API — a reply (text,
// tool calls the real CLI then executes, token usage), an HTTP error (401,
// 429 with retry-after, 500), a stream that never ends, a dropped
// connection. Every request is recorded so tests can assert on what the CLI
// sent. Requests no handler knows are recorded as `unknown` and answered 404
// with a JSON error (the CLIs treat that as "feature absent").
//
// Auxiliary model calls (title generation, "next speaker" checks, routing
// classifiers) would otherwise eat a test's script: a request counts as a
// MAIN turn only when `isMain` says so (by default: it offers tools to the
// model). Others get `auxReply` and do not consume the queue.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Api = 'anthropic' | 'gemini' | 'openai';

interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /** Tool-use id; generated (unique across the server's life) when absent. */
  id?: string;
}

export interface Usage {
  /** Uncached input tokens (Anthropic input_tokens; the uncached part elsewhere). */
  input?: number;
  output?: number;
  /** Cache reads. */
  cached?: number;
  /** Anthropic cache_creation_input_tokens. */
  cacheCreation?: number;
}

export type Step =
  | {
      kind: 'reply';
      text?: string;
      /** Gemini only: a thought part (`thought: true`) streamed before the text, e.g. "**Subject**\nwhat it thinks". */
      thought?: string;
      tools?: ToolCall[];
      usage?: Usage;
      /** Wait this long before answering at all. */
      delayMs?: number;
      /** Pause between SSE events (a slow stream). */
      chunkDelayMs?: number;
    }
  | {
      kind: 'error';
      status: number;
      message?: string;
      retryAfterS?: number;
      errorType?: string;
      headers?: Record<string, string>;
      /** More fields of the OpenAI error object (Codex reads `resets_at`, `plan_type` of a `usage_limit_reached`). */
      fields?: Record<string, unknown>;
    }
  /** Send headers and the opening event, then nothing: the stream never ends. */
  | { kind: 'hang' }
  /** Accept the request, then drop the connection. */
  | { kind: 'disconnect' };

export type StepSource = Step | ((req: RecordedRequest) => Step);

/** A step that answers (text, tool calls, usage), as text() and toolCall() build it. */
export type Reply = Extract<Step, { kind: 'reply' }>;

export interface RecordedRequest {
  seq: number;
  api: Api | 'unknown';
  method: string;
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Did this request consume (or fall back instead of) a scripted step? */
  main: boolean;
  /** The step that answered it, when any. */
  step: Step | null;
  at: number;
}

export const text = (t: string, usage?: Usage): Reply => ({ kind: 'reply', text: t, ...(usage ? { usage } : {}) });
export const toolCall = (name: string, input: Record<string, unknown>, usage?: Usage, extra?: { text?: string; id?: string }): Reply => ({
  kind: 'reply',
  tools: [{ name, input, ...(extra?.id ? { id: extra.id } : {}) }],
  ...(extra?.text ? { text: extra.text } : {}),
  ...(usage ? { usage } : {}),
});
export const httpError = (
  status: number,
  opts: {
    message?: string;
    retryAfterS?: number;
    errorType?: string;
    /** More response headers (Anthropic's unified rate-limit headers, Codex's `x-codex-*`). */ headers?: Record<string, string>;
    /** More fields of the OpenAI error object. */ fields?: Record<string, unknown>;
  } = {},
): Step => ({
  kind: 'error',
  status,
  ...opts,
});
export const hang = (): Step => ({ kind: 'hang' });

const DEFAULT_USAGE: Required<Usage> = { input: 10, output: 5, cached: 0, cacheCreation: 0 };

function fullUsage(u: Usage | undefined): Required<Usage> {
  return { ...DEFAULT_USAGE, ...(u ?? {}) };
}

function defaultIsMain(api: Api, req: { path: string; body: any }): boolean {
  const b = req.body;
  if (!b || typeof b !== 'object') return false;
  if (api === 'anthropic') return Array.isArray(b.tools) && b.tools.length > 0;
  if (api === 'openai') return Array.isArray(b.tools) && b.tools.length > 0;
  // Gemini: the agent loop offers functionDeclarations; JSON side-queries do not.
  return Array.isArray(b.tools) && b.tools.some((t: any) => Array.isArray(t?.functionDeclarations) && t.functionDeclarations.length > 0);
}

export interface ModelServerOptions {
  /** Decide whether a request is an agent turn that consumes a scripted step. */
  isMain?: (api: Api, req: { path: string; body: any }) => boolean;
  /** Log every request to stderr (debugging). */
  verbose?: boolean;
}

export class ModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queues: Record<Api, StepSource[]> = { anthropic: [], gemini: [], openai: [] };
  private readonly fallbacks: Partial<Record<Api, StepSource>> = {};
  private server: http.Server | null = null;
  private readonly sockets = new Set<import('node:net').Socket>();
  private ids = 0;
  port = 0;

  constructor(private readonly opts: ModelServerOptions = {}) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.server) await new Promise<void>((r) => this.server!.close(() => r()));
    this.server = null;
  }

  /** Queue steps for an API's main requests, in order. */
  script(api: Api, ...steps: StepSource[]): this {
    this.queues[api].push(...steps);
    return this;
  }

  /** What a main request gets once its queue is empty (default: a short text). */
  fallback(api: Api, step: StepSource | undefined): this {
    if (step === undefined) delete this.fallbacks[api];
    else this.fallbacks[api] = step;
    return this;
  }

  pending(api: Api): number {
    return this.queues[api].length;
  }

  mainRequests(api?: Api): RecordedRequest[] {
    return this.requests.filter((r) => r.main && (api === undefined || r.api === api));
  }

  unknownRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.api === 'unknown');
  }

  private nextId(prefix: string): string {
    this.ids++;
    return `${prefix}_${String(this.ids).padStart(4, '0')}${Math.random().toString(36).slice(2, 8)}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    const rec: RecordedRequest = {
      seq: this.requests.length + 1,
      api: 'unknown',
      method: req.method ?? 'GET',
      path: p,
      query: url.search,
      headers: req.headers,
      body,
      main: false,
      step: null,
      at: Date.now(),
    };
    this.requests.push(rec);
    if (this.opts.verbose) process.stderr.write(`[model-server] ${rec.method} ${p}${url.search}\n`);
    res.on('error', () => undefined);

    try {
      if ((rec.method === 'HEAD' || rec.method === 'GET') && (p === '/' || p === '/api/hello')) {
        // Claude Code's connectivity preflight before its first request: `HEAD /` up to 2.1.197,
        // `HEAD /api/hello` (user agent Bun/…) in 2.1.332. Known, so not listed by unknownRequests().
        rec.api = 'anthropic';
        res.writeHead(200);
        return void res.end();
      }
      if (rec.method === 'POST' && /\/v1\/messages\/count_tokens$/.test(p)) {
        rec.api = 'anthropic';
        return json(res, 200, { input_tokens: 100 });
      }
      if (rec.method === 'POST' && /\/v1\/messages$/.test(p)) {
        rec.api = 'anthropic';
        return await this.anthropic(rec, res);
      }
      const gem = /\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)$/.exec(p);
      if (rec.method === 'POST' && gem) {
        rec.api = 'gemini';
        if (gem[2] === 'countTokens') return json(res, 200, { totalTokens: 100 });
        if (gem[2] === 'embedContent') return json(res, 200, { embedding: { values: [0.1, 0.2, 0.3] } });
        if (gem[2] === 'batchEmbedContents') return json(res, 200, { embeddings: [] });
        return await this.gemini(rec, res, gem[1]!, gem[2] === 'streamGenerateContent');
      }
      if (rec.method === 'POST' && /\/responses$/.test(p)) {
        rec.api = 'openai';
        return await this.openai(rec, res);
      }
      if (rec.method === 'GET' && /\/models$/.test(p)) {
        // Codex asks its provider for the model list; an empty one is fine.
        rec.api = 'openai';
        return json(res, 200, { object: 'list', data: [], models: [] });
      }
      // A CLI version that calls something new: say so (tests can also assert on unknownRequests()).
      process.stderr.write(`[model-server] unknown request ${rec.method} ${p}${url.search} — answered 404\n`);
      json(res, 404, { error: { type: 'not_found_error', message: `model-server: no handler for ${rec.method} ${p}` } });
    } catch (e) {
      if (!res.headersSent) json(res, 500, { error: { type: 'api_error', message: String(e) } });
      else res.destroy();
    }
  }

  private take(api: Api, rec: RecordedRequest): Step | null {
    const isMain = (this.opts.isMain ?? defaultIsMain)(api, rec);
    rec.main = isMain;
    if (!isMain) return null;
    const src = this.queues[api].shift() ?? this.fallbacks[api] ?? text('(the model has nothing more to say)');
    const step = typeof src === 'function' ? src(rec) : src;
    rec.step = step;
    return step;
  }

  // ---------- Anthropic Messages ----------

  private async anthropic(rec: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const body = rec.body ?? {};
    const model = typeof body.model === 'string' ? body.model : 'claude-sonnet-4-5';
    const step = this.take('anthropic', rec) ?? auxAnthropic(body);
    if (step.kind === 'reply' && step.delayMs) await sleep(step.delayMs);
    if (step.kind === 'error') {
      const type =
        step.errorType ??
        (
          {
            400: 'invalid_request_error',
            401: 'authentication_error',
            403: 'permission_error',
            404: 'not_found_error',
            429: 'rate_limit_error',
            529: 'overloaded_error',
          } as Record<number, string>
        )[step.status] ??
        'api_error';
      const headers: Record<string, string> = { ...(step.headers ?? {}) };
      if (step.retryAfterS !== undefined) headers['retry-after'] = String(step.retryAfterS);
      return json(res, step.status, { type: 'error', error: { type, message: step.message ?? `scripted ${step.status}` } }, headers);
    }
    if (step.kind === 'disconnect') return void res.socket?.destroy();
    const u = step.kind === 'reply' ? fullUsage(step.usage) : fullUsage(undefined);
    const id = this.nextId('msg');
    const startUsage = {
      input_tokens: u.input,
      output_tokens: 1,
      cache_creation_input_tokens: u.cacheCreation,
      cache_read_input_tokens: u.cached,
    };
    const blocks: any[] = [];
    if (step.kind === 'reply') {
      if (step.text) blocks.push({ type: 'text', text: step.text });
      for (const t of step.tools ?? []) blocks.push({ type: 'tool_use', id: t.id ?? this.nextId('toolu'), name: t.name, input: t.input });
    }
    const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    if (!body.stream) {
      if (step.kind === 'hang') return; // never answers
      return json(res, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: blocks,
        stop_reason: stopReason,
        stop_sequence: null,
        usage: { ...startUsage, output_tokens: u.output },
      });
    }
    const sse = startSse(res, { 'request-id': this.nextId('req') });
    const gap = step.kind === 'reply' ? (step.chunkDelayMs ?? 0) : 0;
    await sse('message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: startUsage },
    });
    if (step.kind === 'hang') return; // the connection stays open until the client gives up or the server stops
    await sse('ping', { type: 'ping' }, gap);
    for (const [index, b] of blocks.entries()) {
      if (b.type === 'text') {
        await sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, gap);
        for (const piece of split(b.text)) {
          await sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, gap);
        }
      } else {
        await sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }, gap);
        await sse(
          'content_block_delta',
          { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } },
          gap,
        );
      }
      await sse('content_block_stop', { type: 'content_block_stop', index }, gap);
    }
    await sse('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: u.output } }, gap);
    await sse('message_stop', { type: 'message_stop' }, gap);
    res.end();
  }

  // ---------- Gemini ----------

  private async gemini(rec: RecordedRequest, res: http.ServerResponse, model: string, stream: boolean): Promise<void> {
    const step = this.take('gemini', rec) ?? auxGemini(rec.body);
    if (step.kind === 'reply' && step.delayMs) await sleep(step.delayMs);
    if (step.kind === 'error') {
      const status =
        (
          {
            400: 'INVALID_ARGUMENT',
            401: 'UNAUTHENTICATED',
            403: 'PERMISSION_DENIED',
            404: 'NOT_FOUND',
            429: 'RESOURCE_EXHAUSTED',
            503: 'UNAVAILABLE',
          } as Record<number, string>
        )[step.status] ?? 'INTERNAL';
      const details: any[] = [];
      if (step.retryAfterS !== undefined) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${step.retryAfterS}s` });
      const headers: Record<string, string> = {};
      if (step.retryAfterS !== undefined) headers['retry-after'] = String(step.retryAfterS);
      return json(
        res,
        step.status,
        { error: { code: step.status, message: step.message ?? `scripted ${step.status}`, status: step.errorType ?? status, details } },
        headers,
      );
    }
    if (step.kind === 'disconnect') return void res.socket?.destroy();
    const u = step.kind === 'reply' ? fullUsage(step.usage) : fullUsage(undefined);
    const parts: any[] = [];
    if (step.kind === 'reply') {
      if (step.text) parts.push({ text: step.text });
      for (const t of step.tools ?? []) parts.push({ functionCall: { name: t.name, args: t.input, ...(t.id ? { id: t.id } : {}) } });
    }
    const usageMetadata = {
      promptTokenCount: u.input + u.cached,
      candidatesTokenCount: u.output,
      totalTokenCount: u.input + u.cached + u.output,
      ...(u.cached ? { cachedContentTokenCount: u.cached } : {}),
    };
    const final = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata,
      modelVersion: model,
      responseId: this.nextId('resp'),
    };
    if (!stream) {
      if (step.kind === 'hang') return;
      return json(res, 200, final);
    }
    const sse = startSse(res, {});
    if (step.kind === 'hang') {
      await sse(null, { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, index: 0 }], modelVersion: model });
      return;
    }
    const gap = step.kind === 'reply' ? (step.chunkDelayMs ?? 0) : 0;
    if (step.kind === 'reply' && step.thought) {
      await sse(null, { candidates: [{ content: { role: 'model', parts: [{ text: step.thought, thought: true }] }, index: 0 }], modelVersion: model }, gap);
    }
    // Text in pieces, then the function calls and usage in the last chunk.
    const textParts = parts.filter((x) => 'text' in x);
    const callParts = parts.filter((x) => !('text' in x));
    const pieces = textParts.flatMap((x) => split(x.text as string));
    for (const [i, piece] of pieces.entries()) {
      const last = i === pieces.length - 1 && callParts.length === 0;
      await sse(
        null,
        last
          ? { ...final, candidates: [{ ...final.candidates[0], content: { role: 'model', parts: [{ text: piece }] } }] }
          : { candidates: [{ content: { role: 'model', parts: [{ text: piece }] }, index: 0 }], modelVersion: model },
        gap,
      );
    }
    if (callParts.length > 0 || pieces.length === 0) {
      await sse(
        null,
        { ...final, candidates: [{ ...final.candidates[0], content: { role: 'model', parts: callParts.length ? callParts : [{ text: '' }] } }] },
        gap,
      );
    }
    res.end();
  }

  // ---------- OpenAI Responses (Codex) ----------

  private async openai(rec: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const body = rec.body ?? {};
    const model = typeof body.model === 'string' ? body.model : 'mock-model';
    const step = this.take('openai', rec) ?? text('ok', { input: 5, output: 1 });
    if (step.kind === 'reply' && step.delayMs) await sleep(step.delayMs);
    if (step.kind === 'error') {
      const type = ({ 401: 'invalid_request_error', 429: 'rate_limit_exceeded', 500: 'server_error' } as Record<number, string>)[step.status] ?? 'server_error';
      const headers: Record<string, string> = { ...(step.headers ?? {}) };
      if (step.retryAfterS !== undefined) headers['retry-after'] = String(step.retryAfterS);
      return json(
        res,
        step.status,
        { error: { type: step.errorType ?? type, code: step.errorType ?? type, message: step.message ?? `scripted ${step.status}`, ...(step.fields ?? {}) } },
        headers,
      );
    }
    if (step.kind === 'disconnect') return void res.socket?.destroy();
    const u = step.kind === 'reply' ? fullUsage(step.usage) : fullUsage(undefined);
    const respId = this.nextId('resp');
    const sse = startSse(res, {});
    const base = { id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] as any[] };
    await sse('response.created', { type: 'response.created', sequence_number: 0, response: base });
    if (step.kind === 'hang') return;
    const gap = step.kind === 'reply' ? (step.chunkDelayMs ?? 0) : 0;
    let seq = 1;
    const output: any[] = [];
    if (step.kind === 'reply' && step.text) {
      const itemId = this.nextId('msg');
      const outIndex = output.length;
      await sse(
        'response.output_item.added',
        {
          type: 'response.output_item.added',
          sequence_number: seq++,
          output_index: outIndex,
          item: { type: 'message', id: itemId, role: 'assistant', status: 'in_progress', content: [] },
        },
        gap,
      );
      await sse(
        'response.content_part.added',
        {
          type: 'response.content_part.added',
          sequence_number: seq++,
          item_id: itemId,
          output_index: outIndex,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        },
        gap,
      );
      for (const piece of split(step.text)) {
        await sse(
          'response.output_text.delta',
          {
            type: 'response.output_text.delta',
            sequence_number: seq++,
            item_id: itemId,
            output_index: outIndex,
            content_index: 0,
            delta: piece,
          },
          gap,
        );
      }
      await sse(
        'response.output_text.done',
        {
          type: 'response.output_text.done',
          sequence_number: seq++,
          item_id: itemId,
          output_index: outIndex,
          content_index: 0,
          text: step.text,
        },
        gap,
      );
      const item = {
        type: 'message',
        id: itemId,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: step.text, annotations: [] }],
      };
      await sse('response.output_item.done', { type: 'response.output_item.done', sequence_number: seq++, output_index: outIndex, item }, gap);
      output.push(item);
    }
    for (const t of step.kind === 'reply' ? (step.tools ?? []) : []) {
      const outIndex = output.length;
      const callId = t.id ?? this.nextId('call');
      const item = { type: 'function_call', id: this.nextId('fc'), call_id: callId, name: t.name, arguments: JSON.stringify(t.input), status: 'completed' };
      await sse(
        'response.output_item.added',
        { type: 'response.output_item.added', sequence_number: seq++, output_index: outIndex, item: { ...item, arguments: '', status: 'in_progress' } },
        gap,
      );
      await sse(
        'response.function_call_arguments.delta',
        { type: 'response.function_call_arguments.delta', sequence_number: seq++, item_id: item.id, output_index: outIndex, delta: item.arguments },
        gap,
      );
      await sse(
        'response.function_call_arguments.done',
        { type: 'response.function_call_arguments.done', sequence_number: seq++, item_id: item.id, output_index: outIndex, arguments: item.arguments },
        gap,
      );
      await sse('response.output_item.done', { type: 'response.output_item.done', sequence_number: seq++, output_index: outIndex, item }, gap);
      output.push(item);
    }
    await sse(
      'response.completed',
      {
        type: 'response.completed',
        sequence_number: seq++,
        response: {
          ...base,
          status: 'completed',
          output,
          usage: {
            input_tokens: u.input + u.cached,
            input_tokens_details: { cached_tokens: u.cached },
            output_tokens: u.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: u.input + u.cached + u.output,
          },
        },
      },
      gap,
    );
    res.end();
  }
}

/** A Claude side-query (no tools), e.g. the session title it asks for as JSON. */
function auxAnthropic(body: any): Step {
  const system = JSON.stringify(body?.system ?? '');
  if (/title/i.test(system)) return text(JSON.stringify({ title: 'Scripted session' }), { input: 5, output: 1 });
  return text('ok', { input: 5, output: 1 });
}

/** A Gemini side-query (no tools): JSON-mode checks get a JSON answer. */
function auxGemini(body: any): Step {
  const cfg = body?.generationConfig ?? body?.config ?? {};
  if (cfg.responseMimeType === 'application/json' || cfg.responseJsonSchema || cfg.responseSchema) {
    // "Next speaker" style checks: the user speaks next, so the turn ends.
    return text(
      JSON.stringify({ next_speaker: 'user', reasoning: 'scripted', model_choice: 'flash', complexity_reasoning: 'scripted', complexity_score: 10 }),
      { input: 5, output: 1 },
    );
  }
  return text('ok', { input: 5, output: 1 });
}

function json(res: http.ServerResponse, status: number, obj: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(obj);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...headers });
  res.end(data);
}

function startSse(res: http.ServerResponse, headers: Record<string, string>): (event: string | null, data: unknown, gapMs?: number) => Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
  res.flushHeaders();
  return async (event, data, gapMs = 0) => {
    if (gapMs > 0) await sleep(gapMs);
    if (res.destroyed) return;
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  };
}

/** Split text into a few streaming pieces (on word boundaries). */
function split(t: string): string[] {
  const words = t.split(/(?<=\s)/);
  if (words.length <= 2) return [t];
  const mid = Math.ceil(words.length / 2);
  return [words.slice(0, mid).join(''), words.slice(mid).join('')];
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
