// The requests waiting for a person across the fleet, as the TUI holds them:
// approval.list's answer on (re)connecting, kept current by the event stream
// (a request shows the frame its approval_asked event arrives, and leaves
// with its approval_decided or approval_withdrawn), each text made safe on
// the way in. An event does not carry a question's options or the rule
// offered for "always": the row is `partial` until the next list fills them.
// Pure reducers: the queue view's selection is approval-queue.ts'.

import type { Question, Verdict } from '../../core/approvals.js';
import type { PublicApproval, PublicRun } from '../../protocol/views.js';
import type { Incoming } from './runs.js';
import { clean } from './safe-text.js';

export interface Request {
  /** This machine's request id; another machine's request has a negative key of its own (state/fleet.ts). */
  id: number;
  /** Another machine's request: `HOST:ID`, what answers it (forwarded to its machine). */
  ref?: string;
  /** Another machine's request: its machine. */
  host?: string;
  run: string;
  /** The run's name. */
  name: string;
  tool: string;
  /** `Bash: npm test`, `question: Which database?`: bounded and escaped by the supervisor. */
  summary: string;
  question: boolean;
  /** A question's questions with their options; null for a tool (and while `partial`). */
  questions: Question[] | null;
  /** The rule an "always" answer adds for the rest of the run, or null when the agent offers none. */
  always: string | null;
  askedAt: number;
  /** When its deadline decides it (`onTimeout`), or null for never. */
  deadlineAt: number | null;
  /** What the deadline decides; null while `partial` (the event does not say). */
  onTimeout: Verdict | null;
  /** Known from its event alone so far: its options and its rule come with the next list. */
  partial: boolean;
}

export interface Requests {
  byId: Readonly<Record<number, Request>>;
  /** Oldest first. */
  ids: readonly number[];
  /** Decided or withdrawn, as the events said: a list read before that does not bring them back. */
  gone: Readonly<Record<number, true>>;
}

export const NO_REQUESTS: Requests = { byId: {}, ids: [], gone: {} };

/** How many decided ids are remembered: a list answer is never older than the last few hundred decisions. */
const GONE_KEPT = 512;

const time = (iso: string | null): number | null => {
  const t = iso === null ? NaN : Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

function safeQuestion(q: Question): Question {
  return {
    question: clean(q.question),
    header: q.header === null ? null : clean(q.header),
    options: q.options.map((o) => ({ label: clean(o.label), description: o.description === null ? null : clean(o.description) })),
    multi: q.multi,
  };
}

function requestOf(a: PublicApproval): Request {
  return {
    id: a.id,
    run: a.run,
    name: clean(a.name),
    tool: clean(a.tool),
    summary: clean(a.summary),
    question: a.question,
    questions: a.questions ? a.questions.map(safeQuestion) : null,
    always: a.always === null ? null : clean(a.always),
    askedAt: time(a.asked_at) ?? 0,
    deadlineAt: time(a.deadline_at),
    onTimeout: a.on_timeout,
    partial: false,
  };
}

const oldestFirst = (byId: Readonly<Record<number, Request>>) => (a: number, b: number) => byId[a]!.askedAt - byId[b]!.askedAt || a - b;

function withRows(byId: Record<number, Request>, gone: Readonly<Record<number, true>>): Requests {
  const ids = Object.keys(byId).map(Number);
  return { byId, ids: ids.sort(oldestFirst(byId)), gone };
}

/**
 * approval.list's answer. `fresh` (a new connection): it is the whole truth.
 * Otherwise a request it lacks is kept — asked after the list was read, or
 * decided and about to leave with its event — and one an event has already
 * seen decided is not let back.
 */
export function applyList(reqs: Requests, list: readonly PublicApproval[], fresh: boolean): Requests {
  const gone = fresh ? {} : reqs.gone;
  const byId: Record<number, Request> = {};
  if (!fresh) for (const id of reqs.ids) byId[id] = reqs.byId[id]!;
  for (const a of list) if (a.state === 'pending' && !gone[a.id]) byId[a.id] = requestOf(a);
  return withRows(byId, gone);
}

function forget(gone: Readonly<Record<number, true>>, id: number): Record<number, true> {
  const next: Record<number, true> = { ...gone, [id]: true };
  const ids = Object.keys(next).map(Number);
  if (ids.length > GONE_KEPT) for (const old of ids.sort((a, b) => a - b).slice(0, ids.length - GONE_KEPT)) delete next[old];
  return next;
}

/** One frame's events: requests asked are added (partly known), decided and withdrawn ones leave. The same object when none were about requests. */
export function applyRequestEvents(reqs: Requests, msgs: readonly Incoming[], runs: Readonly<Record<string, PublicRun>>): Requests {
  let byId: Record<number, Request> | null = null;
  let gone = reqs.gone;
  for (const m of msgs) {
    if (m.type !== 'event') continue;
    const ev = m.event;
    if (ev.type === 'approval_asked') {
      const d = ev.data;
      if (gone[d.id] || (byId ?? reqs.byId)[d.id] || ev.run === null) continue;
      byId ??= { ...reqs.byId };
      byId[d.id] = {
        id: d.id,
        run: ev.run,
        name: clean(m.run?.name ?? runs[ev.run]?.name ?? ev.run.slice(0, 8)),
        tool: clean(d.tool),
        summary: clean(d.summary),
        question: d.question,
        questions: null,
        always: null,
        askedAt: ev.ts,
        deadlineAt: d.deadline_at,
        onTimeout: null,
        partial: true,
      };
    } else if (ev.type === 'approval_decided' || ev.type === 'approval_withdrawn') {
      const id = ev.data.id;
      gone = forget(gone, id);
      if (!(byId ?? reqs.byId)[id]) continue;
      byId ??= { ...reqs.byId };
      delete byId[id];
    }
  }
  if (byId === null) return gone === reqs.gone ? reqs : { ...reqs, gone };
  return withRows(byId, gone);
}

/** The events in a frame that mean the list has more to say (a new request's options and rule). */
export function asksIn(msgs: readonly Incoming[]): boolean {
  return msgs.some((m) => m.type === 'event' && m.event.type === 'approval_asked');
}

/** The run's pending requests, oldest first. */
export function requestsOf(reqs: Requests, run: string): Request[] {
  return reqs.ids.map((id) => reqs.byId[id]!).filter((r) => r.run === run);
}
