// The runs as the TUI holds them: a snapshot and the event stream become
// normalized rows (byId), made terminal-safe once on the way in
// (safe-text.ts). The list the panes show is worked out from them in
// runs-view.ts. Pure: no I/O.

import type { RunEvent } from '../../core/events.js';
import type { RowsMessage, StreamMessage } from '../../client/client.js';
import type { PublicRun } from '../../protocol/views.js';
import { clean, safeRun } from './safe-text.js';

/** What the stream brings, in order: events with their row, and rows that changed without one. */
export type Incoming = StreamMessage | RowsMessage;

export interface RunsData {
  byId: Readonly<Record<string, PublicRun>>;
  /** The last journal seq applied: stream events at or below it are already in. */
  seq: number;
}

export interface Snapshot {
  seq: number;
  runs: PublicRun[];
  /** Runs the home holds; more than `runs` when the snapshot was cut to the newest (`truncated`). */
  total?: number;
  truncated?: boolean;
  events?: RunEvent[];
}

/**
 * A copy of the runs by id, to change without touching the state's. A loop:
 * V8 spreads an object of thousands of keys (a dictionary) ~2.5x slower, and
 * this runs once a frame.
 */
export function copyRuns(byId: Readonly<Record<string, PublicRun>>): Record<string, PublicRun> {
  const out: Record<string, PublicRun> = {};
  for (const uuid in byId) out[uuid] = byId[uuid]!;
  return out;
}

export function applySnapshot(snap: Snapshot): RunsData {
  const byId: Record<string, PublicRun> = {};
  for (const r of snap.runs) byId[r.uuid] = safeRun(r);
  return { byId, seq: snap.seq };
}

export interface Notable {
  kind: 'blocked' | 'ended';
  uuid: string;
  name: string;
  /** blocked kind or exit reason */
  detail: string;
}

export interface Applied {
  data: RunsData;
  /** The runs whose rows were replaced (or added). */
  changed: Set<string>;
  /** The messages that were new (seq above what was applied), in order. */
  fresh: StreamMessage[];
  notable: Notable[];
}

/** A queued run's row at its new place in the queue, as the supervisor sent it; the rest as last sent. */
function withPosition(r: PublicRun, pos: number | null): PublicRun {
  return { ...r, queue_position: pos, waiting: r.waiting ? { ...r.waiting, position: pos } : r.waiting };
}

/**
 * Apply stream messages in order. A message at or below the applied seq is a
 * duplicate of what the snapshot already holds and is dropped. Every run
 * event carries its run's row as of that event (the supervisor journals the
 * two together), so that row simply replaces ours; applied in seq order, the
 * last event of a run decides its row. A message without a row (an event
 * about no run, or about a run the server no longer knows) leaves the rows
 * as they are: it still reaches the log and the notices. A rows message
 * (rows that changed without an event: the agent's last words, its tool)
 * replaces rows too, unless an event later than it was applied already,
 * whose row is newer; the queue positions it carries (queued runs whose
 * place moved without an event about them) go into the rows they are of.
 */
export function applyEvents(data: RunsData, msgs: readonly Incoming[]): Applied {
  let byId: Record<string, PublicRun> | null = null;
  let seq = data.seq;
  const changed = new Set<string>();
  const fresh: StreamMessage[] = [];
  const notable: Notable[] = [];
  for (const m of msgs) {
    if (m.type === 'rows') {
      if (m.seq < seq) continue;
      for (const r of m.runs) {
        const row = safeRun(r);
        if (!row.uuid) continue;
        byId ??= copyRuns(data.byId);
        byId[row.uuid] = row;
        changed.add(row.uuid);
      }
      if (m.positions) {
        for (const uuid in m.positions) {
          const row = (byId ?? data.byId)[uuid];
          const pos = m.positions[uuid] ?? null;
          if (row === undefined || row.status !== 'queued' || row.queue_position === pos) continue;
          byId ??= copyRuns(data.byId);
          byId[uuid] = withPosition(row, pos);
          changed.add(uuid);
        }
      }
      continue;
    }
    const ev = m.event;
    if (ev.seq <= seq) continue;
    seq = ev.seq;
    fresh.push(m);
    const uuid = ev.run;
    if (uuid === null) continue;
    const next = m.run && m.run.uuid === uuid ? safeRun(m.run) : undefined;
    if (next) {
      byId ??= copyRuns(data.byId);
      byId[uuid] = next;
      changed.add(uuid);
    }
    const name = next?.name ?? (byId ?? data.byId)[uuid]?.name ?? uuid.slice(0, 8);
    // A request is told by its own event, naming what it asks (the block that comes with it adds nothing).
    if (ev.type === 'approval_asked') {
      notable.push({ kind: 'blocked', uuid, name, detail: clean(`asks: ${String(ev.data.summary)}`) });
    } else if (ev.type === 'blocked' && ev.data.kind !== 'approval') {
      notable.push({ kind: 'blocked', uuid, name, detail: clean(String(ev.data.kind ?? next?.blocked_kind ?? 'unknown')) });
    } else if (ev.type === 'ended') {
      notable.push({ kind: 'ended', uuid, name, detail: clean(String(ev.data.reason ?? next?.exit_reason ?? 'ended')) });
    }
  }
  return { data: byId || seq !== data.seq ? { byId: byId ?? data.byId, seq } : data, changed, fresh, notable };
}
