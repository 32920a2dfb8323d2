// A turn of the mock agent's Codex app-server, a step at a time: the turn's
// opening (status active, turn/started, the prompt as a userMessage, the
// plan's intro as reasoning), its tools as items (a command, a file change,
// an MCP search), its words as an agentMessage, the thread's token total,
// turn/completed. In a turn that asks, a command or a file change is asked
// first (its item started, then the request, as Codex does) and what orcr
// answered decides it: accepted it runs, declined it is `declined` and the
// model says it goes on without it, cancelled the turn ends `interrupted`,
// an answer it cannot read fails the item (Codex's "approval request
// failed"). Reading is never asked (a read-only command), nor a command
// allowed for the session.

import type { CodexAppSession, TurnCtx } from './codex-app-session.js';
import type { PlannedQuestion, ToolStep, TurnPlan } from './plan.js';
import { toolOutput, WRITTEN, type AskStep, type Reply } from './render.js';

// The methods as the CLI names them (written out here, not taken from orcr's reader, so the two are checked against each other).
const COMMAND_APPROVAL = 'item/commandExecution/requestApproval';
const FILE_APPROVAL = 'item/fileChange/requestApproval';
const USER_INPUT = 'item/tool/requestUserInput';

type Steps<R = void> = Generator<AskStep, R, Reply | undefined>;
type Item = Record<string, unknown>;

/** What the model is told of a refusal, as Codex words it (test/real/README.md, "Codex app-server" 9). */
export const DECLINED = 'Rejected("rejected by user")';
export const UNREADABLE = 'Rejected("approval request failed")';
/** A request still waiting when stdin closes: the server exits at once, so no turn goes on with this. */
export const CLOSED: Reply = { allow: false, message: 'stdin closed', stop: true };

export function* turnSteps(s: CodexAppSession, plan: TurnPlan, asks: boolean): Steps {
  const t = s.beginTurn(plan.prompt);
  yield { lines: [...opening(s, t), ...reasoning(s, t, plan.intro)] };
  /** The agent messages, which turn/completed lists. */
  const said: Item[] = [];
  if (plan.question) yield* question(s, t, plan.question, said);
  for (const step of plan.tools) {
    if ((yield* tool(s, t, step, asks, said)) === 'cancelled') {
      yield { lines: [s.status(t, false), s.turn(t, 'interrupted', said)] };
      return;
    }
  }
  const words = message(s, t, plan.final, said);
  yield { lines: [...words, s.tokenUsage(t, plan.usage), s.rateLimits(), s.status(t, false), s.turn(t, 'completed', said)] };
}

/** A turn that fails before the model says a word (a usage limit, a 401): Codex's `error`, then the turn `failed` with it. */
export function failedTurn(s: CodexAppSession, message: string, codexErrorInfo: unknown): string[] {
  const t = s.beginTurn(null);
  const error = { message, codexErrorInfo, additionalDetails: null, misalignment: null };
  return [
    ...opening(s, t),
    s.rateLimits(),
    s.note('error', { error, willRetry: false, threadId: t.threadId, turnId: t.turnId }),
    s.status(t, false),
    s.turn(t, 'failed', [], error),
  ];
}

/** A turn that never ends: the same command, one model call at a time. */
export function* endlessTurn(s: CodexAppSession, plan: TurnPlan): Generator<string[], never> {
  const t = s.beginTurn(plan.prompt);
  yield [...opening(s, t), ...reasoning(s, t, plan.intro)];
  const step = plan.tools[0] ?? { action: 'shell', arg: 'npm test' };
  for (;;) {
    const item = commandItem(s, step);
    yield [s.itemStarted(t, item), s.itemCompleted(t, ran(s, item, step)), s.tokenUsage(t, plan.usage)];
  }
}

function opening(s: CodexAppSession, t: TurnCtx): string[] {
  const user = { type: 'userMessage', id: s.uuid7(), clientId: null, content: [{ type: 'text', text: t.text, text_elements: [] }], startedAtMs: s.now() };
  return [
    s.status(t, true),
    s.turn(t, 'inProgress'),
    s.itemStarted(t, { ...user, completedAtMs: null }),
    s.itemCompleted(t, { ...user, completedAtMs: s.now() }),
  ];
}

function reasoning(s: CodexAppSession, t: TurnCtx, intro: string): string[] {
  const item = { type: 'reasoning', id: `rs_${s.callId().slice(5)}`, summary: [`**${intro}**`], content: [] };
  return [s.itemStarted(t, { ...item, summary: [] }), s.itemCompleted(t, item)];
}

/** The model's words: started empty, streamed, completed; listed for turn/completed. */
function message(s: CodexAppSession, t: TurnCtx, text: string, said: Item[]): string[] {
  const base = { type: 'agentMessage', moderation: null, id: `msg_${s.callId().slice(5)}`, phase: null, memoryCitation: null, delivery: null, questions: null };
  const started = { ...base, text: '', startedAtMs: s.now(), completedAtMs: null };
  const done = { ...started, text, completedAtMs: s.now() };
  said.push(done);
  return [
    s.itemStarted(t, started),
    s.note('item/agentMessage/delta', { threadId: t.threadId, turnId: t.turnId, itemId: base.id, delta: text }),
    s.itemCompleted(t, done),
  ];
}

function* tool(s: CodexAppSession, t: TurnCtx, step: ToolStep, asks: boolean, said: Item[]): Steps<'ran' | 'declined' | 'cancelled'> {
  if (step.action === 'search') {
    yield { lines: search(s, t, step) };
    return 'ran';
  }
  const file = step.action === 'edit' || step.action === 'write';
  const item = file ? fileItem(s, step) : commandItem(s, step);
  const started = s.itemStarted(t, item);
  const command = commandOf(step);
  if (!asks || step.action === 'read' || (!file && s.allowed.has(command))) {
    yield { lines: [started, ...finished(s, t, item, step)] };
    return 'ran';
  }
  const id = s.ask(file ? 'file' : 'command');
  const line = file ? s.request(id, FILE_APPROVAL, fileAsk(t, item)) : s.request(id, COMMAND_APPROVAL, commandAsk(s, t, item, command));
  const reply = (yield { lines: [started], ask: { ref: JSON.stringify(id), line } }) ?? CLOSED;
  const resolved = s.note('serverRequest/resolved', { threadId: t.threadId, requestId: id });
  if (reply.allow) {
    if (!file && forSession(reply.input)) s.allowed.add(command);
    yield { lines: [resolved, ...finished(s, t, item, step)] };
    return 'ran';
  }
  const refused = { ...item, status: reply.message === UNREADABLE ? 'failed' : 'declined', completedAtMs: s.now() };
  if (reply.stop) {
    yield { lines: [resolved, s.itemCompleted(t, refused)] };
    return 'cancelled';
  }
  const what = file ? `Changing ${step.arg}` : `Running \`${command}\``;
  yield { lines: [resolved, s.itemCompleted(t, refused), ...message(s, t, `${what} was refused (${reply.message}); going on without it.`, said)] };
  return 'declined';
}

/** The question, asked as Codex's request_user_input tool does; the model says what it goes with. */
function* question(s: CodexAppSession, t: TurnCtx, q: PlannedQuestion, said: Item[]): Steps {
  const qid = q.header.toLowerCase();
  const id = s.ask('question');
  const asked = { id: qid, header: q.header, question: q.question, isOther: false, isSecret: false, options: q.options };
  const line = s.request(id, USER_INPUT, {
    threadId: t.threadId,
    turnId: t.turnId,
    itemId: s.callId(),
    questions: [asked],
    isBlocking: true,
    autoResolutionMs: null,
  });
  const reply = (yield { lines: [], ask: { ref: JSON.stringify(id), line } }) ?? CLOSED;
  const chosen = reply.allow ? answerTo(reply.input, qid) : null;
  const text = !reply.allow ? 'No answer: deciding myself.' : chosen === null ? 'No answer: going with the default.' : `Going with ${chosen}.`;
  yield { lines: [s.note('serverRequest/resolved', { threadId: t.threadId, requestId: id }), ...message(s, t, text, said)] };
}

/** The answers to question `qid` in the response (`answers[qid].answers`), joined; none: null. */
function answerTo(result: Record<string, unknown> | null, qid: string): string | null {
  const answers = result?.answers;
  if (typeof answers !== 'object' || answers === null || !Object.hasOwn(answers, qid)) return null;
  const a = (answers as Record<string, unknown>)[qid];
  const list = typeof a === 'object' && a !== null ? (a as { answers?: unknown }).answers : null;
  const words = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  return words.length > 0 ? words.join(', ') : null;
}

/** Allowed for the rest of the thread: `acceptForSession`, or an execpolicy amendment (a rule for the like of it). */
function forSession(result: Record<string, unknown> | null): boolean {
  const d = result?.decision;
  return d === 'acceptForSession' || (typeof d === 'object' && d !== null && Object.hasOwn(d, 'acceptWithExecpolicyAmendment'));
}

const commandOf = (step: ToolStep): string => (step.action === 'read' ? `cat ${step.arg}` : step.arg);

function commandItem(s: CodexAppSession, step: ToolStep): Item {
  const command = commandOf(step);
  const actions =
    step.action === 'read'
      ? [{ type: 'read', command, name: step.arg.slice(step.arg.lastIndexOf('/') + 1), path: `${s.cwd}/${step.arg}` }]
      : [{ type: 'unknown', command }];
  return {
    type: 'commandExecution',
    id: s.callId(),
    pluginId: null,
    scriptPath: null,
    command: `/bin/bash -lc '${command}'`,
    cwd: s.cwd,
    processId: null,
    source: 'agent',
    status: 'inProgress',
    commandActions: actions,
    aggregatedOutput: null,
    exitCode: null,
    durationMs: null,
    startedAtMs: s.now(),
    completedAtMs: null,
  };
}

function fileItem(s: CodexAppSession, step: ToolStep): Item {
  const path = `${s.cwd}/${step.arg}`;
  const change =
    step.action === 'write' ? { path, kind: { type: 'add' }, diff: WRITTEN } : { path, kind: { type: 'update', move_path: null }, diff: EDIT_DIFF };
  return { type: 'fileChange', id: s.callId(), changes: [change], status: 'inProgress', startedAtMs: s.now(), completedAtMs: null };
}

const EDIT_DIFF = '@@ -1 +1 @@\n-// TODO\n+// DONE\n';

/** A command's request: what it runs, where, and the decisions Codex 0.171.0 offers (no decline named, though it takes one). */
function commandAsk(s: CodexAppSession, t: TurnCtx, item: Item, command: string): Record<string, unknown> {
  const amendment = command.split(' ');
  return {
    kind: 'command',
    threadId: t.threadId,
    turnId: t.turnId,
    itemId: item.id,
    startedAtMs: item.startedAtMs,
    environmentId: 'local',
    command: item.command,
    cwd: s.cwd,
    commandActions: item.commandActions,
    proposedExecpolicyAmendment: amendment,
    availableDecisions: ['accept', { acceptWithExecpolicyAmendment: { execpolicy_amendment: amendment } }, 'cancel'],
  };
}

/** A file change's request names only its item (the changes are in item/started). */
function fileAsk(t: TurnCtx, item: Item): Record<string, unknown> {
  return { threadId: t.threadId, turnId: t.turnId, itemId: item.id, startedAtMs: item.startedAtMs, reason: null, grantRoot: null };
}

/** The item done: a command's output, or a file change applied (and the turn's diff since its start). */
function finished(s: CodexAppSession, t: TurnCtx, item: Item, step: ToolStep): string[] {
  if (item.type === 'commandExecution') return [s.itemCompleted(t, ran(s, item, step))];
  const diff = `diff --git a/${step.arg} b/${step.arg}\n--- ${step.action === 'write' ? '/dev/null' : `a/${step.arg}`}\n+++ b/${step.arg}\n${EDIT_DIFF}`;
  return [
    s.itemCompleted(t, { ...item, status: 'completed', completedAtMs: s.now() }),
    s.note('turn/diff/updated', { threadId: t.threadId, turnId: t.turnId, diff }),
  ];
}

function ran(s: CodexAppSession, item: Item, step: ToolStep): Item {
  const output = toolOutput(step).replace(/^\$ .*\n/, '') + '\n';
  return {
    ...item,
    processId: String(1000 + (s.now() % 9000)),
    source: 'unifiedExecStartup',
    status: 'completed',
    aggregatedOutput: output,
    exitCode: 0,
    durationMs: 0,
    completedAtMs: s.now(),
  };
}

function search(s: CodexAppSession, t: TurnCtx, step: ToolStep): string[] {
  const base = { type: 'mcpToolCall', id: s.callId(), server: 'docs', environmentId: null, tool: 'search', arguments: { query: step.arg }, appContext: null };
  const started = { ...base, status: 'inProgress', result: null, error: null, durationMs: null, startedAtMs: s.now(), completedAtMs: null };
  const result = { content: [{ type: 'text', text: 'no results' }], structuredContent: null };
  return [s.itemStarted(t, started), s.itemCompleted(t, { ...started, status: 'completed', result, durationMs: 3, completedAtMs: s.now() })];
}
