// The mock agent's Claude Code session: each kind of line as the real CLI
// writes it, and what the session carries across turns (its id, its
// cumulative cost). Shared by its turns that ask (claude-ask.ts) and those
// that do not (claude.ts).

import type { TurnPlan } from './plan.js';
import type { Rng } from './rng.js';
import { j, parseJson, uuid } from './render.js';

/** A tool call the CLI refused, as its result's `permission_denials` lists it. */
export interface Denial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
}

/** What the CLI adds to a tool result's line: how its permission was decided. */
export type ResultMeta = Record<string, unknown>;

const TOOLS = ['Bash', 'Read', 'Edit', 'Grep'];

export class ClaudeSession {
  readonly id: string;
  readonly model = 'claude-sonnet-4-5-20250929';
  costTotal = 0;
  private toolSeq = 0;

  constructor(private readonly rng: Rng) {
    this.id = uuid(rng);
  }

  init(tools: readonly string[] = TOOLS): string {
    return j({
      type: 'system',
      subtype: 'init',
      cwd: process.cwd(),
      session_id: this.id,
      tools,
      mcp_servers: [],
      model: this.model,
      permissionMode: 'default',
      apiKeySource: 'none',
      uuid: uuid(this.rng),
    });
  }

  assistant(id: string, block: unknown, snapshot: unknown, extra: Record<string, unknown> = {}): string {
    return j({
      type: 'assistant',
      message: { model: this.model, id, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null, usage: snapshot },
      parent_tool_use_id: null,
      session_id: this.id,
      uuid: uuid(this.rng),
      ...extra,
    });
  }

  nextToolId(): string {
    return `toolu_${this.rng.hex(20)}${(this.toolSeq++).toString(36)}`;
  }

  /** A tool's result, as the user message the CLI writes it in (with how it was let run, when it was asked). */
  toolResult(toolId: string, content: string, isError = false, meta?: ResultMeta): string {
    const block = isError
      ? { type: 'tool_result', content, is_error: true, tool_use_id: toolId }
      : { tool_use_id: toolId, type: 'tool_result', content, is_error: false };
    return j({
      type: 'user',
      message: { role: 'user', content: [block] },
      parent_tool_use_id: null,
      session_id: this.id,
      uuid: uuid(this.rng),
      ...(meta ? { tool_result_meta: [{ id: toolId, ...meta }] } : {}),
    });
  }

  result(ok: boolean, text: string, usage: Record<string, number>, numTurns: number, denials: readonly Denial[] = []): string {
    return j({
      type: 'result',
      subtype: 'success',
      is_error: !ok,
      duration_ms: 1000 + numTurns * 731,
      duration_api_ms: 800 + numTurns * 612,
      num_turns: numTurns,
      result: text,
      session_id: this.id,
      total_cost_usd: this.costTotal,
      usage,
      permission_denials: denials,
      uuid: uuid(this.rng),
    });
  }
}

/** Start-of-message snapshots: output_tokens 1, as the real CLI prints. */
export function snapshotOf(plan: TurnPlan): Record<string, number> {
  const u = plan.usage;
  return { input_tokens: 3, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: Math.floor(u.cached / 3), output_tokens: 1 };
}

/** The turn's real totals, for its result. */
export function usageOf(plan: TurnPlan): Record<string, number> {
  const u = plan.usage;
  return { input_tokens: u.input - u.cacheWrite, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: u.cached, output_tokens: u.output };
}

/** `--input-format stream-json`: {"type":"user","message":{"role":"user","content":...}} → its text. */
export function claudeInput(line: string): string | null {
  const o = parseJson(line);
  if (!o || o.type !== 'user' || typeof o.message !== 'object' || o.message === null) return null;
  const content = (o.message as Record<string, unknown>).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const text = content
    .map((b: unknown) => (typeof b === 'object' && b !== null && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
    .join('');
  return text || null;
}
