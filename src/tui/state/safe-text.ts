// Text from agents, made terminal-safe. Every string a run or an event
// carries may hold escape sequences (an agent's output, a name typed by
// someone else); the TUI makes it safe once, when it comes in, so no pane
// can forget to and no frame pays for it again.

import type { PublicRun } from '../../protocol/views.js';
import { hasControls, safeLine } from '../../text/terminal-text.js';

/** One line of terminal-safe text (the test is one regexp; most text passes as is). */
export const clean = (v: string): string => (hasControls(v) ? safeLine(v) : v);
const cleanOrNull = (v: string | null): string | null => (v === null ? null : clean(v));

const RUN_TEXT = [
  'name',
  'provider',
  'workload',
  'protocol',
  'status',
  'exit_reason',
  'exit_detail',
  'blocked_kind',
  'cwd',
  'session_id',
  'last_tool',
  'last_text',
] as const;

/** The run with every text field terminal-safe; the same object when nothing needed it. */
export function safeRun(r: PublicRun): PublicRun {
  let out: PublicRun | null = null;
  for (const k of RUN_TEXT) {
    const v = r[k];
    if (typeof v === 'string' && hasControls(v)) {
      out ??= { ...r };
      (out as unknown as Record<string, string>)[k] = safeLine(v);
    }
  }
  if (r.command.some(hasControls)) {
    out ??= { ...r };
    out.command = r.command.map(clean);
  }
  const w = r.waiting;
  if (w && ((w.name !== null && hasControls(w.name)) || (w.until !== null && hasControls(w.until)))) {
    out ??= { ...r };
    out.waiting = { ...w, name: cleanOrNull(w.name), until: cleanOrNull(w.until) };
  }
  // A request's summary is escaped by the supervisor; an older or a stranger one may not have been.
  const a = r.asking;
  if (a && hasControls(a.summary)) {
    out ??= { ...r };
    out.asking = { ...a, summary: safeLine(a.summary) };
  }
  // A repository's folder is named by whoever made it: the table and details show it.
  const wt = r.worktree;
  if (wt && [wt.repo, wt.path, wt.branch, wt.base].some(hasControls)) {
    out ??= { ...r };
    out.worktree = { ...wt, repo: safeLine(wt.repo), path: safeLine(wt.path), branch: safeLine(wt.branch), base: safeLine(wt.base) };
  }
  return out ?? r;
}
