// The fleet as the TUI holds it in cluster scope (`m`): every other
// machine's runs as their machines published them (cluster.runs, read by
// connection/fleet-reads.ts), kept as rows of the same shape as this
// machine's, so the list, its columns, its keys and details work on them
// unchanged. A row of another machine is keyed by its ref `HOST:UUID` and
// named `HOST:NAME`: what a key sends with it (kill, send, wait, answers) is
// a ref the supervisor forwards to that machine (server/cluster-calls.ts).
// Their pending requests join the approvals queue under keys of their own
// (negative: never one of this machine's ids), answered by `HOST:ID`. Pure.

import type { ClusterRunsReply } from '../../protocol/results.js';
import type { ClusterRun, FleetMachine, PublicRun } from '../../protocol/views.js';
import type { Request, Requests } from './approvals.js';
import { clean, safeRun } from './safe-text.js';

export type Scope = 'machine' | 'cluster';

export interface Fleet {
  /** This machine's host name in the cluster (its runs are named plainly), once read. */
  host: string | null;
  cluster: string | null;
  /** Other machines' runs as rows, by `HOST:UUID`. */
  byId: Readonly<Record<string, PublicRun>>;
  /** Their faces as published (details show them), by the same key. */
  faces: Readonly<Record<string, ClusterRun>>;
  /** Which machine each listed run is on, this machine's included (by uuid for its own, by key for the others'). */
  hostOf: Readonly<Record<string, string>>;
  /** Another machine's run by its uuid (a limiter holder is named by uuid): its key here. */
  keyOfUuid: Readonly<Record<string, string>>;
  machines: readonly FleetMachine[];
  /** When the view was read (ms), and, while the database does not answer, since when the view is the last good read. */
  asOf: number | null;
  staleSince: number | null;
  /** Request keys given to other machines' requests, by `HOST:ID`, so a request keeps its key (and the queue its place) from read to read. */
  requestKeys: Readonly<Record<string, number>>;
}

export const NO_FLEET: Fleet = {
  host: null,
  cluster: null,
  byId: {},
  faces: {},
  hostOf: {},
  keyOfUuid: {},
  machines: [],
  asOf: null,
  staleSince: null,
  requestKeys: {},
};

const time = (iso: string | null): number | null => {
  const t = iso === null ? NaN : Date.parse(iso);
  return Number.isFinite(t) ? t : null;
};

/** Another machine's run as a row of the list: what its face says, and nothing of what stays on its machine (command, directory, output). */
export function remoteRow(c: ClusterRun): PublicRun {
  const key = `${c.host}:${c.uuid}`;
  const first = c.approvals[0];
  return safeRun({
    uuid: key,
    name: c.ref,
    provider: c.provider,
    workload: c.workload,
    protocol: null,
    status: c.status,
    exit_reason: c.exit_reason,
    exit_detail: c.exit_detail,
    exit_code: c.exit_code,
    exit_note: null,
    blocked_kind: c.blocked_kind,
    asking: first
      ? { id: first.id, summary: clean(first.summary), question: first.question, deadline_at: first.deadline_at, more: c.approvals.length - 1 }
      : null,
    denials: c.denials ?? 0,
    protocol_errors: { count: 0, last: null },
    rules: { allow: [], deny: [] },
    queue_seq: 0,
    queue_position: c.queue_position,
    pid: null,
    command: [],
    cwd: '',
    interactive: c.interactive,
    turns: c.turns,
    input_seq: 0,
    tokens: c.tokens,
    cost_usd: c.cost_usd,
    budget: c.budget,
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
    created_at: c.created_at,
    started_at: c.started_at,
    ended_at: c.ended_at,
    status_at: c.status_at,
    // Its parent and inputs are runs of its own machine: keyed as they are here.
    parent: c.parent ? `${c.host}:${c.parent}` : null,
    depth: 0,
    children: [],
    after: c.after.map((u) => `${c.host}:${u}`),
    after_any: c.after_any,
    dependents: [],
    rollup: { tokens: c.tokens, cost_usd: c.cost_usd },
    worktree: c.worktree ? { ...c.worktree, repo: '', path: '', base_commit: '' } : null,
  });
}

/** The same row object when the face did not change since the last read: a row redraws only when its run moved. */
function keptRow(prev: Fleet, key: string, c: ClusterRun): PublicRun {
  const old = prev.faces[key];
  const row = prev.byId[key];
  return old && row && old.published_at === c.published_at && old.stale === c.stale && old.ref === c.ref ? row : remoteRow(c);
}

/** cluster.runs' answer as the fleet the TUI holds; `now` the TUI's clock, for the freshness it shows. */
export function fleetOf(prev: Fleet, reply: ClusterRunsReply, now: number): Fleet {
  const byId: Record<string, PublicRun> = {};
  const faces: Record<string, ClusterRun> = {};
  const hostOf: Record<string, string> = {};
  const keyOfUuid: Record<string, string> = {};
  for (const c of reply.runs) {
    if (c.local) {
      hostOf[c.uuid] = c.host;
      continue;
    }
    const key = `${c.host}:${c.uuid}`;
    byId[key] = keptRow(prev, key, c);
    faces[key] = c;
    hostOf[key] = c.host;
    keyOfUuid[c.uuid] = key;
  }
  return {
    host: reply.host,
    cluster: reply.cluster,
    byId,
    faces,
    hostOf,
    keyOfUuid,
    machines: reply.machines,
    asOf: time(reply.as_of) ?? now,
    staleSince: time(reply.stale_since),
    requestKeys: prev.requestKeys,
  };
}

/** A row's machine is not answering (its heartbeat is older than its lease allows): its row is the last it said. */
export const staleRow = (f: Fleet, key: string): boolean => f.faces[key]?.stale === true;

/** The run a key names, this machine's or (in cluster scope) another's. */
export function runOf(s: { runs: { byId: Readonly<Record<string, PublicRun>> }; fleet: Fleet }, key: string): PublicRun | undefined {
  return s.runs.byId[key] ?? s.fleet.byId[key];
}

/** The key is another machine's run. */
export const isRemote = (s: { fleet: Fleet }, key: string): boolean => s.fleet.faces[key] !== undefined;

/** This machine's rows and the other machines', as one map to list (a new one: only in cluster scope). */
export function withFleet(local: Readonly<Record<string, PublicRun>>, f: Fleet): Readonly<Record<string, PublicRun>> {
  const out: Record<string, PublicRun> = {};
  for (const k in local) out[k] = local[k]!;
  for (const k in f.byId) out[k] = f.byId[k]!;
  return out;
}

/** The listed ids grouped by machine, this machine's first, then the others by name; the order inside each kept. */
export function byMachine(ids: readonly string[], f: Fleet): string[] {
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const host = f.faces[id]?.host ?? '';
    let g = groups.get(host);
    if (!g) groups.set(host, (g = []));
    g.push(id);
  }
  const hosts = [...groups.keys()].sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return hosts.flatMap((h) => groups.get(h)!);
}

/**
 * The requests queue with other machines' pending requests as the fleet
 * has them (this machine's own come from its events, as they always do):
 * each under a key of its own, its ref `HOST:ID` what answers it. A
 * request's time is its run's last change (the face does not carry when it
 * was asked). `fleet` null: other machines' requests leave the queue.
 */
export function withFleetRequests(reqs: Requests, fleet: Fleet | null): { requests: Requests; requestKeys: Readonly<Record<string, number>> } {
  const byId: Record<number, Request> = {};
  for (const id of reqs.ids) if (id > 0) byId[id] = reqs.byId[id]!;
  let requestKeys = fleet?.requestKeys ?? {};
  if (fleet) {
    let next = Object.values(requestKeys).reduce((m, k) => Math.min(m, k), 0);
    for (const key in fleet.faces) {
      const c = fleet.faces[key]!;
      for (const a of c.approvals) {
        const ref = `${c.host}:${a.id}`;
        let k = requestKeys[ref];
        if (k === undefined) {
          requestKeys = { ...requestKeys, [ref]: --next };
          k = next;
        }
        byId[k] = {
          id: k,
          ref,
          host: c.host,
          run: key,
          name: clean(c.ref),
          // The face carries the summary only, which leads with the tool (`Write: README.md`).
          tool: a.question ? 'question' : clean(a.summary.split(': ')[0] ?? ''),
          summary: clean(a.summary),
          question: a.question,
          questions: null,
          always: null,
          // Older machines publish neither when it was asked nor what its deadline decides.
          askedAt: time(a.asked_at ?? c.status_at) ?? 0,
          deadlineAt: time(a.deadline_at),
          onTimeout: a.on_timeout ?? null,
          partial: false,
        };
      }
    }
  }
  const ids = Object.keys(byId)
    .map(Number)
    .sort((a, b) => byId[a]!.askedAt - byId[b]!.askedAt || Math.abs(a) - Math.abs(b));
  return { requests: { byId, ids, gone: reqs.gone }, requestKeys };
}
