// A call on another machine's runs (issue 43), decided as data: which
// machine a call is for (its refs, or the machine it names), the params as
// that machine's supervisor reads them, whether a machine may be sent a
// command now, who answered as the owner records it, and the owner's answer
// renamed for the caller. Pure: the hosts, the local names and the ages are
// given; time is the database's, passed in as ages.

import { placeRef, remoteName, splitRef } from './cluster-ref.js';

/**
 * How a method's call travels to another machine (its entry in the method
 * table): `refs` names the param that holds run refs (a string, or an
 * array), each `HOST:REF` of another machine; `host` a param that names the
 * machine itself (`--host b`), dropped before it is sent; `who` a param the
 * owner rewrites to say the answer came from another machine; `local`
 * params meaningful on the caller's machine only (its ORCR_RUN), dropped;
 * `waits` a call that lasts (a wait) beyond the command's deadline; `after`
 * run specs whose inputs may be another machine's runs.
 */
export interface RemoteSpec<K extends string = string> {
  readonly refs?: K;
  readonly host?: K;
  readonly who?: K;
  readonly local?: readonly K[];
  /** The param that says how long the call takes by design (a wait's timeout; none: as long as its runs take). */
  readonly waits?: K;
  /** A param of run specs whose `after` may name another machine's runs: each resolved there to `HOST:UUID`, the call staying here. */
  readonly after?: K;
}

/** A run of another machine as a dependent's input (run --after HOST:RUN): `HOST:UUID`; null for a local input. */
export function remoteInput(id: string): { host: string; uuid: string } | null {
  const m = /^(.+):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(id);
  return m ? { host: m[1]!, uuid: m[2]! } : null;
}

export type CallPlace =
  | { kind: 'local' }
  | { kind: 'remote'; host: string; params: Record<string, unknown>; renamed: Map<string, string> }
  | { kind: 'refused'; code: 'usage' | 'ambiguous' | 'not_found'; message: string };

export interface Cluster {
  /** This machine's host name. */
  self: string;
  name: string;
  /** The cluster's machines (this one included). */
  hosts: ReadonlySet<string>;
}

const q = (s: string): string => JSON.stringify(s);

/**
 * Where a call goes: here, or one other machine with its params rewritten
 * (refs as that machine names them; `renamed` maps each back to the ref the
 * caller gave). Refs of two machines in one call are refused (one machine a
 * call); a ref whose prefix is a machine and also a local run's whole name
 * is ambiguous.
 */
export function placeCall(spec: RemoteSpec | undefined, params: Record<string, unknown>, c: Cluster, localExists: (ref: string) => boolean): CallPlace {
  if (!spec) return { kind: 'local' };
  const named = spec.host === undefined ? undefined : params[spec.host];
  if (typeof named === 'string' && named !== '') return byHost(spec, params, c, named);
  if (spec.refs === undefined) return { kind: 'local' };
  const raw = params[spec.refs];
  const refs = typeof raw === 'string' ? [raw] : Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
  const hosts = new Set<string>();
  const renamed = new Map<string, string>();
  const out: string[] = [];
  for (const ref of refs) {
    const p = placeRef(ref, c.self, c.hosts, localExists);
    if (p.kind === 'ambiguous') {
      return {
        kind: 'refused',
        code: 'ambiguous',
        message: `${q(ref)} names a run here and run ${q(p.ref)} of machine ${q(p.host)}: rename the local run, or use its uuid`,
      };
    }
    if (p.kind === 'local') {
      const split = splitRef(ref);
      if (split && !c.hosts.has(split.host) && !localExists(ref) && refs.length === 1) {
        return { kind: 'refused', code: 'not_found', message: `no run ${q(ref)} here, and no machine ${q(split.host)} in cluster ${q(c.name)}` };
      }
      hosts.add(c.self);
      out.push(p.ref);
      continue;
    }
    hosts.add(p.host);
    renamed.set(p.ref, ref);
    out.push(p.ref);
  }
  if (hosts.size > 1) {
    return {
      kind: 'refused',
      code: 'usage',
      message: `runs of several machines in one call (${[...hosts].sort().join(', ')}): name one machine's runs at a time`,
    };
  }
  const [host] = hosts;
  if (host === undefined || host === c.self) return { kind: 'local' };
  const rest = withoutLocal(spec, params);
  rest[spec.refs] = typeof raw === 'string' ? out[0] : out;
  return { kind: 'remote', host, params: rest, renamed };
}

function byHost(spec: RemoteSpec, params: Record<string, unknown>, c: Cluster, host: string): CallPlace {
  if (!c.hosts.has(host)) return { kind: 'refused', code: 'not_found', message: `no machine ${q(host)} in cluster ${q(c.name)}` };
  const rest = withoutLocal(spec, params);
  delete rest[spec.host!];
  return host === c.self ? { kind: 'local' } : { kind: 'remote', host, params: rest, renamed: new Map() };
}

function withoutLocal(spec: RemoteSpec, params: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...params };
  for (const k of spec.local ?? []) delete rest[k];
  return rest;
}

/** A machine as the database tells of it when a command is to be sent. */
export interface MachineRow {
  /** How long since its heartbeat, on the database's clock. */
  age_ms: number;
  accept_commands: boolean;
}

export type Refusal = { code: 'unavailable' | 'refused' | 'not_found'; message: string };

/** Whether a command may be sent to `host` now: it is known, heard from within `staleAfterMs`, and accepts commands. */
export function machineVerdict(host: string, cluster: string, m: MachineRow | null, staleAfterMs: number): Refusal | null {
  if (m === null) return { code: 'not_found', message: `no machine ${q(host)} in cluster ${q(cluster)}` };
  if (m.age_ms > staleAfterMs) {
    return { code: 'unavailable', message: `machine ${host} is not answering (last heard ${ago(m.age_ms)} ago); nothing was sent to it` };
  }
  if (!m.accept_commands)
    return { code: 'refused', message: `machine ${host} does not take commands from other machines (its cluster.accept_commands is false)` };
  return null;
}

/** `350ms`, `12s`, `2m`, `3h`, `2d`: how long ago, roughly. */
export function ago(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)}m`;
  if (ms < 86_400_000) return `${Math.round(ms / 3_600_000)}h`;
  return `${Math.round(ms / 86_400_000)}d`;
}

/** Who answered, as the owner records it: the person and the machine they answered from. */
export function remoteWho(from: string, who: unknown): string {
  const text = typeof who === 'string' && who !== '' ? `${who} on ${from} (via cluster)` : `${from} (via cluster)`;
  return text.length > 200 ? text.slice(0, 199) + '…' : text;
}

/**
 * The owner's answer as the caller shows it: each run (an object with a
 * uuid and a name) named `HOST:NAME`, each request (a numeric id and a run)
 * given its `host`, and each ref the caller gave restored.
 */
export function renameAnswer(value: unknown, host: string, renamed: ReadonlyMap<string, string>, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => renameAnswer(v, host, renamed, depth + 1));
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) o[k] = renameAnswer(v, host, renamed, depth + 1);
  if (typeof o.uuid === 'string' && typeof o.name === 'string') o.name = remoteName(host, o.name);
  if (typeof o.id === 'number' && 'run' in o) {
    o.host = host;
    if (typeof o.name === 'string' && !o.name.startsWith(`${host}:`)) o.name = remoteName(host, o.name);
  }
  for (const k of ['ref', 'target'] as const) {
    const v = o[k];
    if (typeof v === 'string' && renamed.has(v)) o[k] = renamed.get(v);
  }
  return o;
}
