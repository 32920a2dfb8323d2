// Claude Code (`claude -p --output-format stream-json`): its record. The
// adapter that reads it is claude/adapter.ts; the mock agent's renderer,
// mock/claude.ts.

import { CERTAINTY, defineProtocol, type TranscriptExtra } from '../protocol.js';
import { isObject, present } from '../util.js';
import { createClaudeAdapter } from './adapter.js';

export { createClaudeAdapter } from './adapter.js';

const STAMPED_TYPES = new Set(['assistant', 'user', 'result', 'rate_limit_event', 'stream_event']);

export const claude = defineProtocol({
  name: 'claude',
  // System lines, and messages and results stamped with its session_id.
  detect(type, obj) {
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
  resume: resumeArgv,
  // Its login, and its usage windows.
  accountEnv: 'CLAUDE_CONFIG_DIR',
  // `total_cost_usd` on each result.
  reportsCost: true,
  /**
   * Multi-turn (`--input-format stream-json`): the prompt is its first input
   * message, `send` adds turns, and closing stdin ends it. `--verbose` is
   * required with stream-json in print mode. Tool permissions are the user's
   * (settings.json `permissions.allow`, or `--allowedTools` in a config
   * override); as root the CLI refuses `--dangerously-skip-permissions`.
   */
  preset: {
    command: ['claude', '-p', '--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'],
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
