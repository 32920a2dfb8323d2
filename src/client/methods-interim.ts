// INTERIM: what each socket method takes and answers, as the clients see it,
// until src/protocol's one method table lands; then this file becomes
// re-exports of it and nothing else changes (every client call site is
// `call('run.kill', {…})`, typed from here, with no type argument of its own).
// Type-only imports from the server: nothing of the supervisor is loaded.

import type { RunEvent } from '../core/events.js';
import type { ClusterState } from '../server/cluster-link.js';
import type { FireOutcome, PublicLoop, PublicLoopRun } from '../server/loops.js';
import type { SpendReply, Stats } from '../server/queries.js';
import type { GcResult } from '../server/retention.js';
import type { PublicRun } from '../protocol/views.js';
import type { Settled } from '../server/waits.js';
import type { FinishMode, LetGo } from '../server/worktrees.js';

export type { PublicRun, Settled, Stats, SpendReply, ClusterState, PublicLoop, PublicLoopRun, FireOutcome, GcResult, LetGo, FinishMode };

type Env = Record<string, string>;

/** One line of `run.kill`'s answer. */
export interface KillResult {
  ref: string;
  name: string | null;
  uuid: string | null;
  action: 'killing' | 'canceled' | 'already_ended' | 'not_found';
  status: string | null;
  exit_reason: string | null;
  /** Active runs below it killed with it (present only when there were some; none with keep_children). */
  descendants?: string[];
}

export interface RunFilter {
  all?: boolean;
  status?: string;
  provider?: string;
  workload?: string;
  name?: string;
}

export interface ServerStatus {
  pid: number;
  home: string;
  started_at: number;
  active: number;
  queued: number;
  seq: number;
  degraded: string | null;
  clients: number;
  warnings: string[];
  config_error: { at: number; message: string } | null;
  cluster: ClusterState | null;
  paused: boolean;
  draining: boolean;
}

export interface SubscribeReply {
  seq: number;
  runs?: PublicRun[];
  total?: number;
  truncated?: boolean;
  events?: RunEvent[];
  names?: Record<string, string>;
  more?: boolean;
  pruned?: { first_seq: number };
}

export interface LoopCreateParams {
  name: string;
  cron?: string;
  once_at?: string;
  tz: string;
  max_concurrency?: number;
  overlap?: 'queue' | 'skip';
  timeout_ms?: number | null;
  command: string[];
  cwd: string;
  caller_env?: Env;
}

/** The error codes are the protocol's (src/protocol/errors.ts). */
export type { ErrorCode as RemoteErrorCode } from '../protocol/errors.js';
export { ERROR_CODES as REMOTE_ERROR_CODES } from '../protocol/errors.js';

/** Every method the supervisor's socket serves: its params and its result. */
export interface Methods {
  hello: { params: { version: number }; result: { version: number; pid: number; home: string; started_at: number } };
  /** `specs` are checked by the supervisor (the run-spec schema); a client may send them unchecked. */
  'run.enqueue': { params: { specs: unknown[]; caller_env?: Env }; result: { runs: PublicRun[]; warnings?: string[] } };
  'run.list': { params: { all?: boolean; status?: string; provider?: string; limit?: number; before?: number }; result: { runs: PublicRun[]; next: number | null } };
  'run.get': { params: { ref: string; env?: boolean }; result: { run: PublicRun; env?: Env } };
  'run.kill': { params: { refs: string[]; force?: boolean; keep_children?: boolean }; result: { results: KillResult[] } };
  'run.send': { params: { ref: string; text: string }; result: { run: PublicRun } };
  'run.wait': { params: { refs?: string[]; all?: boolean; timeout_ms?: number | null; caller_env?: Env }; result: { settled: Settled[] } };
  'run.resolve': { params: { ref: string }; result: { uuid: string; name: string; dir: string; protocol: string | null; status: string } };
  'run.select': { params: RunFilter; result: { runs: { uuid: string; name: string; status: string }[] } };
  'run.takeover': { params: { ref: string; now?: boolean }; result: { run: PublicRun } };
  'run.rerun': { params: { ref: string }; result: { run: PublicRun } };
  'run.diff': { params: { ref: string; stat?: boolean }; result: { text: string; added: number; removed: number; files: number } };
  stats: { params: Record<string, never>; result: Stats };
  spend: { params: Record<string, never>; result: SpendReply };
  'provider.resume': { params: { provider: string }; result: { resumed: boolean } };
  events: { params: { since?: number; limit?: number }; result: { events: RunEvent[]; names: Record<string, string> } };
  subscribe: { params: { since?: number; snapshot?: boolean; rows?: boolean }; result: SubscribeReply };
  'server.status': { params: Record<string, never>; result: ServerStatus };
  'server.stop': { params: { mode?: 'leave' | 'drain' | 'kill_agents' }; result: { stopping: true; waiting_for?: number; queued: number; paused: boolean } };
  'cluster.status': { params: Record<string, never>; result: ClusterState };
  'cluster.forget': { params: { host: string }; result: { host: string; forgotten: boolean; alive: boolean } };
  gc: { params: { older_than_ms?: number; dry_run?: boolean; force?: boolean; branches?: boolean }; result: GcResult & { worktrees: LetGo[] } };
  'worktree.finish': { params: { ref: string; mode: FinishMode }; result: { run: PublicRun; merged_into?: string; committed: boolean } };
  'worktree.prune': { params: { force?: boolean; dry_run?: boolean }; result: { worktrees: LetGo[] } };
  'queue.pause': { params: { paused: boolean }; result: { paused: boolean; queued: number } };
  'loop.create': { params: LoopCreateParams; result: { loop: PublicLoop } };
  'loop.list': { params: Record<string, never>; result: { loops: PublicLoop[] } };
  'loop.get': { params: { name: string }; result: { loop: PublicLoop } };
  'loop.pause': { params: { name: string; paused: boolean }; result: { loop: PublicLoop } };
  'loop.remove': { params: { name: string; kill_active?: boolean }; result: { removed: string; killed: string[] } };
  'loop.events': { params: { name: string; limit?: number }; result: { events: RunEvent[] } };
  'loop.start': { params: { name: string }; result: FireOutcome };
  'loop.stop': { params: { name: string }; result: { stopped: string[] } };
  'loop.runs': { params: { name: string; limit?: number }; result: { runs: PublicLoopRun[] } };
}

export type Method = keyof Methods;

/** Every method by name, at run time (the SDK's coverage test walks it). */
export const METHOD_NAMES = [
  'hello',
  'run.enqueue',
  'run.list',
  'run.get',
  'run.kill',
  'run.send',
  'run.wait',
  'run.resolve',
  'run.select',
  'run.takeover',
  'run.rerun',
  'run.diff',
  'stats',
  'spend',
  'provider.resume',
  'events',
  'subscribe',
  'server.status',
  'server.stop',
  'cluster.status',
  'cluster.forget',
  'gc',
  'worktree.finish',
  'worktree.prune',
  'queue.pause',
  'loop.create',
  'loop.list',
  'loop.get',
  'loop.pause',
  'loop.remove',
  'loop.events',
  'loop.start',
  'loop.stop',
  'loop.runs',
] as const satisfies readonly Method[];

// The list names every method once: a method added to Methods but not here fails to compile.
type Missing = Exclude<Method, (typeof METHOD_NAMES)[number]>;
const _everyMethodListed: [Missing] extends [never] ? true : Missing = true;
void _everyMethodListed;
