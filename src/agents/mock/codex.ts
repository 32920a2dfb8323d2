// How orcr-mock-agent speaks Codex's `exec --json`: a thread, turns of items,
// and turn.completed usage as the session's running total.

import type { Rng } from './rng.js';
import { anyLine, j, toolOutput, type Renderer } from './render.js';

export function codexMock(rng: Rng): Renderer {
  const thread = `019f${rng.hex(4)}-${rng.hex(4)}-7${rng.hex(3)}-9${rng.hex(3)}-${rng.hex(12)}`;
  let itemSeq = 0;
  // `turn.completed.usage` is the session's running total; input includes cached.
  const total = { input: 0, cached: 0, output: 0 };
  const item = (type: 'item.started' | 'item.completed', it: Record<string, unknown>): string => j({ type, item: it });

  const fail = (message: string): string[] => [j({ type: 'turn.started' }), j({ type: 'error', message }), j({ type: 'turn.failed', error: { message } })];

  return {
    start: () => [j({ type: 'thread.started', thread_id: thread })],
    turn(plan) {
      const lines = [j({ type: 'turn.started' })];
      lines.push(item('item.completed', { id: `item_${itemSeq++}`, type: 'reasoning', text: `**${plan.intro}**` }));
      for (const step of plan.tools) {
        const id = `item_${itemSeq++}`;
        if (step.action === 'edit' || step.action === 'write') {
          const kind = step.action === 'edit' ? 'update' : 'add';
          lines.push(item('item.completed', { id, type: 'file_change', changes: [{ path: step.arg, kind }], status: 'completed' }));
        } else if (step.action === 'search') {
          const base = { id, type: 'mcp_tool_call', server: 'docs', tool: 'search', arguments: { query: step.arg }, result: null, error: null };
          lines.push(item('item.started', { ...base, status: 'in_progress' }));
          lines.push(
            item('item.completed', { ...base, result: { content: [{ type: 'text', text: 'no results' }], structured_content: null }, status: 'completed' }),
          );
        } else {
          const command = `bash -lc '${step.action === 'read' ? `cat ${step.arg}` : step.arg}'`;
          lines.push(item('item.started', { id, type: 'command_execution', command, aggregated_output: '', exit_code: null, status: 'in_progress' }));
          lines.push(
            item('item.completed', { id, type: 'command_execution', command, aggregated_output: toolOutput(step) + '\n', exit_code: 0, status: 'completed' }),
          );
        }
      }
      lines.push(item('item.completed', { id: `item_${itemSeq++}`, type: 'agent_message', text: plan.final }));
      total.input += plan.usage.input + plan.usage.cached;
      total.cached += plan.usage.cached;
      total.output += plan.usage.output;
      lines.push(j({ type: 'turn.completed', usage: { input_tokens: total.input, cached_input_tokens: total.cached, output_tokens: total.output } }));
      return lines;
    },
    limit: () => fail("You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing) or try again in 4 days 23 hours 10 minutes."),
    auth: () => ({ code: 1, lines: fail('unexpected status 401 Unauthorized: Missing bearer or basic authentication in header') }),
    parseInput: anyLine,
  };
}
