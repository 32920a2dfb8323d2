// Which journal events a person wants to be told about, and how a burst of
// them becomes one notification. Pure: time is passed in, nothing is sent;
// the supervisor's notifier (server/notify.ts) owns the timer and the sinks.

/** The notification kinds config `notify.events` names. */
export const NOTIFY_EVENTS = ['ended_not_completed', 'blocked', 'approval', 'awaiting_input', 'hold', 'budget', 'loop'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export function isNotifyEvent(v: string): v is NotifyEvent {
  return (NOTIFY_EVENTS as readonly string[]).includes(v);
}

/** One journal event as the policy sees it, with the run row written with it (if any). */
export interface EventFacts {
  type: string;
  data: Record<string, unknown>;
  run: { interactive: boolean } | null;
}

/**
 * The kind of notification an event is, or null when nobody needs telling.
 * A usage limit is told as `hold`, by the hold event that comes with it (it
 * holds the whole provider, not one run; a run blocked by a limit already
 * held adds nothing), an end by budget as `budget`, and an agent's request
 * as `approval` by its own event (naming what it asks), not by the block
 * that comes with it: one cause, one item. A request a rule decided asks
 * nobody.
 */
export function notableKind(e: EventFacts): NotifyEvent | null {
  switch (e.type) {
    case 'ended': {
      const reason = e.data.reason;
      if (reason === 'completed') return null;
      return reason === 'budget' ? 'budget' : 'ended_not_completed';
    }
    case 'blocked':
      return e.data.kind === 'limit' || e.data.kind === 'approval' ? null : 'blocked';
    case 'approval_asked':
      return 'approval';
    case 'idle':
      // Only an interactive run goes idle; a row that says otherwise is not waiting on anyone.
      return e.run?.interactive === true ? 'awaiting_input' : null;
    case 'hold':
      return 'hold';
    case 'budget_warning':
    case 'budget_exceeded':
      return 'budget';
    case 'loop_detected':
      return 'loop';
    default:
      return null;
  }
}

/** What one notification lists, at most: a burst of ten thousand endings is one message, not ten megabytes. */
export const MAX_BATCH_ITEMS = 500;

export interface Batch<T> {
  items: T[];
  /** Items that came in the window beyond MAX_BATCH_ITEMS: counted, not listed. */
  omitted: number;
}

/**
 * Gathers notable items for `batchMs` from the first one, then gives them out
 * as one batch. The window is fixed from its first item rather than extended
 * by each new one, so a steady trickle still gets told every `batchMs`.
 */
export class Batcher<T> {
  private items: T[] = [];
  private omitted = 0;
  private openedAt: number | null = null;

  constructor(private batchMs: number) {}

  /** Add an item; returns when the batch is due (so the caller can set its one timer). */
  add(item: T, now: number): number {
    if (this.openedAt === null) this.openedAt = now;
    if (this.items.length < MAX_BATCH_ITEMS) this.items.push(item);
    else this.omitted++;
    return this.dueAt()!;
  }

  /** When the open batch is due, or null when none is open. */
  dueAt(): number | null {
    return this.openedAt === null ? null : this.openedAt + this.batchMs;
  }

  /** A new window length; an open batch becomes due by the new one. */
  setBatchMs(ms: number): void {
    this.batchMs = ms;
  }

  /** The batch, once it is due (or at once with `force`); null when none is due. */
  take(now: number, force = false): Batch<T> | null {
    const due = this.dueAt();
    if (due === null || (!force && now < due)) return null;
    const batch = { items: this.items, omitted: this.omitted };
    this.items = [];
    this.omitted = 0;
    this.openedAt = null;
    return batch;
  }
}

/** What the summary needs of an item. */
export interface SummaryItem {
  kind: NotifyEvent;
  name: string | null;
  type: string;
  data: Record<string, unknown>;
}

const KIND_TEXT: Record<NotifyEvent, { one: string; many: string }> = {
  ended_not_completed: { one: 'ended', many: 'runs ended not completed' },
  blocked: { one: 'blocked', many: 'runs blocked' },
  approval: { one: 'asks', many: 'requests wait' },
  awaiting_input: { one: 'awaits input', many: 'runs await input' },
  hold: { one: 'hold', many: 'holds' },
  budget: { one: 'budget', many: 'budget notices' },
  loop: { one: 'loop detected', many: 'loops detected' },
};

/** Why, in a word or two, for one item ("errored", "question", "tokens 80%"). */
function detail(it: SummaryItem): string {
  const d = it.data;
  switch (it.type) {
    case 'ended':
      return String(d.reason) + (d.detail ? ` (${String(d.detail)})` : '');
    case 'blocked':
      return String(d.kind);
    case 'approval_asked':
      return String(d.summary);
    case 'hold':
      return `provider ${String(d.provider)}${typeof d.until === 'number' ? ` until ${new Date(d.until).toISOString()}` : ''}`;
    case 'budget_warning':
      return `${String(d.meter)} at ${Math.round(Number(d.fraction) * 100)}%`;
    case 'budget_exceeded':
      return `fleet ${String(d.meter)} exceeded`;
    case 'loop_detected':
      return String(d.action);
    default:
      return '';
  }
}

function label(it: SummaryItem): string {
  const who = it.name ?? (it.data.scope === 'fleet' ? 'fleet' : null);
  const why = detail(it);
  return [who, why].filter((s) => s !== null && s !== '').join(' ');
}

/**
 * One line for a batch, kind by kind, naming the first few runs:
 * "build-3 ended: errored · 50 runs ended not completed: a errored, b errored, c errored, …".
 */
export function summarize(batch: Batch<SummaryItem>): string {
  const parts: string[] = [];
  for (const kind of NOTIFY_EVENTS) {
    const of = batch.items.filter((i) => i.kind === kind);
    if (of.length === 0) continue;
    const text = KIND_TEXT[kind];
    if (of.length === 1) {
      const it = of[0]!;
      parts.push(it.name ? `${it.name} ${text.one}${detail(it) && kind !== 'awaiting_input' ? `: ${detail(it)}` : ''}` : `${text.one}: ${label(it)}`);
    } else {
      parts.push(`${of.length} ${text.many}: ${of.slice(0, 3).map(label).join(', ')}${of.length > 3 ? ', …' : ''}`);
    }
  }
  if (batch.omitted > 0) parts.push(`and ${batch.omitted} more`);
  return parts.join(' · ');
}
