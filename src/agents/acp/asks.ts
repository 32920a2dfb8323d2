// An ACP agent asking its client before it acts (`session/request_permission`
// with the tool call and the options it offers: allow once, allow always,
// reject once, reject always), as an `approval` in Claude Code's tool names
// (the tool call's kind: execute → Bash, edit → Edit, read → Read, fetch →
// WebFetch, search → Grep), so one rule list decides for every agent. The
// answer (answers.ts) selects one of the agent's own options.

import type { Ask } from '../../core/approvals.js';
import { parseRule } from '../../core/approval-rules.js';
import type { Signal } from '../signals.js';
import { isObject, str, type JsonObject } from '../util.js';

export const PERMISSION = 'session/request_permission';

const TOOLS: Readonly<Record<string, string>> = {
  execute: 'Bash',
  edit: 'Edit',
  delete: 'Edit',
  move: 'Edit',
  read: 'Read',
  fetch: 'WebFetch',
  search: 'Grep',
};

/** A permission request (its `ref`, the request's id as refs are kept: rpc/frames.ts); null when it lacks what an answer needs. */
export function permission(ref: string, params: unknown): Signal | null {
  if (!isObject(params) || !isObject(params.toolCall) || !Array.isArray(params.options)) return null;
  const options = params.options.filter((o): o is JsonObject => isObject(o) && typeof o.optionId === 'string');
  if (options.length === 0) return null;
  const call = params.toolCall;
  const tool = toolOf(call);
  const subject = subjectOf(tool, call);
  const ask: Ask = {
    ref,
    tool,
    subject,
    tool_use_id: str(call.toolCallId) ?? null,
    size: null,
    questions: null,
    always: options.some((o) => o.kind === 'allow_always') ? ruleOf(tool, subject) : null,
  };
  return { kind: 'approval', ask, input: call, offers: options };
}

/** The tool call in Claude Code's names, or its own title (kind `other`, `think`, or none). */
export function toolOf(call: JsonObject): string {
  const kind = str(call.kind);
  return (kind !== undefined && Object.hasOwn(TOOLS, kind) ? TOOLS[kind] : undefined) ?? str(call.title) ?? 'tool';
}

/** What it acts on: a command, a path, a URL, from its raw input or its locations. */
function subjectOf(tool: string, call: JsonObject): string | null {
  const raw = isObject(call.rawInput) ? call.rawInput : {};
  // Gemini names a command only in its title.
  if (tool === 'Bash') return str(raw.command) ?? str(call.title) ?? null;
  if (tool === 'WebFetch') return str(raw.url) ?? null;
  const location = Array.isArray(call.locations) ? call.locations.find((l) => isObject(l) && typeof l.path === 'string') : undefined;
  return (isObject(location) ? str(location.path) : undefined) ?? str(raw.file_path) ?? str(raw.absolute_path) ?? str(raw.path) ?? null;
}

function ruleOf(tool: string, subject: string | null): string | null {
  const text = subject === null || /[()\n]/.test(subject) ? tool : `${tool}(${subject})`;
  return /^[A-Za-z_][\w-]*(\(.*\))?$/s.test(text) && !('error' in parseRule(text)) ? text : null;
}
