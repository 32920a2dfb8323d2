// What the journal holds, read and never written: the narrow port the run
// store hands its rooms and the client reads (server/reads.ts, queries,
// references). An object of its own, not the Journal behind a type, so no
// room can reach a write through it; every write goes through the run
// store's unit of work.

import type { SpendRow } from '../protocol/results.js';
import type { RunEvent } from '../core/events.js';
import type { Loop } from '../core/loop-policy.js';
import type { Run } from '../core/types.js';
import type { ApprovalRecord } from '../core/approvals.js';
import type { EventListener, Journal, ListQuery } from './journal.js';

export type { ListQuery } from './journal.js';

export interface JournalReader {
  /** Any run by uuid, as last committed (the run store's lookup prefers the live row). */
  getRun(uuid: string): Run | null;
  /** A run's name without reading its record, or null. */
  nameOf(uuid: string): string | null;
  /** The uuids of the runs a run made, in queue order. */
  childrenOf(uuid: string): string[];
  runsByName(name: string): Run[];
  /** Up to 3 runs whose uuid starts with prefix. */
  runsByPrefix(prefix: string): Run[];
  /** Runs whose worktree may still exist, active or ended. */
  runsWithWorktree(): Run[];
  /** The newest runs of a workload, newest first. */
  runsByWorkload(provider: string, workload: string, limit: number): Run[];
  /** Every run not ended, in queue order: what memory is rebuilt from. */
  activeRuns(): Run[];
  listRuns(q: ListQuery): Run[];
  countRuns(): number;
  /** The queue_seq the next inserted run takes. */
  nextQueueSeq(): number;
  /** The environment a run was queued with and its id, or null. */
  launchEnv(uuid: string): { id: string; env: Readonly<Record<string, string>> } | null;
  eventsSince(seq: number, limit?: number): RunEvent[];
  /** The newest event's seq (0 for none). */
  lastSeq(): number;
  /** The oldest event kept (0 when none). */
  firstSeq(): number;
  /** The newest events about a loop, oldest first. */
  loopEvents(name: string, limit: number): RunEvent[];
  /** Every loop, with the environment its runs start with. */
  loops(): { record: Loop; env: Record<string, string> | null }[];
  getMeta<T>(key: string): T | null;
  /** A request by id, or null. */
  approval(id: number): ApprovalRecord | null;
  /** A run's request by its agent's ref, or null. */
  approvalByRef(run: string, ref: string): ApprovalRecord | null;
  /** Every request of a run, oldest first. */
  approvalsOf(run: string): ApprovalRecord[];
  /** A run's pending requests, oldest first. */
  pendingApprovalsOf(run: string): ApprovalRecord[];
  /** The home's pending requests, oldest first, at most `limit`. */
  pendingApprovals(limit: number): ApprovalRecord[];
  /** The home's newest requests, newest first, at most `limit`. */
  recentApprovals(limit: number): ApprovalRecord[];
  /** Fleet usage from `sinceTs` on. */
  usageSince(sinceTs: number): { tokens: number; cost: number };
  spend(
    sinceTs: number,
    nowTs: number,
    minutes: number,
  ): { providers: SpendRow[]; workloads: SpendRow[]; perMinute: { minute: number; tokens: number; cost: number }[] };
  /** What a collection before `before` would remove (retention's dry run). */
  gcPlan(before: number): { uuids: string[]; events: number; bytes: number };
  /** Where the event log's part from before `before` ends, or null when none is (retention.ts' lastEventBefore). */
  lastEventBefore(before: number): number | null;
  /** The journal's size on disk (database and WAL), in bytes. */
  fileBytes(): number;
  /** Hears every committed event, with the row written beside it; returns how to stop hearing. */
  onEvent(fn: EventListener): () => void;
}

export function readerOf(j: Journal): JournalReader {
  return Object.freeze({
    getRun: (uuid) => j.getRun(uuid),
    nameOf: (uuid) => j.nameOf(uuid),
    childrenOf: (uuid) => j.childrenOf(uuid),
    runsByName: (name) => j.runsByName(name),
    runsByPrefix: (prefix) => j.runsByPrefix(prefix),
    runsWithWorktree: () => j.runsWithWorktree(),
    runsByWorkload: (provider, workload, limit) => j.runsByWorkload(provider, workload, limit),
    activeRuns: () => j.activeRuns(),
    listRuns: (q) => j.listRuns(q),
    countRuns: () => j.countRuns(),
    nextQueueSeq: () => j.nextQueueSeq(),
    launchEnv: (uuid) => j.launchEnv(uuid),
    eventsSince: (seq, limit) => j.eventsSince(seq, limit),
    lastSeq: () => j.lastSeq(),
    firstSeq: () => j.firstSeq(),
    loopEvents: (name, limit) => j.loopEvents(name, limit),
    loops: () => j.loops(),
    getMeta: <T>(key: string) => j.getMeta<T>(key),
    approval: (id) => j.approval(id),
    approvalByRef: (run, ref) => j.approvalByRef(run, ref),
    approvalsOf: (run) => j.approvalsOf(run),
    pendingApprovalsOf: (run) => j.pendingApprovalsOf(run),
    pendingApprovals: (limit) => j.pendingApprovals(limit),
    recentApprovals: (limit) => j.recentApprovals(limit),
    usageSince: (since) => j.usageSince(since),
    spend: (since, now, minutes) => j.spend(since, now, minutes),
    gcPlan: (before) => j.retention.gcPlan(before),
    lastEventBefore: (before) => j.retention.lastEventBefore(before),
    fileBytes: () => j.retention.fileBytes(),
    onEvent: (fn) => j.onEvent(fn),
  } satisfies JournalReader);
}
