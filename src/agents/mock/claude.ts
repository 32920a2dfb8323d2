// How orcr-mock-agent speaks Claude Code's stream-json: an init per turn,
// assistant lines with start-of-message usage snapshots, tool results as user
// messages, and a result carrying the session's cumulative cost.

import type { Action, ToolStep } from './plan.js';
import type { Rng } from './rng.js';
import { j, uuid, parseJson, USAGE_LIMIT_EPOCH, toolOutput, round6, type Renderer } from './render.js';

export function claudeMock(rng: Rng): Renderer {
  const session = uuid(rng);
  const model = 'claude-sonnet-4-5-20250929';
  let costTotal = 0;
  let toolSeq = 0;

  const init = (): string =>
    j({
      type: 'system',
      subtype: 'init',
      cwd: process.cwd(),
      session_id: session,
      tools: ['Bash', 'Read', 'Edit', 'Grep'],
      mcp_servers: [],
      model,
      permissionMode: 'default',
      apiKeySource: 'none',
      uuid: uuid(rng),
    });
  const assistant = (id: string, block: unknown, snapshot: unknown, extra: Record<string, unknown> = {}): string =>
    j({
      type: 'assistant',
      message: { model, id, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null, usage: snapshot },
      parent_tool_use_id: null,
      session_id: session,
      uuid: uuid(rng),
      ...extra,
    });
  const toolBlock = (id: string, step: ToolStep): unknown => {
    const [name, input] = claudeTool(step);
    return { type: 'tool_use', id, name, input };
  };
  const result = (ok: boolean, text: string, usage: Record<string, number>, numTurns: number): string =>
    j({
      type: 'result',
      subtype: 'success',
      is_error: !ok,
      duration_ms: 1000 + numTurns * 731,
      duration_api_ms: 800 + numTurns * 612,
      num_turns: numTurns,
      result: text,
      session_id: session,
      total_cost_usd: costTotal,
      usage,
      permission_denials: [],
      uuid: uuid(rng),
    });
  const zero = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };

  return {
    start: () => [],
    turn(plan) {
      const u = plan.usage;
      // Start-of-message snapshots: output_tokens 1, as the real CLI prints.
      const snap = { input_tokens: 3, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: Math.floor(u.cached / 3), output_tokens: 1 };
      const first = `msg_${rng.hex(24)}`;
      const lines = [init(), assistant(first, { type: 'text', text: plan.intro }, snap)];
      plan.tools.forEach((step, i) => {
        // The first tool call shares the intro's message id, like the real CLI's split lines.
        const id = i === 0 ? first : `msg_${rng.hex(24)}`;
        const toolId = `toolu_${rng.hex(20)}${(toolSeq++).toString(36)}`;
        lines.push(assistant(id, toolBlock(toolId, step), snap));
        lines.push(
          j({
            type: 'user',
            message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: toolOutput(step), is_error: false }] },
            parent_tool_use_id: null,
            session_id: session,
            uuid: uuid(rng),
          }),
        );
      });
      lines.push(assistant(`msg_${rng.hex(24)}`, { type: 'text', text: plan.final }, snap));
      costTotal = round6(costTotal + plan.cost);
      const usage = {
        input_tokens: u.input - u.cacheWrite,
        cache_creation_input_tokens: u.cacheWrite,
        cache_read_input_tokens: u.cached,
        output_tokens: u.output,
      };
      lines.push(result(true, plan.final, usage, plan.tools.length + 1));
      return lines;
    },
    limit() {
      const lines = [init()];
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
            session_id: session,
            uuid: uuid(rng),
          }),
        );
      }
      lines.push(result(false, `Claude AI usage limit reached|${USAGE_LIMIT_EPOCH}`, zero, 1));
      return lines;
    },
    auth() {
      const text = 'Not logged in · Please run /login';
      return {
        code: 1,
        lines: [init(), assistant(uuid(rng), { type: 'text', text }, zero, { error: 'authentication_failed' }), result(false, text, zero, 1)],
      };
    },
    parseInput(line) {
      // `--input-format stream-json`: {"type":"user","message":{"role":"user","content":...}}
      const o = parseJson(line);
      if (!o || o.type !== 'user' || typeof o.message !== 'object' || o.message === null) return null;
      const content = (o.message as Record<string, unknown>).content;
      if (typeof content === 'string') return content;
      if (!Array.isArray(content)) return null;
      const text = content
        .map((b: unknown) => (typeof b === 'object' && b !== null && typeof (b as { text?: unknown }).text === 'string' ? (b as { text: string }).text : ''))
        .join('');
      return text || null;
    },
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
