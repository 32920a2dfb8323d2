// The approvals queue (`!`) as a person moves through it: the selected
// request (kept as requests come and go; the next one takes its place when
// it is answered), the requests tagged to answer together, and a question's
// options picked with digits — one question after another, a multi-select
// one toggled and sent with enter. Pure functions over the requests
// (approvals.ts), below the store; what is sent is the caller's to send.

import type { Request, Requests } from './approvals.js';

/** A question being answered by digits: the question it is at, and the options picked for each so far (indexes). */
interface Picks {
  id: number;
  at: number;
  chosen: readonly (readonly number[])[];
}

export interface QueueView {
  /** The selected request's id: the cursor follows it while it waits. */
  selected: number | null;
  cursor: number;
  /** Requests tagged with space: y and n answer all of them at once. */
  tagged: Readonly<Record<number, true>>;
  picks: Picks | null;
}

export const NO_QUEUE: QueueView = { selected: null, cursor: 0, tagged: {}, picks: null };

interface Held {
  requests: Requests;
  queue: QueueView;
}

/** The queue after the requests changed: the selected one where it still is, else the one now at the cursor; tags and picks of requests gone dropped. */
export function followQueue(q: QueueView, reqs: Requests): QueueView {
  const ids = reqs.ids;
  let cursor = q.selected === null ? q.cursor : ids.indexOf(q.selected);
  if (cursor < 0) cursor = q.cursor;
  cursor = Math.max(0, Math.min(cursor, ids.length - 1));
  const selected = ids[cursor] ?? null;
  let tagged = q.tagged;
  for (const id in q.tagged) {
    if (reqs.byId[Number(id)]) continue;
    if (tagged === q.tagged) tagged = { ...q.tagged };
    delete (tagged as Record<number, true>)[Number(id)];
  }
  const picks = q.picks && reqs.byId[q.picks.id] ? q.picks : null;
  if (selected === q.selected && cursor === q.cursor && tagged === q.tagged && picks === q.picks) return q;
  return { ...q, selected, cursor, tagged, picks };
}

export const selectedRequest = (s: Held): Request | undefined => (s.queue.selected === null ? undefined : s.requests.byId[s.queue.selected]);

/** The tagged requests still waiting, oldest first. */
export function taggedRequests(s: Held): Request[] {
  return s.requests.ids.filter((id) => s.queue.tagged[id]).map((id) => s.requests.byId[id]!);
}

/** The queue opened on request `id` (else the one it had, else the oldest), nothing picked. */
export function openedQueue(s: Held, id: number | null): QueueView {
  return followQueue({ ...s.queue, selected: id ?? s.queue.selected, picks: null }, s.requests);
}

export function movedQueue(s: Held, by: number | 'top' | 'bottom'): QueueView {
  const n = s.requests.ids.length;
  const to = by === 'top' ? 0 : by === 'bottom' ? n - 1 : s.queue.cursor + by;
  const cursor = Math.max(0, Math.min(to, n - 1));
  const selected = s.requests.ids[cursor] ?? null;
  return { ...s.queue, cursor, selected, picks: s.queue.picks?.id === selected ? s.queue.picks : null };
}

/** space: the selected request tagged (or untagged), and the next one selected. */
export function taggedQueue(s: Held): QueueView {
  const id = s.queue.selected;
  if (id === null) return s.queue;
  const tagged = { ...s.queue.tagged };
  if (tagged[id]) delete tagged[id];
  else tagged[id] = true;
  return movedQueue({ ...s, queue: { ...s.queue, tagged } }, 1);
}

/** A question's answers as approval.answer takes them: a label for each question, the labels of a multi-select one. */
function answersOf(r: Request, chosen: readonly (readonly number[])[]): (string | string[])[] {
  return (r.questions ?? []).map((q, i) => {
    const labels = (chosen[i] ?? []).map((k) => q.options[k]!.label);
    return q.multi ? labels : labels[0]!;
  });
}

/** What a digit or enter came to: the queue with its picks moved on, and the answers to send once every question has its own. */
export interface Picked {
  queue: QueueView;
  send: (string | string[])[] | null;
}

function advance(q: QueueView, r: Request, picks: Picks): Picked {
  const next = picks.at + 1;
  if (next >= (r.questions ?? []).length) return { queue: { ...q, picks: null }, send: answersOf(r, picks.chosen) };
  return { queue: { ...q, picks: { ...picks, at: next } }, send: null };
}

const picksOf = (q: QueueView, r: Request): Picks => (q.picks?.id === r.id ? q.picks : { id: r.id, at: 0, chosen: (r.questions ?? []).map(() => []) });

/** Digit `n` on a question: its option n chosen (a multi-select one's toggled); the last question chosen sends them all. */
export function picked(q: QueueView, r: Request, n: number): Picked {
  const picks = picksOf(q, r);
  const question = r.questions![picks.at]!;
  const k = n - 1;
  const mine = picks.chosen[picks.at] ?? [];
  const toggled = mine.includes(k) ? mine.filter((x) => x !== k) : [...mine, k].sort((a, b) => a - b);
  const chosen = picks.chosen.map((c, i) => (i !== picks.at ? c : question.multi ? toggled : [k]));
  const next = { ...picks, chosen };
  if (question.multi) return { queue: { ...q, picks: next }, send: null };
  return advance(q, r, next);
}

/** enter on a multi-select question: the options toggled are its answer; on to the next question, or send. Null when none is toggled. */
export function confirmedPicks(q: QueueView, r: Request): Picked | null {
  const picks = q.picks;
  if (!picks || picks.id !== r.id || (picks.chosen[picks.at] ?? []).length === 0) return null;
  return advance(q, r, picks);
}

/** The question digits answer now: where the picks are, else the first. */
export function currentQuestion(q: QueueView, r: Request): number {
  return q.picks?.id === r.id ? q.picks.at : 0;
}
