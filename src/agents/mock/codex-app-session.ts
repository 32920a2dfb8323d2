// The mock agent's Codex app-server session: each kind of line as codex
// 0.171.0 wrote it (test/fixtures/codex-app/; no "jsonrpc" member, its
// notifications stamped `emittedAtMs`), and what the process carries across
// turns — whether it was initialized, the thread it has open, the turns orcr
// started and it has yet to run, its own requests waiting for an answer, the
// thread's running token total. Shared by the server's reading (codex-app.ts)
// and its turns (codex-app-turn.ts).

import type { TurnPlan } from './plan.js';
import type { Rng } from './rng.js';
import { j, USAGE_LIMIT_EPOCH } from './render.js';

const CLI_VERSION = '0.171.0';
const MODEL = 'gpt-5-codex';

/** What a request of the server's own asked: a decision (a command, a file change) or answers to questions. */
export type AskedKind = 'command' | 'file' | 'question';

/** One turn as it runs: its id and its thread's. */
export interface TurnCtx {
  threadId: string;
  turnId: string;
  text: string;
  startedAtMs: number;
}

export class CodexAppSession {
  initialized = false;
  clientName = 'client';
  /** The thread open (started or resumed); null before one is. */
  thread: string | null = null;
  cwd = process.cwd();
  /** Commands allowed for the rest of the session (`acceptForSession`, an execpolicy amendment): not asked again. */
  readonly allowed = new Set<string>();
  /** The server's requests waiting for orcr's response, by id (numbers from 0, as Codex's). */
  readonly asked = new Map<number, AskedKind>();
  private nextRequest = 0;
  /** Turns orcr started (turn/start answered with their ids), not yet run. */
  private readonly queued: { id: string; text: string }[] = [];
  private readonly total = { input: 0, cached: 0, output: 0 };
  private clockMs = USAGE_LIMIT_EPOCH * 1000;

  constructor(private readonly rng: Rng) {}

  /** A UUIDv7-shaped id, as Codex's threads, turns and user messages have. */
  uuid7(): string {
    const r = this.rng;
    return `019b${r.hex(4)}-${r.hex(4)}-7${r.hex(3)}-8${r.hex(3)}-${r.hex(12)}`;
  }

  callId(): string {
    return `call_${this.rng.hex(10)}`;
  }

  /** A clock that moves on a little at each look: deterministic, as the mock's transcripts are. */
  now(): number {
    this.clockMs += 7;
    return this.clockMs;
  }

  codexHome(): string {
    return process.env.CODEX_HOME ?? `${process.env.HOME ?? '/root'}/.codex`;
  }

  /** A turn orcr started: its id, answered at once; it runs when its turn comes. */
  queueTurn(text: string): string {
    const id = this.uuid7();
    this.queued.push({ id, text });
    return id;
  }

  /** The turn to run now: the one orcr started first, or (driven without a turn/start) one of its own; `text` null: its input as orcr sent it. */
  beginTurn(text: string | null): TurnCtx {
    this.thread ??= this.uuid7();
    const next = this.queued.shift();
    return { threadId: this.thread, turnId: next?.id ?? this.uuid7(), text: text ?? next?.text ?? '', startedAtMs: this.now() };
  }

  ask(kind: AskedKind): number {
    const id = this.nextRequest++;
    this.asked.set(id, kind);
    return id;
  }

  // ── lines ──────────────────────────────────────────────────────────────

  note(method: string, params: Record<string, unknown>): string {
    return j({ method, params, emittedAtMs: this.now() });
  }

  request(id: number, method: string, params: Record<string, unknown>): string {
    return j({ method, id, params });
  }

  static result(id: unknown, result: unknown): string {
    return j({ id, result });
  }

  static error(id: unknown, message: string): string {
    // Codex answers every request it cannot take with -32600, its error first.
    return j({ error: { code: -32600, message }, id });
  }

  /** The thread as thread/start, thread/resume and thread/started carry it. */
  threadObject(id: string): Record<string, unknown> {
    const s = Math.floor(this.now() / 1000);
    const day = new Date(s * 1000).toISOString().slice(0, 10).replaceAll('-', '/');
    return {
      id,
      environments: [{ environmentId: 'local', cwd: this.cwd, runtimeWorkspaceRoots: [this.cwd] }],
      extra: null,
      sessionId: id,
      forkedFromId: null,
      parentThreadId: null,
      preview: '',
      ephemeral: false,
      historyMode: 'paginated',
      modelProvider: 'openai',
      model: MODEL,
      reasoningEffort: null,
      createdAt: s,
      updatedAt: s,
      status: { type: 'idle' },
      path: `${this.codexHome()}/sessions/${day}/rollout-${id}.jsonl`,
      cwd: this.cwd,
      cliVersion: CLI_VERSION,
      originator: this.clientName,
      source: 'vscode',
      gitInfo: null,
      name: null,
      turns: [],
    };
  }

  /** thread/start's or thread/resume's result: the thread, and the settings it runs under. */
  threadResult(id: string, params: Record<string, unknown>): Record<string, unknown> {
    const sandbox = params.sandbox === 'danger-full-access' ? 'dangerFullAccess' : params.sandbox === 'read-only' ? 'readOnly' : 'workspaceWrite';
    return {
      thread: this.threadObject(id),
      model: MODEL,
      modelProvider: 'openai',
      serviceTier: null,
      cwd: this.cwd,
      instructionSources: [],
      approvalPolicy: typeof params.approvalPolicy === 'string' ? params.approvalPolicy : 'on-request',
      approvalsReviewer: 'user',
      sandbox: { type: sandbox },
      reasoningEffort: null,
    };
  }

  /** The thread's running total after one model call of `plan` (input includes cached, as Codex counts). */
  tokenUsage(t: TurnCtx, usage: TurnPlan['usage']): string {
    const last = { input: usage.input + usage.cached, cached: usage.cached, output: usage.output };
    this.total.input += last.input;
    this.total.cached += last.cached;
    this.total.output += last.output;
    const shape = (u: typeof last) => ({
      totalTokens: u.input + u.output,
      inputTokens: u.input,
      cachedInputTokens: u.cached,
      cacheWriteInputTokens: 0,
      outputTokens: u.output,
      reasoningOutputTokens: 0,
    });
    return this.note('thread/tokenUsage/updated', {
      threadId: t.threadId,
      turnId: t.turnId,
      tokenUsage: { total: shape(this.total), last: shape(last), modelContextWindow: 258400 },
    });
  }

  /**
   * A resumed thread's running total, restated as Codex does on thread/resume
   * (before any turn): the mock keeps no rollouts, so its history's total is
   * made up, and the thread's next totals go on from it.
   */
  restateUsage(threadId: string): string {
    const r = this.rng;
    const output = r.int(100, 2000);
    const cached = r.int(0, 20000);
    Object.assign(this.total, { input: cached + r.int(1000, 5000), cached, output });
    const shape = {
      totalTokens: this.total.input + output,
      inputTokens: this.total.input,
      cachedInputTokens: cached,
      cacheWriteInputTokens: 0,
      outputTokens: output,
      reasoningOutputTokens: 0,
    };
    return this.note('thread/tokenUsage/updated', { threadId, turnId: this.uuid7(), tokenUsage: { total: shape, last: shape, modelContextWindow: 258400 } });
  }

  rateLimits(): string {
    const none = { limitName: null, normalModelSlug: null, primary: null, secondary: null, credits: null, planType: null, rateLimitReachedType: null };
    return this.note('account/rateLimits/updated', { rateLimits: { limitId: 'codex', ...none } });
  }

  status(t: TurnCtx, active: boolean): string {
    return this.note('thread/status/changed', { threadId: t.threadId, status: active ? { type: 'active', activeFlags: [] } : { type: 'idle' } });
  }

  itemStarted(t: TurnCtx, item: Record<string, unknown>): string {
    return this.note('item/started', { item, threadId: t.threadId, turnId: t.turnId, startedAtMs: item.startedAtMs ?? this.now() });
  }

  itemCompleted(t: TurnCtx, item: Record<string, unknown>): string {
    return this.note('item/completed', {
      item,
      threadId: t.threadId,
      turnId: t.turnId,
      contentTokenCount: null,
      completedAtMs: item.completedAtMs ?? this.now(),
    });
  }

  /** turn/started or turn/completed: the turn, its status, and (at its end) its agent messages and error. */
  turn(t: TurnCtx, status: 'inProgress' | 'completed' | 'interrupted' | 'failed', items: unknown[] = [], error: unknown = null): string {
    const done = status !== 'inProgress';
    const end = this.now();
    const turn = {
      id: t.turnId,
      rootTurnId: t.turnId,
      items,
      itemsView: items.length > 0 ? 'summary' : 'notLoaded',
      status,
      error,
      startedAt: Math.floor(t.startedAtMs / 1000),
      completedAt: done ? Math.floor(end / 1000) : null,
      durationMs: done ? end - t.startedAtMs : null,
    };
    return this.note(done ? 'turn/completed' : 'turn/started', { threadId: t.threadId, turn });
  }
}
