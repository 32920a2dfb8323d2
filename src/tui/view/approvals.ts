// The approvals queue's lines (`!`): one row per request waiting, oldest
// first — id, run, age, what its deadline decides and when, the summary —
// and under them the selected request: its tool, what it asks, the rule
// "always" would add, its deadline, a question's numbered options (those
// picked so far marked), and the keys that answer it. Pure: the requests,
// the queue, the time and the width in, spans out.

import type { Request } from '../state/approvals.js';
import { requestLabel } from '../model/fleet-names.js';
import { currentQuestion, type QueueView } from '../state/approval-queue.js';
import type { Span } from './columns.js';
import { fit, textWidth } from './format.js';
import { clock } from '../model/numbers.js';
import type { Token } from '../model/tokens.js';

/** Minutes and hours as a person reads a deadline: `12s`, `57m`, `1h05m`. */
export function coarse(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h${String(m % 60).padStart(2, '0')}m` : `${h}h`;
  return `${Math.floor(h / 24)}d${h % 24 ? `${String(h % 24).padStart(2, '0')}h` : ''}`;
}

/** `deny in 58m`, `allow in 5s`, `deny now`, `no deadline`; `in 58m` before the list said what the deadline decides. */
function deadlineText(r: Request, now: number): string {
  if (r.deadlineAt === null) return 'no deadline';
  const verb = r.onTimeout ?? '';
  const left = r.deadlineAt - now;
  return `${verb}${verb ? ' ' : ''}${left <= 0 ? 'now' : `in ${coarse(left)}`}`;
}

/** A deadline close enough to say it in the warning colour. */
const SOON_MS = 5 * 60_000;
const deadlineToken = (r: Request, now: number): Token => (r.deadlineAt !== null && r.deadlineAt - now < SOON_MS ? 'meter.warn' : 'text.primary');

const FIXED = { id: 5, age: 5, deadline: 12 };

export interface QueueColumns {
  /** `#12`, or another machine's `b:12`: as wide as the longest (5 to 12). */
  id: number;
  run: number;
  summary: number;
}

/** The run column as wide as the longest name (8 to 20 columns, a fifth of the screen at most); the summary takes the rest. */
export function queueColumns(width: number, reqs: readonly Request[]): QueueColumns {
  const longest = Math.max(3, ...reqs.map((r) => textWidth(r.name)));
  const run = Math.max(8, Math.min(20, longest, Math.floor(width / 5)));
  const id = Math.max(FIXED.id, Math.min(12, ...reqs.map((r) => textWidth(requestLabel(r)))));
  return { id, run, summary: Math.max(8, width - 2 - id - run - FIXED.age - FIXED.deadline - 4) };
}

export function queueHeader(w: QueueColumns): Span[] {
  return [
    {
      text: `  ${fit('ID', w.id)} ${fit('RUN', w.run)} ${fit('AGE', FIXED.age)} ${fit('DEADLINE', FIXED.deadline)} ${fit('REQUEST', w.summary)}`,
      token: 'text.muted',
    },
  ];
}

export function queueRowSpans(r: Request, w: QueueColumns, q: QueueView, now: number): Span[] {
  const mark: Span =
    q.selected === r.id ? { text: '› ', token: 'focus' } : q.tagged[r.id] ? { text: '+ ', token: 'focus' } : { text: '  ', token: 'text.muted' };
  return [
    mark,
    { text: `${fit(requestLabel(r), w.id)} `, token: 'text.accent' },
    { text: `${fit(r.name, w.run)} `, token: 'text.primary' },
    { text: `${fit(coarse(now - r.askedAt), FIXED.age)} `, token: 'text.muted' },
    { text: `${fit(deadlineText(r, now), FIXED.deadline)} `, token: deadlineToken(r, now) },
    { text: fit(r.summary, w.summary), token: r.question ? 'status.blocked' : 'text.primary' },
  ];
}

/** The first row to show so that the cursor's row is on screen. */
export function queueOffset(cursor: number, body: number): number {
  return Math.max(0, cursor - Math.max(1, body) + 1);
}

const label = (text: string): Span => ({ text: text.padEnd(10), token: 'text.muted' });

function deadlineLine(r: Request, now: number): Span[] {
  if (r.deadlineAt === null) return [label('deadline'), { text: 'none: it waits for a person', token: 'text.muted' }];
  const decides = r.onTimeout === null ? 'decided' : r.onTimeout === 'deny' ? 'denied' : 'allowed';
  const left = r.deadlineAt - now;
  const when = left <= 0 ? 'now' : `in ${coarse(left)}`;
  return [
    label('deadline'),
    { text: `${decides} ${when} if nobody answers`, token: deadlineToken(r, now) },
    { text: ` (at ${clock(r.deadlineAt)})`, token: 'text.muted' },
  ];
}

/** A question's lines: each question, its options numbered, those picked so far marked; the one digits answer now first among equals. */
function questionLines(r: Request, q: QueueView): Span[][] {
  // Another machine's question: its options stay there (only its summary is published), answered by the CLI.
  if (r.host)
    return [
      [label('question'), { text: r.summary.replace(/^question: /, ''), token: 'text.primary' }],
      [label('options'), { text: `on ${r.host}: orcr approve ${r.ref ?? r.id} --answer LABEL`, token: 'text.muted' }],
    ];
  if (!r.questions) return [[label('question'), { text: 'reading its options…', token: 'text.muted' }]];
  const at = currentQuestion(q, r);
  const chosen = q.picks?.id === r.id ? q.picks.chosen : [];
  const lines: Span[][] = [];
  r.questions.forEach((question, i) => {
    const head = r.questions!.length > 1 ? `${i + 1}/${r.questions!.length}${i === at ? ' ▸' : ''}` : 'question';
    const kind = [question.header, question.multi ? 'one or more' : null].filter(Boolean).join(', ');
    lines.push([
      label(head),
      { text: question.question, token: i === at ? 'text.accent' : 'text.primary' },
      { text: kind ? ` (${kind})` : '', token: 'text.muted' },
    ]);
    question.options.forEach((o, k) => {
      const picked = (chosen[i] ?? []).includes(k);
      const box = question.multi ? (picked ? '[x] ' : '[ ] ') : picked ? '● ' : '';
      lines.push([
        { text: `${' '.repeat(10)}${i === at ? `${k + 1}` : ' '} `, token: 'focus' },
        { text: `${box}${o.label}`, token: picked ? 'reason.ok' : 'text.primary' },
        { text: o.description ? ` — ${o.description}` : '', token: 'text.muted' },
      ]);
    });
  });
  return lines;
}

function keysLine(r: Request, q: QueueView): Span[] {
  const tags = Object.keys(q.tagged).length;
  const keys = (text: string): Span[] => [label('keys'), { text, token: 'text.muted' }];
  if (tags > 0) return keys(`${tags} tagged: y allows them all · n denies them all · A always · esc untags`);
  if (r.question) {
    const question = r.questions?.[currentQuestion(q, r)];
    const n = question?.options.length ?? 0;
    if (r.host) return keys('n declines it (its options are answered on the command line)');
    if (n === 0) return keys('n declines it · enter the whole input');
    return keys(question?.multi ? `1–${n} toggles · enter sends · n declines it` : `1–${n} chooses · n declines it · v the whole input`);
  }
  if (r.host) return keys('y allow · n deny with words · A always · space tag');
  return keys(`y allow · n deny with words · ${r.always ? 'A always · ' : ''}enter input · space tag`);
}

/** The selected request, below the list. */
export function requestLines(r: Request, q: QueueView, now: number): Span[][] {
  const lines: Span[][] = [
    [
      label('run'),
      { text: r.name, token: 'text.accent' },
      r.host
        ? {
            text: `  on ${r.host} · waiting ${coarse(now - r.askedAt)} (since ${clock(r.askedAt)}) · ${r.run.slice(r.host.length + 1, r.host.length + 9)}`,
            token: 'text.muted',
          }
        : { text: `  asked ${coarse(now - r.askedAt)} ago (${clock(r.askedAt)}) · ${r.run.slice(0, 8)}`, token: 'text.muted' },
    ],
  ];
  if (r.question) lines.push(...questionLines(r, q));
  else {
    // The summary leads with the tool: said once.
    const subject = r.summary.startsWith(`${r.tool}: `) ? r.summary.slice(r.tool.length + 2) : r.summary === r.tool ? '' : r.summary;
    lines.push([label('tool'), { text: r.tool, token: 'text.accent' }, { text: subject ? `  ${subject}` : '', token: 'text.primary' }]);
    lines.push(
      r.host
        ? [
            label('always'),
            {
              text: `${r.host}'s rule, if it offers one: A allows its like for the rest of the run`,
              token: 'text.muted',
            },
          ]
        : r.partial
          ? [label('always'), { text: 'reading what it offers…', token: 'text.muted' }]
          : r.always
            ? [
                label('always'),
                { text: 'A allows ', token: 'text.muted' },
                { text: r.always, token: 'text.accent' },
                { text: ' for the rest of the run', token: 'text.muted' },
              ]
            : [label('always'), { text: 'no rule offered: y allows it this once', token: 'text.muted' }],
    );
  }
  lines.push(deadlineLine(r, now));
  lines.push(keysLine(r, q));
  return lines;
}

export function emptyQueueText(): string {
  return '  nothing waits for an answer: a request shows here the moment an agent asks';
}
