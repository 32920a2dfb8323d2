// How orcr-mock-agent speaks Claude Code's stream-json: an init per turn,
// assistant lines with start-of-message usage snapshots, tool results as user
// messages, and a result carrying the session's cumulative cost.

import type { Action, ToolStep, TurnPlan } from './plan.js';
import type { Rng } from './rng.js';
import { j, uuid, parseJson, USAGE_LIMIT_EPOCH, toolOutput, round6, type Renderer } from './render.js';

/** One session's lines, each kind as the real CLI writes it; the session's id and its cumulative cost. */
class ClaudeSession {
  readonly id: string;
  readonly model = 'claude-sonnet-4-5-20250929';
  costTotal = 0;
  private toolSeq = 0;

  constructor(private readonly rng: Rng) {
    this.id = uuid(rng);
  }

  init(): string {
    return j({
      type: 'system',
      subtype: 'init',
      cwd: process.cwd(),
      session_id: this.id,
      tools: ['Bash', 'Read', 'Edit', 'Grep'],
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

  /** A tool's result, as the user message the CLI writes it in. */
  toolResult(toolId: string, step: ToolStep): string {
    return j({
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: toolOutput(step), is_error: false }] },
      parent_tool_use_id: null,
      session_id: this.id,
      uuid: uuid(this.rng),
    });
  }

  result(ok: boolean, text: string, usage: Record<string, number>, numTurns: number): string {
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
      permission_denials: [],
      uuid: uuid(this.rng),
    });
  }
}

const ZERO_USAGE = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };

function claudeTurn(s: ClaudeSession, rng: Rng, plan: TurnPlan): string[] {
  const u = plan.usage;
  // Start-of-message snapshots: output_tokens 1, as the real CLI prints.
  const snap = { input_tokens: 3, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: Math.floor(u.cached / 3), output_tokens: 1 };
  const first = `msg_${rng.hex(24)}`;
  const lines = [s.init(), s.assistant(first, { type: 'text', text: plan.intro }, snap)];
  plan.tools.forEach((step, i) => {
    // The first tool call shares the intro's message id, like the real CLI's split lines.
    const id = i === 0 ? first : `msg_${rng.hex(24)}`;
    const toolId = s.nextToolId();
    const [name, input] = claudeTool(step);
    lines.push(s.assistant(id, { type: 'tool_use', id: toolId, name, input }, snap));
    lines.push(s.toolResult(toolId, step));
  });
  lines.push(s.assistant(`msg_${rng.hex(24)}`, { type: 'text', text: plan.final }, snap));
  s.costTotal = round6(s.costTotal + plan.cost);
  const usage = {
    input_tokens: u.input - u.cacheWrite,
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cached,
    output_tokens: u.output,
  };
  lines.push(s.result(true, plan.final, usage, plan.tools.length + 1));
  return lines;
}

function claudeLimit(s: ClaudeSession, rng: Rng): string[] {
  const lines = [s.init()];
  for (let attempt = 1; attempt <= 3; attempt++) {
    lines.push(
      j({
        type: 'system',
        subtype: 'api_retry',
        attempt,
        max_retries: 10,
        retry_delay_ms: 1000 * 2 ** (attempt - 1),
        error_status: 429,
        error: 'rate_limit',
        session_id: s.id,
        uuid: uuid(rng),
      }),
    );
  }
  lines.push(s.result(false, `Claude AI usage limit reached|${USAGE_LIMIT_EPOCH}`, ZERO_USAGE, 1));
  return lines;
}

/** `--input-format stream-json`: {"type":"user","message":{"role":"user","content":...}} → its text. */
function claudeInput(line: string): string | null {
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

export function claudeMock(rng: Rng): Renderer {
  const s = new ClaudeSession(rng);
  return {
    start: () => [],
    turn: (plan) => claudeTurn(s, rng, plan),
    limit: () => claudeLimit(s, rng),
    auth() {
      const text = 'Not logged in · Please run /login';
      return {
        code: 1,
        lines: [s.init(), s.assistant(uuid(rng), { type: 'text', text }, ZERO_USAGE, { error: 'authentication_failed' }), s.result(false, text, ZERO_USAGE, 1)],
      };
    },
    parseInput: claudeInput,
  };
}

function claudeTool(step: ToolStep): [string, Record<string, unknown>] {
  const map: Record<Action, [string, Record<string, unknown>]> = {
    shell: ['Bash', { command: step.arg, description: `Run ${step.arg}` }],
    read: ['Read', { file_path: step.arg }],
    edit: ['Edit', { file_path: step.arg, old_string: 'TODO', new_string: 'DONE' }],
    search: ['Grep', { pattern: step.arg }],
  };
  return map[step.action];
}
