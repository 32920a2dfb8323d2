// A prompt turn of the mock ACP agent, a step at a time, in the shapes
// Gemini CLI's `--acp` (0.61) writes (its bundle's acpSession.ts): its
// thought, each tool as a `tool_call` and its `tool_call_update`, its words
// in `agent_message_chunk`s, and the answer to the prompt last (its
// stopReason, and the turn's tokens: the spec's `usage`, Gemini's
// `_meta.quota`). A command or an edit asked first is, as Gemini does it,
// only the `session/request_permission` (the tool call inside it `pending`,
// no `tool_call` before it): allowed, its `tool_call_update` completes it;
// rejected or cancelled nothing more of it is said, and the model, told the
// tool "was canceled by the user", goes on; an answer it cannot read fails
// the tool call.

import type { AcpSession, Prompt } from './acp-session.js';
import type { ToolStep, TurnPlan } from './plan.js';
import { toolOutput, WRITTEN, type AskStep, type Reply } from './render.js';

type Steps<R = void> = Generator<AskStep, R, Reply | undefined>;
type Call = Record<string, unknown>;

/** A request still waiting when stdin closes: the agent exits at once, so no turn goes on with this. */
export const CLOSED: Reply = { allow: false, message: 'stdin closed', stop: true };
/** What an answer the agent cannot read does to the call, as its own words. */
export const UNREADABLE = 'Invalid permission outcome';

const OPTIONS = [
  { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
];

export function* promptSteps(s: AcpSession, plan: TurnPlan, asks: boolean): Steps {
  const p = s.beginPrompt();
  yield { lines: [s.update(thought(plan.intro))] };
  if (plan.question) {
    // ACP has no question of its own: the agent asks in words and decides itself.
    yield { lines: [s.update(chunk(`${plan.question.question} Deciding myself: ${plan.question.options[0]!.label}.\n`))] };
  }
  for (const step of plan.tools) yield* tool(s, p, step, asks);
  yield { lines: [...words(s, plan.final), s.answer(p, 'end_turn', plan.usage)] };
}

/** A prompt that never ends: the same command, one model call at a time. */
export function* endlessPrompt(s: AcpSession, plan: TurnPlan): Generator<string[], never> {
  s.beginPrompt();
  yield [s.update(thought(plan.intro))];
  const step = plan.tools[0] ?? { action: 'shell', arg: 'npm test' };
  for (;;) {
    const { c } = call(s, step);
    yield [s.update({ sessionUpdate: 'tool_call', ...c, status: 'in_progress', content: [] }), s.update(done(c, step))];
  }
}

function* tool(s: AcpSession, p: Prompt, step: ToolStep, asks: boolean): Steps {
  const { name, c } = call(s, step);
  const key = `${String(c.kind)} ${String(c.title)}`;
  // Gemini asks before a command or an edit; reading and searching never; nor what was allowed for the session.
  if (!asks || (c.kind !== 'execute' && c.kind !== 'edit') || s.allowed.has(key)) {
    yield { lines: [s.update({ sessionUpdate: 'tool_call', ...c, status: 'in_progress', content: [] }), s.update(done(c, step))] };
    return;
  }
  const id = s.ask(name);
  const toolCall = { toolCallId: c.toolCallId, status: 'pending', title: c.title, content: pendingContent(s, step), locations: c.locations, kind: c.kind };
  const line = s.request(id, 'session/request_permission', { sessionId: p.sessionId, options: OPTIONS, toolCall });
  const reply = (yield { lines: [], ask: { ref: JSON.stringify(id), line } }) ?? CLOSED;
  if (reply.allow) {
    if (reply.input?.optionId === 'proceed_always') s.allowed.add(key);
    yield { lines: [s.update(done(c, step))] };
    return;
  }
  const failed = reply.message === UNREADABLE;
  const lines = failed
    ? [s.update({ sessionUpdate: 'tool_call_update', toolCallId: c.toolCallId, status: 'failed', content: text(reply.message), kind: c.kind })]
    : [];
  yield { lines: [...lines, ...words(s, `${reply.message} Going on without it.\n`)] };
}

/** A tool call as Gemini names it: its tool's name in the id, the command or path as its title, its kind. */
function call(s: AcpSession, step: ToolStep): { name: string; c: Call } {
  const path = `${s.cwd}/${step.arg}`;
  const [toolName, title, kind, locations] = ((): [string, string, string, unknown[]] => {
    switch (step.action) {
      case 'shell':
        return ['run_shell_command', step.arg, 'execute', []];
      case 'read':
        return ['read_file', step.arg, 'read', [{ path }]];
      case 'write':
        return ['write_file', `Writing to ${step.arg}`, 'edit', [{ path }]];
      case 'edit':
        return ['replace', `${step.arg}: TODO => DONE`, 'edit', [{ path }]];
      case 'search':
        return ['grep_search', `'${step.arg}' within ./`, 'search', []];
    }
  })();
  return { name: toolName, c: { toolCallId: `${toolName}-${s.now()}-${s.nextCall()}`, title, kind, locations } };
}

/** An edit's request shows its diff (Gemini's `_meta.kind`: add, modify). */
function pendingContent(s: AcpSession, step: ToolStep): unknown[] {
  if (step.action !== 'write' && step.action !== 'edit') return [];
  const path = `${s.cwd}/${step.arg}`;
  return step.action === 'write'
    ? [{ type: 'diff', path, oldText: '', newText: WRITTEN, _meta: { kind: 'add' } }]
    : [{ type: 'diff', path, oldText: '// TODO\n', newText: '// DONE\n', _meta: { kind: 'modify' } }];
}

function done(c: Call, step: ToolStep): Record<string, unknown> {
  return { sessionUpdate: 'tool_call_update', ...c, status: 'completed', content: text(toolOutput(step).replace(/^\$ .*\n/, '')) };
}

const text = (t: string): unknown[] => [{ type: 'content', content: { type: 'text', text: t } }];
const chunk = (t: string): Record<string, unknown> => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: t } });
const thought = (intro: string): Record<string, unknown> => ({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `**${intro}**\n` } });

/** The model's words, streamed in two chunks as a model does. */
function words(s: AcpSession, said: string): string[] {
  const cut = Math.max(1, said.indexOf(' ') + 1);
  return [s.update(chunk(said.slice(0, cut))), s.update(chunk(said.slice(cut)))];
}
