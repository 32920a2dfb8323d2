// What the approvals queue's keys do (`!` opens it): move, tag, allow, deny
// with a message, allow for the rest of the run, choose a question's
// options, read a request's whole input, and back; and why each does
// nothing when it cannot. An answer goes to the tagged requests when some
// are, else to the selected one. Handlers and disabled reasons for the
// bindings (approval-bindings.ts).

import type { Verdict } from '../../core/approvals.js';
import { requestsOf, type Request } from '../state/approvals.js';
import { requestLabel } from '../model/fleet-names.js';
import { confirmedPicks, currentQuestion, movedQueue, openedQueue, picked, selectedRequest, taggedQueue, taggedRequests } from '../state/approval-queue.js';
import { reduceOpenInput } from '../state/pager.js';
import type { AnswerOptions } from './actions.js';
import { refused, unavailable, type KeyCall, type Refusal } from './binding.js';
import { plural } from './run-keys.js';

type By = number | 'page' | '-page' | 'top' | 'bottom';

/** `!`: the queue on its oldest request, or from details on the run's own; in the queue, back. */
export function toggleQueue(c: KeyCall): void {
  const s = c.s;
  if (s.mode === 'approvals') return back(c);
  const run = s.mode === 'details' ? c.target?.run : undefined;
  const id = run ? (requestsOf(s.requests, run.uuid)[0]?.id ?? run.asking?.id ?? null) : null;
  c.set({ mode: 'approvals', queueBack: s.mode, queue: openedQueue(s, id ?? s.requests.ids[0] ?? null), message: null });
}

export const queueMove =
  (by: By) =>
  (c: KeyCall): void => {
    const page = Math.max(1, c.s.viewport.pagerHeight - 8);
    c.set({ queue: movedQueue(c.s, by === 'page' ? page : by === '-page' ? -page : by) });
  };

/** esc: untag, then let go of a question's picks, then back where the queue was opened. */
export function back(c: KeyCall): void {
  const s = c.s;
  if (Object.keys(s.queue.tagged).length > 0) return c.set({ queue: { ...s.queue, tagged: {} }, message: null });
  if (s.queue.picks) return c.set({ queue: { ...s.queue, picks: null }, message: null });
  c.set({ mode: s.queueBack === 'approvals' ? 'list' : s.queueBack });
}

export const tag = (c: KeyCall): void => {
  const queue = taggedQueue(c.s);
  const n = Object.keys(queue.tagged).length;
  c.set({ queue });
  c.say(n ? `${plural(n, 'request')} tagged: y and n answer them all (esc untags)` : 'no requests tagged');
};

/** The requests an answer goes to: the tagged ones, else the selected one. */
function answering(c: KeyCall): Request[] {
  const tagged = taggedRequests(c.s);
  if (tagged.length > 0) return tagged;
  const r = selectedRequest(c.s);
  return r ? [r] : [];
}

const NOTHING = unavailable('nothing waits for an answer');

export const anyRequest = (c: KeyCall): Refusal | null => (answering(c).length > 0 ? null : NOTHING);

/** y: a tool allowed; a question takes one of its options instead. */
export function allowable(c: KeyCall): Refusal | null {
  const rs = answering(c);
  if (rs.length === 0) return NOTHING;
  const q = rs.find((r) => r.question);
  if (!q) return null;
  if (rs.length > 1) return refused(`${requestLabel(q)} is a question: untag it, and answer it with its option`);
  if (q.host) return refused(`${requestLabel(q)} is a question: its options stay on ${q.host} (orcr approve ${q.ref} --answer …), n declines it`);
  const n = q.questions?.[currentQuestion(c.s.queue, q)]?.options.length ?? 0;
  return refused(`${requestLabel(q)} is a question: ${n > 0 ? `1–${n} chooses its answer` : 'it offers no options to choose'}, n declines it`);
}

/** A: the rule each request offers, added to its run's allow list; refused when one offers none. */
export function alwaysAllowable(c: KeyCall): Refusal | null {
  const why = allowable(c);
  if (why) return why;
  const rs = answering(c);
  const reading = rs.find((r) => r.partial);
  if (reading) return unavailable(`${requestLabel(reading)}: reading what it offers…`);
  // Another machine's request: its rule is known there (the fleet shares summaries), and refused there if it offers none.
  const none = rs.find((r) => r.always === null && r.ref === undefined);
  if (!none) return null;
  return refused(`${requestLabel(none)} offers no rule for the rest of its run: y allows it this once`);
}

function send(c: KeyCall, rs: readonly Request[], verdict: Verdict, opts: AnswerOptions = {}): void {
  c.actions.approvals.answer(
    rs.map((r) => r.id),
    verdict,
    opts,
  );
  if (Object.keys(c.s.queue.tagged).length > 0) c.set({ queue: { ...c.s.queue, tagged: {} } });
}

export const allow = (c: KeyCall): void => send(c, answering(c), 'allow');

export const allowAlways = (c: KeyCall): void => send(c, answering(c), 'allow', { always: true });

/** n: the denial's words asked for in the prompt line (enter alone: the default ones). */
export function deny(c: KeyCall): void {
  const rs = answering(c);
  const name = rs.length === 1 ? requestLabel(rs[0]!) : `${plural(rs.length, 'tagged request')}`;
  c.openPrompt({ kind: 'deny', text: '', target: null, targetName: name, ids: rs.map((r) => r.id) });
}

/** Digit `n`: one of the selected question's options. */
export const choosable =
  (n: number) =>
  (c: KeyCall): Refusal | null => {
    const r = selectedRequest(c.s);
    if (!r) return NOTHING;
    if (!r.question) return unavailable(`${requestLabel(r)} asks no question: y allows it, n denies it`);
    if (!r.questions) return unavailable(`${requestLabel(r)}: reading its options…`);
    const at = currentQuestion(c.s.queue, r);
    const count = r.questions[at]?.options.length ?? 0;
    if (count === 0) return refused(`${requestLabel(r)}'s question offers no options to choose (n declines it)`);
    return n <= count ? null : unavailable(`question ${at + 1} of ${requestLabel(r)} has ${plural(count, 'option')}: 1–${count}`);
  };

export const choose =
  (n: number) =>
  (c: KeyCall): void => {
    const r = selectedRequest(c.s)!;
    const { queue, send: answers } = picked(c.s.queue, r, n);
    c.set({ queue });
    if (answers) c.actions.approvals.answer([r.id], 'allow', { answers });
  };

/** enter: a multi-select question's options toggled are its answer; otherwise the request's whole input, in the pager. */
export function enter(c: KeyCall): void {
  const r = selectedRequest(c.s)!;
  const q = r.questions?.[currentQuestion(c.s.queue, r)];
  if (q?.multi) {
    const done = confirmedPicks(c.s.queue, r);
    if (!done) return c.fail(`choose one or more of ${plural(q.options.length, 'option')} first (1–${q.options.length} toggles one)`);
    c.set({ queue: done.queue });
    if (done.send) c.actions.approvals.answer([r.id], 'allow', { answers: done.send });
    return;
  }
  readInput(c);
}

export const selected = (c: KeyCall): Refusal | null => (selectedRequest(c.s) ? null : NOTHING);

export function readInput(c: KeyCall): void {
  const r = selectedRequest(c.s)!;
  if (r.host) return c.say(`${requestLabel(r)}: its whole input stays on ${r.host}; the fleet shares its summary`);
  c.set(reduceOpenInput(c.s, r.id, r.run, `${requestLabel(r)} · ${r.name} · ${r.tool}`));
  c.actions.approvals.inputOpened(r.id);
}
