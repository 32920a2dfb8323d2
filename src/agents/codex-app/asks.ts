// Codex's app-server asking its client before it acts: a command outside its
// sandbox (`item/commandExecution/requestApproval`), a patch
// (`item/fileChange/requestApproval`), a question (`item/tool/requestUserInput`).
// Each becomes an `approval` in Claude Code's tool names (Bash, Edit), so one
// rule list decides for every agent; and the answer (answers.ts) is the
// JSON-RPC result its method wants. What the request carried is kept whole
// (its params, and the method with the decisions Codex offered).

import type { Ask, Question } from '../../core/approvals.js';
import { commandParts, parseRule } from '../../core/approval-rules.js';
import type { Signal } from '../signals.js';
import { isObject, str, type JsonObject } from '../util.js';
import { scriptOf } from './command.js';

export const COMMAND_APPROVAL = 'item/commandExecution/requestApproval';
export const FILE_APPROVAL = 'item/fileChange/requestApproval';
export const USER_INPUT = 'item/tool/requestUserInput';

/** What the answer needs besides the params: the method asked, and the decisions Codex offered. */
export interface CodexOffers {
  method: string;
  decisions: unknown[] | null;
}

/**
 * A command's request (its `ref`, the request's id as refs are kept:
 * rpc/frames.ts); null when it lacks what an answer needs. Its subject is the
 * script Codex's shell would run (command.ts): what orcr's rules read.
 */
export function commandApproval(ref: string, params: unknown): Signal | null {
  if (!isObject(params)) return null;
  const command = str(params.command) ?? null;
  const script = command !== null ? (scriptOf(command) ?? command) : null;
  const decisions = Array.isArray(params.availableDecisions) ? params.availableDecisions : null;
  const ask = base(ref, 'Bash', script, params);
  // "From now on": the same command, as a rule of the run's (orcr answers its next asks); Codex is told
  // acceptForSession too where it offers it (answers.ts). A chained command is none: a Bash rule is held
  // to each of a command's parts (core/approval-rules.ts), and no part is the whole.
  const always = script !== null && commandParts(script).length === 1 ? ruleOrNull(`Bash(${script})`) : null;
  return approval({ ...ask, always }, params, { method: COMMAND_APPROVAL, decisions });
}

/** A patch's request: its files are in the item Codex started before it asked (`changes` by item id). */
export function fileApproval(ref: string, params: unknown, changes: (itemId: string) => unknown[] | null): Signal | null {
  if (!isObject(params)) return null;
  const itemId = str(params.itemId);
  const files = (itemId !== undefined ? changes(itemId) : null) ?? [];
  const paths = files.flatMap((c) => (isObject(c) && typeof c.path === 'string' ? [c.path] : []));
  const decisions = Array.isArray(params.availableDecisions) ? params.availableDecisions : null;
  const ask = base(ref, 'Edit', paths[0] ?? str(params.grantRoot) ?? null, params);
  return approval(ask, { ...params, changes: files }, { method: FILE_APPROVAL, decisions });
}

/** Questions for a person; null when none can be answered. */
export function userInput(ref: string, params: unknown): Signal | null {
  if (!isObject(params) || !Array.isArray(params.questions)) return null;
  const questions: Question[] = params.questions.flatMap((q) =>
    isObject(q) && typeof q.id === 'string' && typeof q.question === 'string'
      ? [
          {
            question: q.question,
            header: str(q.header) ?? null,
            options: Array.isArray(q.options)
              ? q.options.flatMap((o) => (isObject(o) && typeof o.label === 'string' ? [{ label: o.label, description: str(o.description) ?? null }] : []))
              : [],
            multi: false,
          },
        ]
      : [],
  );
  if (questions.length === 0) return null;
  const ask = { ...base(ref, 'AskUserQuestion', null, params), questions };
  return approval(ask, params, { method: USER_INPUT, decisions: null });
}

function base(ref: string, tool: string, subject: string | null, params: JsonObject): Ask {
  return { ref, tool, subject, tool_use_id: str(params.itemId) ?? null, size: null, questions: null, always: null };
}

function approval(ask: Ask, input: JsonObject, offered: CodexOffers): Signal {
  return { kind: 'approval', ask, input, offers: offered };
}

/** Codex offered this decision (an older server names none: then it takes every one). */
export function offers(decisions: unknown[] | null, decision: string): boolean {
  return decisions === null || decisions.some((d) => d === decision);
}

function ruleOrNull(text: string): string | null {
  return text.includes('\n') || 'error' in parseRule(text) ? null : text;
}
