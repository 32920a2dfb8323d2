// The fleet view's decisions, pure: whether a machine's published runs are
// current, stale or gone (its heartbeat's age on the database's clock, never
// a machine's), which dirty runs one flush writes, and which published run a
// reference names — `HOST:NAME`, `HOST:UUID-PREFIX`, or a bare name another
// machine has (several: ambiguous, naming each).

import { placeRef, remoteName } from './cluster-ref.js';

export type MachineFreshness = 'current' | 'stale' | 'gone';

/**
 * A machine by its heartbeat's age (ms, on the database's clock): stale once
 * older than staleAfter (it stopped renewing its lease), gone — not listed,
 * its rows deleted — once older than goneAfter. A machine absent from the
 * cluster's list (forgotten) has no age: gone.
 */
export function freshness(ageMs: number | null, staleAfterMs: number, goneAfterMs: number): MachineFreshness {
  if (ageMs === null || ageMs > goneAfterMs) return 'gone';
  return ageMs > staleAfterMs ? 'stale' : 'current';
}

/**
 * The runs one flush writes: at most `max`, oldest marked first (a Set keeps
 * insertion order), taken out of `dirty`; the rest wait for the next flush.
 */
export function takeBatch(dirty: Set<string>, max: number): string[] {
  const out: string[] = [];
  for (const uuid of dirty) {
    if (out.length >= max) break;
    out.push(uuid);
  }
  for (const uuid of out) dirty.delete(uuid);
  return out;
}

/** What a reference needs of a published run. */
export interface Published {
  host: string;
  uuid: string;
  name: string;
  status: string;
}

export type Lookup<R extends Published> =
  { kind: 'found'; run: R } | { kind: 'local'; ref: string } | { kind: 'ambiguous'; names: string[] } | { kind: 'none'; host: string | null; ref: string };

/** Runs of one machine a ref names: by name (an active one before ended ones, the newest), else by a uuid prefix of 4+. */
function match<R extends Published>(rows: readonly R[], ref: string): R[] {
  const named = rows.filter((r) => r.name === ref);
  if (named.length > 0) {
    const active = named.filter((r) => r.status !== 'ended');
    return active.length > 0 ? active : named.slice(-1);
  }
  return ref.length >= 4 ? rows.filter((r) => r.uuid.startsWith(ref)) : [];
}

/**
 * Which published run `ref` names, seen from machine `self`. `HOST:REF` of
 * another machine looks among that machine's runs; a ref of this machine is
 * local (the caller's own lookup answers it); a bare ref that is no local
 * run (`localExists`) is looked for on every other machine: one match is it,
 * several are ambiguous (each named HOST:NAME).
 */
export function lookupPublished<R extends Published>(
  ref: string,
  self: string,
  hosts: ReadonlySet<string>,
  rows: readonly R[],
  localExists: (ref: string) => boolean,
): Lookup<R> {
  const place = placeRef(ref, self, hosts, localExists);
  if (place.kind === 'ambiguous') return { kind: 'ambiguous', names: [`${place.local} (this machine's)`, remoteName(place.host, place.ref)] };
  if (place.kind === 'remote') {
    const found = match(
      rows.filter((r) => r.host === place.host),
      place.ref,
    );
    if (found.length === 1) return { kind: 'found', run: found[0]! };
    if (found.length > 1) return { kind: 'ambiguous', names: found.map((r) => remoteName(r.host, r.uuid.slice(0, 8))) };
    return { kind: 'none', host: place.host, ref: place.ref };
  }
  if (localExists(place.ref)) return { kind: 'local', ref: place.ref };
  // Each other machine on its own: one of them with a run ended and one active is still two machines' runs.
  const hosts2 = [...new Set(rows.filter((r) => r.host !== self).map((r) => r.host))];
  const others = hosts2.flatMap((h) =>
    match(
      rows.filter((r) => r.host === h),
      place.ref,
    ),
  );
  if (others.length === 1) return { kind: 'found', run: others[0]! };
  if (others.length > 1) return { kind: 'ambiguous', names: others.map((r) => remoteName(r.host, r.name)) };
  return { kind: 'local', ref: place.ref };
}
