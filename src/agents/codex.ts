// OpenAI Codex `codex exec --json` → signals.
//
// Token accounting:
// - `turn.completed.usage` is the SESSION's running total, not the turn's:
//   codex-rs's exec JSONL processor fills it from the thread's
//   `total_token_usage`. Each report is diffed against the previous one
//   (cumulative.ts), so a multi-turn process is not counted twice over.
// - Codex's `input_tokens` INCLUDES `cached_input_tokens`. To match the other
//   adapters ("input" = tokens billed at the full input rate, "cached" = cache
//   reads): input = input_tokens − cached_input_tokens (floored at 0),
//   cached = cached_input_tokens.
// - `output_tokens` already includes reasoning tokens (as in the Responses
//   API, where reasoning is a breakdown of output), so
//   `reasoning_output_tokens`, when a version prints it, is not added.
// - Missing fields count as 0. Codex reports no cost.
//
// Tool calls are emitted once per item id, on `item.completed` (the item's
// final form). A top-level `error` line is a notice ("Reconnecting... 2/5")
// and is kept as output; only `turn.failed` or the process exit end a run.
// Two exceptions, seen from the real CLI (test/real/README.md):
// - "Reconnecting... waiting for network (…)": offline, Codex waits for the
//   network with no retry limit. That is reported as blocked `unknown`
//   (activity afterwards unblocks the run).
// - An `item.completed` of type `error` is a notice too ("Model metadata for
//   `x` not found"), printed even BEFORE `turn.started`: it must not open a
//   turn, or `turn.started` would close a phantom one.
// `turn.failed` names its cause in the result's detail: `limit` (usage
// limit), `login` (401, missing API key), else `turn.failed`.
//
// Model turns (option `modelTurns`): Codex marks no model-call boundary, so
// each completed tool or message item counts as one model turn.

import type { Adapter, AdapterOptions, ExtendedAdapter, ExtendedSignal, PlainAdapterOptions, Signal } from './signals.js';
import { createCumulativeCounter } from './cumulative.js';
import { turnFailure } from './failure.js';
import { CERTAINTY, defineProtocol } from './protocol.js';
import { createTurnTracker } from './turns.js';
import { jsonLinesAdapter, isObject, num, str, withModelTurns, type JsonObject } from './util.js';

const DOTTED_TYPES = new Set(['thread.started', 'turn.started', 'turn.completed', 'turn.failed', 'request_user_input']);

export const codex = defineProtocol({
  name: 'codex',
  // Dotted thread/turn/item events; a bare error notice (seen first when it starts offline) only when nothing else claims it.
  detect(type, obj) {
    if (DOTTED_TYPES.has(type) || type.startsWith('item.')) return CERTAINTY.own;
    if (type === 'error' && typeof obj.message === 'string') return CERTAINTY.fallback;
    return null;
  },
  adapter: (options) => createCodexAdapter(options),
  resume: resumeArgv,
  accountEnv: 'CODEX_HOME',
  // Tokens only: its cost is tokens × a configured price.
  reportsCost: false,
  /**
   * `exec` is one-shot; `--skip-git-repo-check` because orcr names the
   * working directory explicitly (without it, codex refuses any directory
   * that is not a git repository or a trusted project). Its prompt comes on
   * stdin (`-`), closed once written.
   */
  // `codex-exec`: the `codex` preset is the app-server's (codex-app/); this protocol keeps its name for the journals and configs that name it.
  preset: {
    name: 'codex-exec',
    command: ['codex', 'exec', '--json', '--skip-git-repo-check', '-'],
    takeover: { title: 'Codex', args: (session) => ['resume', session] },
  },
  mock: async () => (await import('./mock/codex.js')).codexMock,
  // A command's output and exit code; errors, the notices the adapter keeps as output included.
  transcript: {
    types: ['item.completed', 'error'],
    read(obj) {
      if (obj.type === 'item.completed' && isObject(obj.item)) {
        const it = obj.item;
        if (it.type === 'command_execution') {
          const code = typeof it.exit_code === 'number' ? it.exit_code : null;
          const text = (str(it.aggregated_output) ?? '').replace(/\n$/, '');
          return [{ kind: 'tool_result', text: text || (code !== null ? `exit ${code}` : ''), failed: code !== null && code !== 0 }];
        }
        return it.type === 'error' && typeof it.message === 'string' ? [{ kind: 'error', text: it.message }] : [];
      }
      return obj.type === 'error' && typeof obj.message === 'string' ? [{ kind: 'error', text: obj.message, replacesOutput: true }] : [];
    },
  },
});

/** `codex exec resume … ID -`: the session goes just before the prompt, the last positional (`-`: from stdin); null for a command that is no `exec`, or resumes already. */
function resumeArgv(command: readonly string[], session: string): string[] | null {
  const [program, ...rest] = command;
  if (program === undefined) return null;
  const exec = rest.indexOf('exec');
  if (exec < 0 || rest[exec + 1] === 'resume') return null;
  const before = rest.slice(0, exec + 1);
  const after = rest.slice(exec + 1);
  const stdin = after.at(-1) === '-';
  const opts = stdin ? after.slice(0, -1) : after;
  return [program, ...before, 'resume', ...opts, session, ...(stdin ? ['-'] : [])];
}

export function createCodexAdapter(options?: PlainAdapterOptions): Adapter;
export function createCodexAdapter(options: AdapterOptions): ExtendedAdapter;
export function createCodexAdapter(options?: AdapterOptions): Adapter | ExtendedAdapter {
  return withModelTurns(createCore(options?.now ?? Date.now), options);
}

function createCore(now: () => number): ExtendedAdapter {
  const turns = createTurnTracker();
  const usage = createCumulativeCounter();
  const seenItems = new Set<string>();

  function item(obj: JsonObject): ExtendedSignal[] | null {
    const it = obj.item;
    if (!isObject(it)) return null;
    // An error item is a notice, and may come before the turn starts.
    if (str(it.type) === 'error') return [];
    const out: ExtendedSignal[] = turns.start();
    const id = str(it.id);
    if (id !== undefined) {
      if (seenItems.has(id)) return out;
      seenItems.add(id);
    }
    const sig = itemSignal(it);
    if (sig) out.push(sig, { kind: 'model_turn' });
    return out;
  }

  function notice(obj: JsonObject): Signal[] | null {
    const message = str(obj.message);
    if (message === undefined) return null;
    // Offline, Codex waits for the network indefinitely: say so.
    if (/waiting for network/i.test(message)) return [...turns.ensureAlive(), { kind: 'blocked', blocked: 'unknown', message }];
    return null; // other notices ("Reconnecting... 2/5") are kept as output
  }

  function turnCompleted(obj: JsonObject): Signal[] {
    const out = turns.start();
    if (isObject(obj.usage)) {
      const inputAll = num(obj.usage.input_tokens);
      const cached = num(obj.usage.cached_input_tokens);
      const delta = usage.next({ input: Math.max(0, inputAll - cached), output: num(obj.usage.output_tokens), cached });
      out.push({ kind: 'usage', ...delta });
    }
    out.push({ kind: 'result', ok: true }, ...turns.end());
    return out;
  }

  function handle(obj: JsonObject): ExtendedSignal[] | null {
    const type = obj.type;
    if (typeof type !== 'string') return null;
    switch (type) {
      case 'thread.started':
        return turns.alive({ session_id: str(obj.thread_id) });
      case 'turn.started':
        return turns.begin();
      case 'turn.completed':
        return turnCompleted(obj);
      case 'turn.failed':
        return [...turns.start(), ...turnFailed(obj, now()), ...turns.end()];
      case 'item.completed':
        return item(obj);
      case 'item.started':
      case 'item.updated':
        // In-progress forms: they prove the turn is running, nothing more.
        return isObject(obj.item) ? turns.start() : null;
      case 'request_user_input': {
        const out = turns.start();
        out.push({ kind: 'blocked', blocked: 'question', message: 'the agent asked for input' });
        return out;
      }
      case 'error':
        return notice(obj);
      default:
        return null;
    }
  }

  return jsonLinesAdapter<ExtendedSignal>(handle, () => []);
}

/** A failed turn's result (exec's `turn.failed`). */
function turnFailed(obj: JsonObject, now: number): Signal[] {
  return turnFailure(isObject(obj.error) ? str(obj.error.message) : str(obj.error), now);
}

function itemSignal(it: JsonObject): Signal | null {
  switch (str(it.type)) {
    case 'agent_message': {
      const text = str(it.text);
      return text ? { kind: 'text', text } : null;
    }
    case 'command_execution':
      return { kind: 'tool', name: 'shell', input: { command: it.command ?? null } };
    case 'mcp_tool_call': {
      const server = str(it.server) ?? '';
      const tool = str(it.tool) ?? '';
      if (!server && !tool) return null;
      return { kind: 'tool', name: server && tool ? `${server}.${tool}` : server || tool, input: it.arguments ?? null };
    }
    case 'file_change':
      return { kind: 'tool', name: 'apply_patch', input: { changes: Array.isArray(it.changes) ? it.changes : [] } };
    case 'web_search':
      return { kind: 'tool', name: 'web_search', input: { query: it.query ?? null } };
    default:
      return null; // reasoning, todo_list, error items, plans: not counted
  }
}
