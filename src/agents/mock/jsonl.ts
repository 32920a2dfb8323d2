// How orcr-mock-agent speaks orcr's own jsonl protocol: ready, turns, usage
// reports whose cost_usd is an increment.

import type { ToolStep } from './plan.js';
import type { Rng } from './rng.js';
import { j, parseJson, type Renderer } from './render.js';

export function jsonlMock(rng: Rng): Renderer {
  const session = `mock-${rng.hex(8)}`;
  return {
    start: () => [j({ type: 'ready', session_id: session, model: 'mock-1' })],
    turn(plan) {
      const lines = [j({ type: 'turn_start' }), j({ type: 'text', text: plan.intro })];
      for (const step of plan.tools) lines.push(j({ type: 'tool', name: step.action, input: jsonlInput(step) }));
      // cost_usd is this report's increment (the adapter keeps the running total).
      lines.push(j({ type: 'usage', input_tokens: plan.usage.input, output_tokens: plan.usage.output, cached_tokens: plan.usage.cached, cost_usd: plan.cost }));
      lines.push(j({ type: 'text', text: plan.final }), j({ type: 'result', ok: true, text: plan.final }), j({ type: 'turn_end' }));
      return lines;
    },
    limit: () => [j({ type: 'turn_start' }), j({ type: 'blocked', kind: 'limit', retry_after_s: 30 })],
    auth: () => ({ code: 1, lines: [j({ type: 'blocked', kind: 'login' })] }),
    parseInput(line) {
      const o = parseJson(line);
      return o && o.type === 'input' && typeof o.text === 'string' ? o.text : null;
    },
  };
}

function jsonlInput(step: ToolStep): Record<string, unknown> {
  switch (step.action) {
    case 'shell':
      return { command: step.arg };
    case 'search':
      return { pattern: step.arg };
    default:
      return { path: step.arg };
  }
}
