// Plain-data fixtures for the TUI's pure logic and component tests: runs,
// events and stats results in the protocol's shapes.

import type { StreamMessage } from '../../src/client/client.js';
import type { EventData, EventType, RunEvent } from '../../src/core/events.js';
import type { PublicRun } from '../../src/protocol/views.js';
import type { CapUsage } from '../../src/core/admission.js';
import type { ResultOf } from '../../src/protocol/methods.js';
import type { ClusterState } from '../../src/protocol/results.js';
import { normalizeStats, type Stats } from '../../src/tui/state/stats.js';

export const T0 = Date.parse('2026-01-01T10:00:00Z');
const iso = (t: number): string => new Date(t).toISOString();

let n = 0;
export function run(over: Partial<PublicRun> = {}): PublicRun {
  n++;
  const uuid = over.uuid ?? `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;
  const status = over.status ?? 'working';
  return {
    uuid,
    name: `run-${n}`,
    provider: 'claude',
    workload: 'default',
    protocol: 'jsonl',
    status,
    exit_reason: null,
    exit_detail: null,
    exit_code: null,
    exit_note: null,
    blocked_kind: null,
    asking: null,
    denials: 0,
    protocol_errors: { count: 0, last: null },
    rules: { allow: [], deny: [] },
    queue_seq: n,
    queue_position: null,
    pid: status === 'queued' ? null : 4242,
    command: ['sh', '-c', 'sleep 5'],
    cwd: '/tmp',
    interactive: false,
    turns: 0,
    input_seq: 0,
    tokens: { input: 0, output: 0, cached: 0 },
    cost_usd: 0,
    budget: {
      turns: { used: 0, limit: null, fraction: null, warn: false },
      tokens: { used: 0, limit: null, fraction: null, warn: false },
      cost_usd: { used: 0, limit: null, fraction: null, warn: false },
      time_ms: { used: 0, limit: null, fraction: null, warn: false },
    },
    held_until: null,
    env_keys: [],
    lease: null,
    waiting: null,
    loop: { detected: false, warned: false, repetitions: 0 },
    stalled_since: null,
    session_id: null,
    agent_retry: null,
    attempts: [],
    last_tool: null,
    last_text: null,
    created_at: iso(T0),
    started_at: status === 'queued' ? null : iso(T0 + 1000),
    ended_at: status === 'ended' ? iso(T0 + 61_000) : null,
    status_at: iso(T0 + 1000),
    parent: null,
    depth: 0,
    children: [],
    after: [],
    after_any: false,
    dependents: [],
    rollup: { tokens: { input: 0, output: 0, cached: 0 }, cost_usd: 0 },
    worktree: null,
    ...over,
  };
}

/**
 * An event of a known type, with what the test says of its data: the TUI reads
 * the fields it shows and must not trip on the ones a test leaves out.
 */
export function ev<T extends EventType>(seq: number, type: T, runId: string | null, data?: Partial<EventData[T]>): RunEvent;
export function ev(seq: number, type: EventType, runId: string | null, data: Record<string, unknown> = {}): RunEvent {
  return offType({ seq, ts: T0 + seq * 1000, run: runId, type, data });
}

export function msg<T extends EventType>(seq: number, type: T, r: PublicRun | null, data: Partial<EventData[T]> = {}): StreamMessage {
  return { type: 'event', event: ev(seq, type, r ? r.uuid : null, data), run: r };
}

/** An event as it may arrive off the protocol's types, on purpose: a newer supervisor's type, or data a broken or hostile peer sends. */
export interface OffTypeEvent {
  seq: number;
  ts: number;
  run: string | null;
  type: string;
  data: Record<string, unknown>;
}

export const offType = (e: OffTypeEvent): RunEvent => e as RunEvent;

/** An event of a type this TUI does not know (a newer supervisor's). */
export function foreignEv(seq: number, type: string, runId: string | null, data: Record<string, unknown>): RunEvent {
  return offType({ seq, ts: T0 + seq * 1000, run: runId, type, data });
}

export function foreignMsg(seq: number, type: string, r: PublicRun | null, data: Record<string, unknown>): StreamMessage {
  return { type: 'event', event: foreignEv(seq, type, r ? r.uuid : null, data), run: r };
}

type StatsResult = ResultOf<'stats'>;

/** A cap's usage as stats reports it, with what a test does not say at its idle value. */
function capUsage(over: Partial<CapUsage> & { cap: string }): CapUsage {
  return { limit: 1, active: 0, holders: [], queued: 0, oldest_wait_ms: 0, reserved: 0, waiting: [], held_until: null, priority: null, ...over };
}

function clusterState(over: Partial<ClusterState> & { name: string }): ClusterState {
  return {
    host: 'here',
    available: true,
    since: T0,
    error: null,
    notifications: 'arriving',
    notifications_detail: null,
    listen: 'url',
    machines: [],
    machines_at: null,
    seen_at: null,
    ...over,
  };
}

export interface StatsOver extends Partial<Omit<StatsResult, 'caps' | 'cluster'>> {
  caps?: (Partial<CapUsage> & { cap: string })[];
  cluster?: (Partial<ClusterState> & { name: string }) | null;
}

/** A `stats` result as the supervisor sends it: what the test says, the rest as on an idle supervisor. */
function statsResult(over: StatsOver = {}): StatsResult {
  const { caps = [], cluster = null, ...rest } = over;
  return {
    names: {},
    queued: 0,
    active: 0,
    holds: {},
    account_holds: [],
    quotas: [],
    fleet: { exceeded: false, window: 'all', meters: {} },
    warnings: [],
    config_error: null,
    paused: false,
    draining: false,
    degraded: null,
    ...rest,
    caps: caps.map(capUsage),
    cluster: cluster === null ? null : clusterState(cluster),
  };
}

/** The TUI's stats from such a result. */
export const statsOf = (over: StatsOver = {}): Stats => normalizeStats(statsResult(over));
