// Renders the mock agent's turns in each agent CLI's output format, modelled
// on what the real CLIs were observed to print (test/real/transcripts). The
// renderers hold the state a real CLI carries across turns: Claude's
// cumulative session cost, Codex's and Gemini's running token totals.

import type { Action, ToolStep, TurnPlan } from './plan.js';
import type { Rng } from './rng.js';

export type Format = 'claude' | 'codex' | 'gemini' | 'jsonl';
export const FORMATS: readonly Format[] = ['claude', 'codex', 'gemini', 'jsonl'];

export interface Renderer {
  /** Printed once, before the first turn (Claude prints its init per turn instead). */
  start(): string[];
  /** One whole turn. */
  turn(plan: TurnPlan): string[];
  /** A turn that runs into a usage limit. */
  limit(): string[];
  /** Not logged in: what the CLI prints, and its exit code. */
  auth(): { lines: string[]; stderr?: string; code: number };
  /** One stdin line in interactive mode → the input text, or null to ignore it. */
  parseInput(line: string): string | null;
}

const j = (o: unknown): string => JSON.stringify(o);

function uuid(rng: Rng): string {
  return `${rng.hex(8)}-${rng.hex(4)}-4${rng.hex(3)}-a${rng.hex(3)}-${rng.hex(12)}`;
}

function parseJson(line: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const anyLine = (line: string): string | null => (line.trim() === '' ? null : line.trim());

const USAGE_LIMIT_EPOCH = 1767225600; // fixed, so transcripts stay deterministic

export function createRenderer(format: Format, rng: Rng): Renderer {
  switch (format) {
    case 'claude':
      return claude(rng);
    case 'codex':
      return codex(rng);
    case 'gemini':
      return gemini(rng);
    case 'jsonl':
      return jsonl(rng);
  }
}

// ---------------------------------------------------------------- Claude Code

function claude(rng: Rng): Renderer {
  const session = uuid(rng);
  const model = 'claude-sonnet-4-5-20250929';
  let costTotal = 0;
  let toolSeq = 0;

  const init = (): string =>
    j({ type: 'system', subtype: 'init', cwd: process.cwd(), session_id: session, tools: ['Bash', 'Read', 'Edit', 'Grep'], mcp_servers: [], model, permissionMode: 'default', apiKeySource: 'none', uuid: uuid(rng) });
  const assistant = (id: string, block: unknown, snapshot: unknown, extra: Record<string, unknown> = {}): string =>
    j({ type: 'assistant', message: { model, id, type: 'message', role: 'assistant', content: [block], stop_reason: null, stop_sequence: null, usage: snapshot }, parent_tool_use_id: null, session_id: session, uuid: uuid(rng), ...extra });
  const toolBlock = (id: string, step: ToolStep): unknown => {
    const [name, input] = claudeTool(step);
    return { type: 'tool_use', id, name, input };
  };
  const result = (ok: boolean, text: string, usage: Record<string, number>, numTurns: number): string =>
    j({ type: 'result', subtype: 'success', is_error: !ok, duration_ms: 1000 + numTurns * 731, duration_api_ms: 800 + numTurns * 612, num_turns: numTurns, result: text, session_id: session, total_cost_usd: costTotal, usage, permission_denials: [], uuid: uuid(rng) });
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
        lines.push(j({ type: 'user', message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: toolOutput(step), is_error: false }] }, parent_tool_use_id: null, session_id: session, uuid: uuid(rng) }));
      });
      lines.push(assistant(`msg_${rng.hex(24)}`, { type: 'text', text: plan.final }, snap));
      costTotal = round6(costTotal + plan.cost);
      const usage = { input_tokens: u.input - u.cacheWrite, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: u.cached, output_tokens: u.output };
      lines.push(result(true, plan.final, usage, plan.tools.length + 1));
      return lines;
    },
    limit() {
      const lines = [init()];
      for (let attempt = 1; attempt <= 3; attempt++) {
        lines.push(j({ type: 'system', subtype: 'api_retry', attempt, max_retries: 10, retry_delay_ms: 1000 * 2 ** (attempt - 1), error_status: 429, error: 'rate_limit', session_id: session, uuid: uuid(rng) }));
      }
      lines.push(result(false, `Claude AI usage limit reached|${USAGE_LIMIT_EPOCH}`, zero, 1));
      return lines;
    },
    auth() {
      const text = 'Not logged in · Please run /login';
      return {
        code: 1,
        lines: [
          init(),
          assistant(uuid(rng), { type: 'text', text }, zero, { error: 'authentication_failed' }),
          result(false, text, zero, 1),
        ],
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

// ---------------------------------------------------------------- Codex

function codex(rng: Rng): Renderer {
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
        if (step.action === 'edit') {
          lines.push(item('item.completed', { id, type: 'file_change', changes: [{ path: step.arg, kind: 'update' }], status: 'completed' }));
        } else if (step.action === 'search') {
          const base = { id, type: 'mcp_tool_call', server: 'docs', tool: 'search', arguments: { query: step.arg }, result: null, error: null };
          lines.push(item('item.started', { ...base, status: 'in_progress' }));
          lines.push(item('item.completed', { ...base, result: { content: [{ type: 'text', text: 'no results' }], structured_content: null }, status: 'completed' }));
        } else {
          const command = `bash -lc '${step.action === 'read' ? `cat ${step.arg}` : step.arg}'`;
          lines.push(item('item.started', { id, type: 'command_execution', command, aggregated_output: '', exit_code: null, status: 'in_progress' }));
          lines.push(item('item.completed', { id, type: 'command_execution', command, aggregated_output: toolOutput(step) + '\n', exit_code: 0, status: 'completed' }));
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

// ---------------------------------------------------------------- Gemini CLI

function gemini(rng: Rng): Renderer {
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
    return [ev({ type: 'message', role: 'assistant', content: text.slice(0, cut), delta: true }), ev({ type: 'message', role: 'assistant', content: text.slice(cut), delta: true })];
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
      const message = '[API Error: got status: 429 Too Many Requests. Quota exceeded for quota metric \'Gemini 2.5 Pro Requests\'.]';
      return [
        ev({ type: 'message', role: 'user', content: 'continue' }),
        ev({ type: 'error', severity: 'error', message }),
        ev({ type: 'result', status: 'error', error: { type: 'Error', message }, stats: stats() }),
      ];
    },
    auth: () => ({
      code: 41,
      lines: [],
      stderr: 'Please set an Auth method in your settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA',
    }),
    parseInput: anyLine,
  };
}

function geminiTool(step: ToolStep): [string, Record<string, unknown>] {
  const map: Record<Action, [string, Record<string, unknown>]> = {
    shell: ['run_shell_command', { command: step.arg }],
    read: ['read_file', { absolute_path: `/w/repo/${step.arg}` }],
    edit: ['replace', { file_path: `/w/repo/${step.arg}`, old_string: 'TODO', new_string: 'DONE' }],
    search: ['search_file_content', { pattern: step.arg }],
  };
  return map[step.action];
}

// ---------------------------------------------------------------- orcr jsonl

function jsonl(rng: Rng): Renderer {
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

// ---------------------------------------------------------------- shared

function toolOutput(step: ToolStep): string {
  switch (step.action) {
    case 'shell':
      return `$ ${step.arg}\nok`;
    case 'read':
      return `// ${step.arg}\nexport {};`;
    case 'edit':
      return `The file ${step.arg} has been updated.`;
    case 'search':
      return `src/index.ts:1: ${step.arg}`;
  }
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
