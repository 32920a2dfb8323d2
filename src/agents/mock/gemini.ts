// How orcr-mock-agent speaks Gemini CLI's stream-json: timestamped events,
// assistant text in delta chunks, and result stats as session totals.

import type { Action, ToolStep } from './plan.js';
import type { Rng } from './rng.js';
import { anyLine, j, uuid, toolOutput, WRITTEN, type Renderer } from './render.js';

export function geminiMock(rng: Rng): Renderer {
  const session = uuid(rng);
  let clock = Date.UTC(2025, 10, 3, 10, 0, 0);
  let toolSeq = 0;
  // `result.stats` are session totals; input_tokens includes `cached`.
  const total = { input: 0, cached: 0, output: 0 };
  const ev = (o: Record<string, unknown>): string => {
    clock += 137;
    const { type, ...rest } = o;
    return j({ type, timestamp: new Date(clock).toISOString(), ...rest });
  };
  const stats = (): Record<string, number> => ({
    total_tokens: total.input + total.cached + total.output,
    input_tokens: total.input + total.cached,
    output_tokens: total.output,
    cached: total.cached,
    input: total.input,
    duration_ms: 1200 + toolSeq * 300,
    tool_calls: toolSeq,
  });
  const say = (text: string): string[] => {
    // Streamed in delta chunks, as the CLI does.
    const cut = Math.max(1, Math.floor(text.length / 2));
    return [
      ev({ type: 'message', role: 'assistant', content: text.slice(0, cut), delta: true }),
      ev({ type: 'message', role: 'assistant', content: text.slice(cut), delta: true }),
    ];
  };

  return {
    start: () => [ev({ type: 'init', session_id: session, model: 'gemini-2.5-pro' })],
    turn(plan) {
      const lines = [ev({ type: 'message', role: 'user', content: plan.prompt }), ...say(plan.intro)];
      for (const step of plan.tools) {
        const [name, parameters] = geminiTool(step);
        const id = `${name}-${clock}-${toolSeq++}`;
        lines.push(ev({ type: 'tool_use', tool_name: name, tool_id: id, parameters }));
        lines.push(ev({ type: 'tool_result', tool_id: id, status: 'success', output: toolOutput(step) }));
      }
      lines.push(...say(plan.final));
      total.input += plan.usage.input;
      total.cached += plan.usage.cached;
      total.output += plan.usage.output;
      lines.push(ev({ type: 'result', status: 'success', stats: stats() }));
      return lines;
    },
    limit() {
      const message = "[API Error: got status: 429 Too Many Requests. Quota exceeded for quota metric 'Gemini 2.5 Pro Requests'.]";
      return [
        ev({ type: 'message', role: 'user', content: 'continue' }),
        ev({ type: 'error', severity: 'error', message }),
        ev({ type: 'result', status: 'error', error: { type: 'Error', message }, stats: stats() }),
      ];
    },
    auth: () => ({
      code: 41,
      lines: [],
      stderr:
        'Please set an Auth method in your settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA',
    }),
    parseInput: anyLine,
  };
}

function geminiTool(step: ToolStep): [string, Record<string, unknown>] {
  const map: Record<Action, [string, Record<string, unknown>]> = {
    shell: ['run_shell_command', { command: step.arg }],
    read: ['read_file', { absolute_path: `/w/repo/${step.arg}` }],
    edit: ['replace', { file_path: `/w/repo/${step.arg}`, old_string: 'TODO', new_string: 'DONE' }],
    write: ['write_file', { file_path: `/w/repo/${step.arg}`, content: WRITTEN }],
    search: ['search_file_content', { pattern: step.arg }],
  };
  return map[step.action];
}
