// The mock ACP agent's state and lines: JSON-RPC 2.0 messages as Gemini
// CLI's `--acp` writes them (`{"jsonrpc":"2.0",…}`, its own requests
// numbered from 0), the session it has open, the prompts orcr sent and it
// has yet to answer (each answered when its turn ends), its permission
// requests waiting, what was allowed for the session. Shared by its reading
// (acp.ts) and its turns (acp-turn.ts).

import type { TurnPlan } from './plan.js';
import type { Rng } from './rng.js';
import { j, USAGE_LIMIT_EPOCH, uuid } from './render.js';

const MODEL = 'gemini-2.5-pro';

/** A prompt orcr sent: the request its turn's end answers. */
export interface Prompt {
  id: unknown;
  sessionId: string;
}

export class AcpSession {
  session: string | null = null;
  cwd = process.cwd();
  /** Not logged in (the `auth` scenario): a session is refused, as Gemini refuses one without credentials. */
  loggedOut = false;
  /** Tool calls allowed for the session (`proceed_always`), by kind and title: not asked again. */
  readonly allowed = new Set<string>();
  /** Its permission requests waiting for orcr's response, by id: the tool each is for. */
  readonly asked = new Map<number, string>();
  private nextRequest = 0;
  private calls = 0;
  private readonly queued: Prompt[] = [];
  private clockMs = USAGE_LIMIT_EPOCH * 1000;

  constructor(readonly rng: Rng) {}

  /** A clock that moves on a little at each look: deterministic, as the mock's transcripts are. */
  now(): number {
    this.clockMs += 7;
    return this.clockMs;
  }

  nextCall(): number {
    return ++this.calls;
  }

  newSession(): string {
    this.session = uuid(this.rng);
    return this.session;
  }

  queuePrompt(id: unknown, sessionId: string): void {
    this.queued.push({ id, sessionId });
  }

  /** The prompt to answer now: the one orcr sent first, or (driven without one) one of its own. */
  beginPrompt(): Prompt {
    this.session ??= uuid(this.rng);
    return this.queued.shift() ?? { id: `mock:${this.nextCall()}`, sessionId: this.session };
  }

  ask(tool: string): number {
    const id = this.nextRequest++;
    this.asked.set(id, tool);
    return id;
  }

  // ── lines ──────────────────────────────────────────────────────────────

  static result(id: unknown, result: unknown): string {
    return j({ jsonrpc: '2.0', id, result });
  }

  static error(id: unknown, code: number, message: string, data?: unknown): string {
    return j({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
  }

  request(id: number, method: string, params: Record<string, unknown>): string {
    return j({ jsonrpc: '2.0', id, method, params });
  }

  update(update: Record<string, unknown>, sessionId = this.session): string {
    return j({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update } });
  }

  /** A prompt's answer: why the turn stopped, and its tokens (the spec's `usage`; Gemini's own `_meta.quota`). */
  answer(p: Prompt, stopReason: string, usage: TurnPlan['usage']): string {
    const input = usage.input + usage.cached;
    const tokens = { input_tokens: input, output_tokens: usage.output };
    return AcpSession.result(p.id, {
      stopReason,
      usage: { inputTokens: input, outputTokens: usage.output, cachedReadTokens: usage.cached, totalTokens: input + usage.output },
      _meta: { quota: { token_count: tokens, model_usage: [{ model: MODEL, token_count: tokens }] } },
    });
  }

  /** session/new's or session/load's answer: its modes and models (and, new, its id). */
  sessionResult(withId: boolean): Record<string, unknown> {
    const modes = {
      availableModes: [
        { id: 'default', name: 'Default', description: 'Prompts for approval' },
        { id: 'autoEdit', name: 'Auto Edit', description: 'Auto-approves edit tools' },
        { id: 'yolo', name: 'YOLO', description: 'Auto-approves all tools' },
      ],
      currentModeId: 'default',
    };
    const models = { availableModels: [{ modelId: MODEL, name: MODEL }], currentModelId: MODEL };
    return withId ? { sessionId: this.session, modes, models } : { modes, models };
  }
}
