// How `orcr approvals` shows agents' requests: a table of them, oldest first,
// a question's options numbered under its row (the numbers `approve
// --answer` takes), and one request whole. A summary, a question and its
// labels come from the supervisor with their control characters written out
// (`\x1b`); the input is shown as escaped JSON: nothing an agent wrote moves
// the cursor.

import { formatDuration } from '../config/duration.js';
import { bounded } from '../core/approval-summary.js';
import type { Question } from '../core/approvals.js';
import type { ApprovalGot, PublicApproval } from '../client/methods.js';
import { truncateDisplay } from '../text/display-width.js';
import { HIDDEN_ALL, unicodeEscape } from '../text/hidden.js';
import { jsonText } from '../text/json-text.js';
import { safeLine } from '../text/terminal-text.js';
import { table, useColor } from './format.js';

/** Widest a run's name gets in the table (the whole name is in `approvals ID` and --json). */
const NAME_COLUMNS = 30;

/** `1 Postgres · 2 SQLite · 3 MySQL`, `one or more of 1 Lint · 2 Tests` for a multi-select question, `any text` for one without options. */
export function optionsText(q: Question): string {
  if (q.options.length === 0) return 'any text';
  const list = q.options.map((o, i) => `${i + 1} ${o.label}`).join(' · ');
  return q.multi ? `one or more of ${list}` : list;
}

const ago = (at: string, now: number): string => formatDuration(Math.max(0, now - Date.parse(at)));

/**
 * When and how its deadline decides it: `deny in 58m`, `allow now`, `none`
 * (it waits for a person); `decided in 58m` for another machine's request
 * whose machine does not publish how (an older orcr).
 */
function deadlineText(a: Pick<ListedApproval, 'deadline_at' | 'on_timeout'>, now: number): string {
  if (a.deadline_at === null) return 'none';
  const left = Date.parse(a.deadline_at) - now;
  const how = a.on_timeout ?? 'decided';
  return left > 0 ? `${how} in ${formatDuration(Math.ceil(left / 1000) * 1000)}` : `${how} now`;
}

/**
 * A request as `orcr approvals` lists it: this machine's, or another's as its
 * machine published it (`id` then `b:12`; when it was asked and what its
 * deadline decides unknown when an older orcr published it).
 */
export type ListedApproval = Pick<
  PublicApproval,
  'name' | 'state' | 'summary' | 'question' | 'questions' | 'deadline_at' | 'decided_by' | 'answers' | 'message'
> & {
  id: number | string;
  asked_at: string | null;
  on_timeout: PublicApproval['on_timeout'] | null;
};

/** A decided request's state: `allowed by the CLI (pts/3)`, `denied by its deadline`, `withdrawn`. */
function decidedText(a: Pick<PublicApproval, 'state' | 'decided_by'>): string {
  if (a.state === 'withdrawn') return 'withdrawn by the agent';
  return a.decided_by === null ? a.state : `${a.state} by ${a.decided_by}`;
}

/** The lines under a question's row: its options, numbered; each question on a line of its own when it asks several. */
function questionLines(a: Pick<PublicApproval, 'questions'>): string[] {
  const qs = a.questions ?? [];
  if (qs.length === 1) return [optionsText(qs[0]!)];
  return qs.map((q, i) => `${i + 1}. ${q.question}: ${optionsText(q)}`);
}

/** What a decided row adds to its summary: a question's answers, a denial's words. */
function outcome(a: Pick<PublicApproval, 'answers' | 'message'>): string {
  if (a.answers !== null) return ` → ${a.answers.join('; ')}`;
  if (a.message !== null) return ` → "${a.message}"`;
  return '';
}

/**
 * `orcr approvals`: ID, RUN, AGE, DEADLINE (pending ones) or STATE (with
 * --all), WHAT; a pending question's options on the lines under its row.
 */
export function approvalsTable(list: readonly ListedApproval[], now: number, all: boolean, color = useColor()): string {
  const headers = ['ID', 'RUN', 'AGE', all ? 'STATE' : 'DEADLINE', 'WHAT'];
  const rows = list.map((a) => [
    String(a.id),
    truncateDisplay(safeLine(a.name), NAME_COLUMNS),
    a.asked_at === null ? '-' : ago(a.asked_at, now),
    a.state === 'pending' ? (all ? `pending, ${deadlineText(a, now)}` : deadlineText(a, now)) : decidedText(a),
    a.state === 'pending' ? a.summary : a.summary + outcome(a),
  ]);
  const lines = table(headers, rows, color).split('\n');
  // The WHAT column starts where its header does: the headers are ASCII, one column a character.
  const indent = ' '.repeat(lines[0]!.indexOf('WHAT') + 2);
  const out = [lines[0]!];
  for (const [i, a] of list.entries()) {
    out.push(lines[i + 1]!);
    if (a.state === 'pending' && a.question) out.push(...questionLines(a).map((l) => indent + safeLine(l)));
  }
  return out.join('\n');
}

/** What an agent asked, as JSON a terminal shows as it is: every control, and what would not show, escaped. */
function inputText(got: ApprovalGot): string[] {
  // Cut, the JSON text cannot be parsed: its controls are escaped as JSON.stringify left them, and the rest here.
  const text = got.truncated === true && typeof got.input === 'string' ? bounded(got.input, Infinity) : jsonText(got.input, 2);
  return text.replace(HIDDEN_ALL, unicodeEscape).split('\n');
}

/**
 * `orcr approvals ID`: the request whole — its run, state, summary, the
 * "always" rule it offers, a question's questions with their options
 * numbered, and the input pretty-printed (cut at 1 MiB, with where the whole
 * of it is).
 */
export function approvalText(got: ApprovalGot, now: number, inputFile: string): string {
  const a = got.approval;
  const lines: [string, string][] = [
    ['request', `${a.id}: ${a.summary}`],
    ['run', `${a.name} (${a.run})`],
    ['asked', `${ago(a.asked_at, now)} ago (${a.asked_at})`],
    ['state', a.state === 'pending' ? `pending; its deadline: ${deadlineText(a, now)}` : `${decidedText(a)}${a.decided_at ? ` (${a.decided_at})` : ''}`],
    ['tool', a.tool],
  ];
  if (a.always !== null)
    lines.push(['always', `${a.always}${a.always_added ? ' (added to the run)' : `   (orcr approve ${a.id} --always: allowed from now on in the run)`}`]);
  if (a.message !== null) lines.push(['message', a.message]);
  if (a.answers !== null) lines.push(['answers', a.answers.join('; ')]);
  if (a.state !== 'pending' && a.state !== 'withdrawn') lines.push(['delivered', a.delivered ? 'yes' : 'not yet (sent again when the agent can read it)']);
  const w = Math.max(...lines.map(([k]) => k.length), 'question 1'.length);
  const out = lines.map(([k, v]) => `${k.padEnd(w)}  ${safeLine(v)}`);
  for (const [i, q] of (a.questions ?? []).entries()) {
    out.push(`${`question ${i + 1}`.padEnd(w)}  ${safeLine(q.question)}${q.multi ? ' (one or more)' : ''}`);
    for (const [j, o] of q.options.entries())
      out.push(`${' '.repeat(w)}    ${j + 1}  ${safeLine(o.label)}${o.description ? ` — ${safeLine(o.description)}` : ''}`);
    if (q.options.length === 0) out.push(`${' '.repeat(w)}    (any text)`);
  }
  out.push('input', ...inputText(got).map((l) => `  ${l}`));
  if (got.truncated === true) out.push(`(cut at 1 MiB; the whole of it: ${safeLine(inputFile)})`);
  return out.join('\n');
}
