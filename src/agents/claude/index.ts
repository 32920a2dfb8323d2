// Claude Code (`claude -p --output-format stream-json`): its record. The
// adapter that reads it is claude/adapter.ts; its requests are read in
// claude/asks.ts and answered in claude/answers.ts; the mock agent's
// renderer, mock/claude.ts.

import { CERTAINTY, defineProtocol, type TranscriptExtra } from '../protocol.js';
import { isObject, present } from '../util.js';
import { createClaudeAdapter } from './adapter.js';
import { answerLine } from './answers.js';

export { createClaudeAdapter } from './adapter.js';

const STAMPED_TYPES = new Set(['assistant', 'user', 'result', 'rate_limit_event', 'stream_event']);
const CONTROL_TYPES = new Set(['control_request', 'control_response', 'control_cancel_request']);

export const claude = defineProtocol({
  name: 'claude',
  // System lines, messages and results stamped with its session_id, and its
  // control channel (an answer to `initialize` comes before the init line).
  detect(type, obj) {
    if (CONTROL_TYPES.has(type)) return CERTAINTY.own;
    if (type === 'system' && (obj.subtype === 'init' || present(obj, 'session_id'))) return CERTAINTY.own;
    if (STAMPED_TYPES.has(type) && typeof obj.session_id === 'string') return CERTAINTY.own;
    if (type === 'assistant' && isObject(obj.message)) return CERTAINTY.own;
    return null;
  },
  adapter: (options) => createClaudeAdapter(options),
  // `--input-format stream-json`: one user message a line.
  input: {
    line: (text) => JSON.stringify({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: 'default' }) + '\n',
  },
  // `--permission-prompt-tool stdio`: a control_response a line, by request_id.
  approvals: { answer: answerLine },
  resume: resumeArgv,
  // Its login, and its usage windows.
  accountEnv: 'CLAUDE_CONFIG_DIR',
  // `total_cost_usd` on each result.
  reportsCost: true,
  /**
   * Multi-turn (`--input-format stream-json`): the prompt is its first input
   * message, `send` adds turns, and closing stdin ends it. `--verbose` is
   * required with stream-json in print mode. `--permission-prompt-tool
   * stdio`: a tool the user's settings do not allow (settings.json
   * `permissions.allow`, or `--allowedTools`) is asked of orcr on stdout and
   * waits for the answer on stdin; it also lets the model ask questions
   * (AskUserQuestion). A config override of the provider's command that
   * leaves the flag out gets the CLI's own refusals instead. As root the CLI
   * refuses `--dangerously-skip-permissions`.
   */
  preset: {
    command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--permission-prompt-tool', 'stdio'],
    interactive_input: true,
    takeover: { title: 'Claude Code', args: (session) => ['--resume', session] },
  },
  mock: async () => (await import('../mock/claude.js')).claudeMock,
  // Tool results come back as `user` messages; a prompt given as input is echoed as one.
  transcript: {
    types: ['user'],
    read(obj) {
      if (obj.type !== 'user' || !isObject(obj.message)) return [];
      const content = obj.message.content;
      if (typeof content === 'string') return [{ kind: 'echo', text: content }];
      if (!Array.isArray(content)) return [];
      return content.flatMap((b): TranscriptExtra[] => {
        if (!isObject(b)) return [];
        if (b.type === 'tool_result') return [{ kind: 'tool_result', text: contentText(b.content), failed: b.is_error === true }];
        if (b.type === 'text' && typeof b.text === 'string') return [{ kind: 'echo', text: b.text }];
        return [];
      });
    },
  },
});

/** `claude --resume ID …`, the first command's flags kept; a resume already in it is replaced, not doubled. */
function resumeArgv(command: readonly string[], session: string): string[] | null {
  const [program, ...rest] = command;
  if (program === undefined) return null;
  const kept: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--resume' || rest[i] === '-r') i++;
    else if (rest[i]!.startsWith('--resume=')) continue;
    else kept.push(rest[i]!);
  }
  return [program, '--resume', session, ...kept];
}

/** A tool result's content: a string, or text blocks. */
function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c))
    return c
      .map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : ''))
      .filter(Boolean)
      .join('\n');
  return '';
}
