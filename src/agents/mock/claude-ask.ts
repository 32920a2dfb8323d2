// How orcr-mock-agent speaks Claude Code under `--permission-prompt-tool
// stdio`: before a command, a new file or an edit it prints a can_use_tool
// `control_request` and waits for the `control_response` naming its
// request_id; an allowed tool runs, a refused one gives the model the
// refusal's words as an error result, and the turn goes on. A question
// (AskUserQuestion) is asked the same way and its answer read from the input
// sent back. As the real CLI (2.1.332) was seen to do: answers to other ids
// are ignored, a line that is not JSON ends it (exit 1), a request still
// waiting when stdin closes is refused. Whether the CLI still prints a
// request once stdin is closed was not seen: this one refuses without it.

import type { Denial, ResultMeta } from './claude-session.js';
import { claudeInput, type ClaudeSession, snapshotOf, usageOf } from './claude-session.js';
import type { PlannedQuestion, ToolStep, TurnPlan } from './plan.js';
import type { Rng } from './rng.js';
import { j, round6, toolOutput, uuid, WRITTEN, type Asking, type AskStep, type Reply, type StdinLine } from './render.js';

const STREAM_CLOSED = 'Tool permission request failed: AbortError: Tool permission stream closed before response received';
const INVALID =
  "The canUseTool callback returned an invalid permission result. Expected {behavior: 'allow', updatedInput?: object} or {behavior: 'deny', message: string}. updatedPermissions may hold at most 4096 updates, rules and directories in all.";
/** The prompt tool in use adds these to the tools the CLI offers. */
const TOOLS = ['Bash', 'Read', 'Edit', 'Write', 'Grep', 'AskUserQuestion'];

const ACCEPTED: ResultMeta = { permission_decision: { decision: 'accept', source: 'user_temporary' } };
const REJECTED: ResultMeta = { non_execution_kind: 'permission-rule', permission_decision: { decision: 'reject', source: 'user_reject' } };

type Steps = Generator<AskStep, void, Reply | undefined>;

export function claudeAsking(s: ClaudeSession, rng: Rng): Asking {
  const closed: Reply = { allow: false, message: STREAM_CLOSED };
  return { turn: (plan) => askingTurn(s, rng, plan, closed), read: readLine, closed };
}

function* askingTurn(s: ClaudeSession, rng: Rng, plan: TurnPlan, closed: Reply): Steps {
  const snap = snapshotOf(plan);
  const denials: Denial[] = [];
  const first = `msg_${rng.hex(24)}`;
  yield { lines: [s.init(TOOLS), s.assistant(first, { type: 'text', text: plan.intro }, snap)] };
  if (plan.question) yield* question(s, rng, plan.question, first, snap, closed, denials);
  for (const [i, step] of plan.tools.entries()) {
    // The first call shares the intro's message id, like the real CLI's split lines.
    const id = i === 0 && !plan.question ? first : `msg_${rng.hex(24)}`;
    const toolId = s.nextToolId();
    const [name, input, offers] = askedTool(step);
    const use = s.assistant(id, { type: 'tool_use', id: toolId, name, input }, snap);
    if (offers === null) {
      // Reading and searching inside its folder is never asked.
      yield { lines: [use, s.toolResult(toolId, toolOutput(step))] };
      continue;
    }
    const ref = uuid(rng);
    const description = name === 'Bash' ? (input.description as string) : step.arg.slice(step.arg.lastIndexOf('/') + 1);
    const line = request(ref, { tool_name: name, display_name: name, input, description, permission_suggestions: offers, tool_use_id: toolId });
    const reply = (yield { lines: [use], ask: { ref, line } }) ?? closed;
    if (!reply.allow) denials.push({ tool_name: name, tool_use_id: toolId, tool_input: input });
    yield { lines: [reply.allow ? s.toolResult(toolId, toolOutput(step), false, ACCEPTED) : s.toolResult(toolId, reply.message, true, REJECTED)] };
  }
  s.costTotal = round6(s.costTotal + plan.cost);
  const turns = plan.tools.length + (plan.question ? 2 : 1);
  yield { lines: [s.assistant(`msg_${rng.hex(24)}`, { type: 'text', text: plan.final }, snap), s.result(true, plan.final, usageOf(plan), turns, denials)] };
}

/** AskUserQuestion, asked; then the model says what it goes with. */
function* question(s: ClaudeSession, rng: Rng, q: PlannedQuestion, msgId: string, snap: unknown, closed: Reply, denials: Denial[]): Steps {
  const toolId = s.nextToolId();
  const input = { questions: [{ question: q.question, header: q.header, options: q.options, multiSelect: q.multi }] };
  const ref = uuid(rng);
  const line = request(ref, { tool_name: 'AskUserQuestion', display_name: 'AskUserQuestion', input, tool_use_id: toolId, requires_user_interaction: true });
  const use = s.assistant(msgId, { type: 'tool_use', id: toolId, name: 'AskUserQuestion', input }, snap);
  const reply = (yield { lines: [use], ask: { ref, line } }) ?? closed;
  if (!reply.allow) {
    denials.push({ tool_name: 'AskUserQuestion', tool_use_id: toolId, tool_input: input });
    yield {
      lines: [
        s.toolResult(toolId, reply.message, true, REJECTED),
        s.assistant(`msg_${rng.hex(24)}`, { type: 'text', text: 'No answer: deciding myself.' }, snap),
      ],
    };
    return;
  }
  const chosen = answerTo(reply.input, q.question);
  const said = chosen === null ? 'The user did not answer the questions.' : answeredText(q, chosen);
  const next = chosen === null ? 'No answer: going with the default.' : `Going with ${chosen}.`;
  yield { lines: [s.toolResult(toolId, said, false, ACCEPTED), s.assistant(`msg_${rng.hex(24)}`, { type: 'text', text: next }, snap)] };
}

/** The answer keyed by the question's text in the input sent back; any other key is no answer. */
function answerTo(input: Record<string, unknown> | null, text: string): string | null {
  const answers = input?.answers;
  if (typeof answers !== 'object' || answers === null || !Object.hasOwn(answers, text)) return null;
  const a = (answers as Record<string, unknown>)[text];
  return typeof a === 'string' ? a : null;
}

/** The CLI's two wordings: every answer one of the options, or not. */
function answeredText(q: PlannedQuestion, chosen: string): string {
  const labels = q.options.map((o) => o.label);
  const listed = (q.multi ? chosen.split(', ') : [chosen]).every((a) => labels.includes(a));
  return listed
    ? `Your questions have been answered: "${q.question}"="${chosen}". You can now continue with these answers in mind.`
    : `The user answered: "${q.question}"="${chosen}". Read the answers carefully — they may request clarification, changes, or that you not proceed — and follow what they actually say.`;
}

function request(ref: string, request: Record<string, unknown>): string {
  return j({ type: 'control_request', request_id: ref, request: { subtype: 'can_use_tool', ...request } });
}

/** A step's tool as the CLI asks about it (paths absolute, as the model writes them), with what it offers for "always"; null: not asked. */
function askedTool(step: ToolStep): [string, Record<string, unknown>, unknown[] | null] {
  const path = `${process.cwd()}/${step.arg}`;
  const edits = [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }];
  switch (step.action) {
    case 'shell':
      return [
        'Bash',
        { command: step.arg, description: `Run ${step.arg}` },
        [
          { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: step.arg }], behavior: 'allow', destination: 'localSettings' },
          { type: 'addDirectories', directories: [process.cwd()], destination: 'session' },
          ...edits,
        ],
      ];
    case 'write':
      return ['Write', { file_path: path, content: WRITTEN }, edits];
    case 'edit':
      return ['Edit', { file_path: path, old_string: 'TODO', new_string: 'DONE', replace_all: false }, edits];
    case 'read':
      return ['Read', { file_path: path }, null];
    case 'search':
      return ['Grep', { pattern: step.arg }, null];
  }
}

/** A stdin line, as the CLI reads it while it may be waiting for an answer. */
function readLine(line: string): StdinLine {
  if (line.trim() === '') return null;
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return { kind: 'fatal', stderr: `Error parsing streaming input line (type=unknown, ${line.length} chars): SyntaxError` };
  }
  if (!isRecord(o)) return null;
  if (o.type === 'user') {
    const text = claudeInput(line);
    return text === null ? null : { kind: 'input', text };
  }
  // An answer names its request inside `response`; one without it (a flat envelope) is no answer.
  if (o.type !== 'control_response' || !isRecord(o.response) || typeof o.response.request_id !== 'string') return null;
  const r = o.response;
  const ref = o.response.request_id;
  if (r.subtype === 'error') return { kind: 'answer', ref, reply: { allow: false, message: `Tool permission request failed: Error: ${String(r.error)}` } };
  return r.subtype === 'success' ? { kind: 'answer', ref, reply: decision(r.response) } : null;
}

/** The CLI's schema for a decision; anything else refuses the call. */
function decision(d: unknown): Reply {
  if (!isRecord(d)) return { allow: false, message: INVALID };
  if (
    d.behavior === 'allow' &&
    (d.updatedInput === undefined || isRecord(d.updatedInput)) &&
    (d.updatedPermissions === undefined || Array.isArray(d.updatedPermissions))
  ) {
    return { allow: true, input: d.updatedInput ?? null };
  }
  if (d.behavior === 'deny' && typeof d.message === 'string') return { allow: false, message: d.message };
  return { allow: false, message: INVALID };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
