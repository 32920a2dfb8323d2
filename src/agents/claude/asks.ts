// Claude Code asking before it acts (`--permission-prompt-tool stdio`): a
// `control_request` whose subtype is can_use_tool, printed after the
// assistant line with the tool_use, becomes an `approval` signal; the CLI then
// waits for the answer (claude/answers.ts) however long it takes. An
// interrupted turn withdraws it (`control_cancel_request`). Without a prompt
// tool the CLI refuses by its own settings instead and says so in a
// `system`/`permission_denied` line. Shapes as the real CLI (2.1.332) prints
// them: test/fixtures/claude/asks.jsonl.

import type { Ask, Question } from '../../core/approvals.js';
import { parseRule } from '../../core/approval-rules.js';
import type { Signal } from '../signals.js';
import { isObject, str, type JsonObject } from '../util.js';

/** A can_use_tool request as an approval, or null when it lacks what an answer needs (kept as output). */
export function canUseTool(obj: JsonObject): Signal | null {
  const ref = str(obj.request_id);
  const request = obj.request;
  if (!ref || !isObject(request)) return null;
  const tool = str(request.tool_name);
  const input = request.input;
  if (!tool || !isObject(input)) return null;
  const offers = request.permission_suggestions ?? null;
  const ask: Ask = {
    ref,
    tool,
    subject: subjectOf(tool, input),
    tool_use_id: str(request.tool_use_id) ?? null,
    size: sizeOf(tool, input),
    questions: tool === QUESTION_TOOL ? questionsOf(input) : null,
    always: offeredRule(offers),
  };
  return { kind: 'approval', ask, input, offers };
}

/** The request it names is no longer waiting; null without one. */
export function cancelled(obj: JsonObject): Signal | null {
  const ref = str(obj.request_id);
  return ref ? { kind: 'approval_withdrawn', ref } : null;
}

/** `system`/`permission_denied`: the CLI's own refusal, as the model was told it. */
export function permissionDenied(obj: JsonObject): Signal[] {
  const tool = str(obj.tool_name);
  if (!tool) return [];
  return [{ kind: 'denied', tool, tool_use_id: str(obj.tool_use_id) ?? null, message: str(obj.message) ?? '' }];
}

const QUESTION_TOOL = 'AskUserQuestion';

/** The field naming what each tool acts on, in the vocabulary rules match (core/approval-rules.ts). */
const SUBJECT_FIELD: Readonly<Record<string, string>> = {
  Bash: 'command',
  Read: 'file_path',
  Edit: 'file_path',
  Write: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  NotebookRead: 'notebook_path',
  Glob: 'path',
  Grep: 'path',
  WebFetch: 'url',
  WebSearch: 'query',
};

function subjectOf(tool: string, input: JsonObject): string | null {
  const field = Object.hasOwn(SUBJECT_FIELD, tool) ? SUBJECT_FIELD[tool]! : null;
  return (field !== null && str(input[field])) || null;
}

function sizeOf(tool: string, input: JsonObject): Ask['size'] {
  if (tool === 'Write') return typeof input.content === 'string' ? { bytes: Buffer.byteLength(input.content) } : null;
  if (tool === 'Edit') return editSize([input]);
  if (tool === 'MultiEdit') return Array.isArray(input.edits) ? editSize(input.edits) : null;
  return null;
}

/** Lines an edit takes out (its old text) and puts in (its new text), summed over its edits. */
function editSize(edits: readonly unknown[]): Ask['size'] {
  let removed = 0;
  let added = 0;
  let any = false;
  for (const e of edits) {
    if (!isObject(e) || (typeof e.old_string !== 'string' && typeof e.new_string !== 'string')) continue;
    any = true;
    removed += lineCount(e.old_string);
    added += lineCount(e.new_string);
  }
  return any ? { added, removed } : null;
}

function lineCount(text: unknown): number {
  if (typeof text !== 'string' || text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

/**
 * The questions of an AskUserQuestion input that can be answered (they have
 * their text: the answer is keyed by it), in order. The answer is built from
 * this same list, so `answers[i]` is for the i-th question here.
 */
export function answerableQuestions(input: unknown): JsonObject[] {
  if (!isObject(input) || !Array.isArray(input.questions)) return [];
  return input.questions.filter((q): q is JsonObject => isObject(q) && typeof q.question === 'string');
}

function questionsOf(input: JsonObject): Question[] {
  return answerableQuestions(input).map((q) => ({
    question: q.question as string,
    header: str(q.header) ?? null,
    options: Array.isArray(q.options)
      ? q.options.flatMap((o) => (isObject(o) && typeof o.label === 'string' ? [{ label: o.label, description: str(o.description) ?? null }] : []))
      : [],
    multi: q.multiSelect === true,
  }));
}

/** An offered `addRules` item that allows: what "always" may send back. */
export function isAllowRules(offer: unknown): offer is JsonObject & { rules: unknown[] } {
  return (
    isObject(offer) &&
    offer.type === 'addRules' &&
    (offer.behavior === undefined || offer.behavior === 'allow') &&
    Array.isArray(offer.rules) &&
    offer.rules.length > 0 &&
    offer.rules.every((r) => isObject(r) && typeof r.toolName === 'string' && r.toolName !== '')
  );
}

/**
 * The first allowing rule the CLI offers, as rule text: `Bash(echo three *)`,
 * or the tool alone. A rule orcr could not read back (a command over lines,
 * one too long) is no offer: adding it to the run's allow list would break it.
 */
function offeredRule(offers: unknown): string | null {
  if (!Array.isArray(offers)) return null;
  const add = offers.find(isAllowRules);
  const rule = add?.rules[0] as JsonObject | undefined;
  if (!rule) return null;
  const content = str(rule.ruleContent);
  const text = content ? `${rule.toolName as string}(${content})` : (rule.toolName as string);
  return 'error' in parseRule(text) ? null : text;
}
