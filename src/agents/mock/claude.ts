// How orcr-mock-agent speaks Claude Code's stream-json: an init per turn,
// assistant lines with start-of-message usage snapshots, tool results as user
// messages, and a result carrying the session's cumulative cost. Its turns
// that ask before their tools are claude-ask.ts'.

import { claudeAsking } from './claude-ask.js';
import { claudeInput, ClaudeSession, snapshotOf, usageOf } from './claude-session.js';
import type { Action, ToolStep, TurnPlan } from './plan.js';
import type { Rng } from './rng.js';
import { j, uuid, USAGE_LIMIT_EPOCH, round6, toolOutput, WRITTEN, type Renderer } from './render.js';

const ZERO_USAGE = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };

function claudeTurn(s: ClaudeSession, rng: Rng, plan: TurnPlan): string[] {
  const snap = snapshotOf(plan);
  const first = `msg_${rng.hex(24)}`;
  const lines = [s.init(), s.assistant(first, { type: 'text', text: plan.intro }, snap)];
  plan.tools.forEach((step, i) => {
    // The first tool call shares the intro's message id, like the real CLI's split lines.
    const id = i === 0 ? first : `msg_${rng.hex(24)}`;
    const toolId = s.nextToolId();
    const [name, input] = claudeTool(step);
    lines.push(s.assistant(id, { type: 'tool_use', id: toolId, name, input }, snap));
    lines.push(s.toolResult(toolId, toolOutput(step)));
  });
  lines.push(s.assistant(`msg_${rng.hex(24)}`, { type: 'text', text: plan.final }, snap));
  s.costTotal = round6(s.costTotal + plan.cost);
  lines.push(s.result(true, plan.final, usageOf(plan), plan.tools.length + 1));
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
    asking: claudeAsking(s, rng),
  };
}

function claudeTool(step: ToolStep): [string, Record<string, unknown>] {
  const map: Record<Action, [string, Record<string, unknown>]> = {
    shell: ['Bash', { command: step.arg, description: `Run ${step.arg}` }],
    read: ['Read', { file_path: step.arg }],
    edit: ['Edit', { file_path: step.arg, old_string: 'TODO', new_string: 'DONE' }],
    write: ['Write', { file_path: step.arg, content: WRITTEN }],
    search: ['Grep', { pattern: step.arg }],
  };
  return map[step.action];
}
