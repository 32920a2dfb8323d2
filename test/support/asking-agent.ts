// A stand-in for Claude Code under `--permission-prompt-tool stdio`: after
// its prompt (a stream-json user message on stdin) it prints, in order, the
// CLI's own refusals (`system`/`permission_denied`), then each request as the
// real CLI does — the assistant line with the tool_use, then a can_use_tool
// `control_request` — and waits for the `control_response` naming it,
// prints the tool's result (the answer's message for a denial), ends its
// turn with a result and exits at stdin's EOF. Every line it reads goes to
// `stdin.jsonl` in its folder, so a test sees what orcr wrote it. What it
// asks is the test's (a 10 MB Write, a command with control characters);
// the mock agent's `ask` scenario is its seeded cousin.

import fs from 'node:fs';
import path from 'node:path';
import { NODE, script } from './harness.js';

export interface Asking {
  tool: string;
  input: Record<string, unknown>;
  /** Claude Code's permission_suggestions. */
  offers?: unknown[];
  /** Its turn is interrupted while it waits: it withdraws the request (control_cancel_request) and goes on without the tool. */
  cancel?: boolean;
}

export interface AskingAgent {
  /** The argv of a run of it. */
  argv: string[];
  /** The lines orcr wrote to its stdin, parsed. */
  stdin(): Record<string, unknown>[];
  /** The answers it got (control_response lines). */
  answers(): Record<string, unknown>[];
}

export function askingAgent(at: { dir: string }, name: string, o: { asks: Asking[]; denied?: { tool: string; message: string }[] }): AskingAgent {
  const dir = path.join(at.dir, name);
  fs.mkdirSync(dir, { recursive: true });
  const log = path.join(dir, 'stdin.jsonl');
  const spec = path.join(dir, 'spec.json');
  fs.writeFileSync(spec, JSON.stringify({ asks: o.asks, denied: o.denied ?? [], log }));
  const agent = script(at, `${name}.mjs`, AGENT);
  const stdin = (): Record<string, unknown>[] =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  return { argv: [agent, spec], stdin, answers: () => stdin().filter((l) => l.type === 'control_response') };
}

const AGENT = `#!${NODE}
import fs from 'node:fs';
import readline from 'node:readline';
const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const S = 's-asking';
const out = (o) => process.stdout.write(JSON.stringify({ ...o, session_id: S }) + '\\n');
const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
const next = async () => {
  const r = await lines.next();
  if (r.done) return null;
  fs.appendFileSync(spec.log, r.value + '\\n');
  return JSON.parse(r.value);
};
const usage = { input_tokens: 10, output_tokens: 5 };
await next();
out({ type: 'system', subtype: 'init', tools: ['Bash', 'Write', 'Edit', 'AskUserQuestion'], model: 'claude-sonnet-4-5' });
for (const [i, d] of spec.denied.entries()) {
  const id = 'toolu_d' + i;
  out({ type: 'assistant', message: { id: 'md' + i, role: 'assistant', content: [{ type: 'tool_use', id, name: d.tool, input: {} }], usage } });
  out({ type: 'system', subtype: 'permission_denied', tool_name: d.tool, tool_use_id: id, message: d.message });
  out({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: d.message, is_error: true }] } });
}
let closed = false;
for (const [i, a] of spec.asks.entries()) {
  const id = 'toolu_' + i;
  const ref = 'req-' + i;
  out({ type: 'assistant', message: { id: 'm' + i, role: 'assistant', content: [{ type: 'tool_use', id, name: a.tool, input: a.input }], usage } });
  out({ type: 'control_request', request_id: ref, request: { subtype: 'can_use_tool', tool_name: a.tool, display_name: a.tool, input: a.input, permission_suggestions: a.offers, tool_use_id: id } });
  let got = null;
  if (a.cancel) {
    out({ type: 'control_cancel_request', request_id: ref });
    out({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'interrupted', is_error: true }] } });
    continue;
  }
  while (!closed) {
    const l = await next();
    if (l === null) closed = true;
    else if (l.type === 'control_response' && l.response && l.response.request_id === ref) { got = l.response.response; break; }
  }
  const allowed = got !== null && got.behavior === 'allow';
  const text = got === null ? 'Tool permission request failed: AbortError: Tool permission stream closed before response received' : allowed ? 'ran ' + a.tool : got.message;
  out({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text, is_error: !allowed }] } });
}
out({ type: 'assistant', message: { id: 'mz', role: 'assistant', content: [{ type: 'text', text: 'done' }], usage } });
out({ type: 'result', subtype: 'success', is_error: false, result: 'done', total_cost_usd: 0.001, usage });
while (!closed && (await next()) !== null);
process.exit(0);
`;
