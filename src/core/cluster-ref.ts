// How a run (or a request) of another machine is named: `HOST:NAME`,
// `HOST:UUID-PREFIX`, `HOST:12` for a request. Run names may hold a colon
// themselves, so a ref is another machine's only when the part before its
// first colon is a machine of the cluster, other than this one; a local run
// named the whole ref as well makes it ambiguous, and the caller refuses it
// naming both. Pure: the hosts and the local names are given.

export interface RemoteRef {
  host: string;
  /** The ref as that machine's own supervisor reads it. */
  ref: string;
}

export type RefPlace =
  { kind: 'local'; ref: string } | { kind: 'remote'; host: string; ref: string } | { kind: 'ambiguous'; host: string; ref: string; local: string };

/** The machine prefix of a ref, whether or not it names a machine. */
export function splitRef(ref: string): RemoteRef | null {
  const i = ref.indexOf(':');
  if (i <= 0 || i === ref.length - 1) return null;
  return { host: ref.slice(0, i), ref: ref.slice(i + 1) };
}

/**
 * Where a ref points. `self` is this machine's host name: `self:NAME` is a
 * local ref. `hosts` are the cluster's machines; `localExists` tells whether
 * a local run answers to the whole ref.
 */
export function placeRef(ref: string, self: string, hosts: ReadonlySet<string>, localExists: (ref: string) => boolean): RefPlace {
  const split = splitRef(ref);
  if (!split || !hosts.has(split.host)) return { kind: 'local', ref };
  if (split.host === self) return localExists(ref) ? { kind: 'local', ref } : { kind: 'local', ref: split.ref };
  if (localExists(ref)) return { kind: 'ambiguous', host: split.host, ref: split.ref, local: ref };
  return { kind: 'remote', host: split.host, ref: split.ref };
}

/** How a run of another machine is shown: `HOST:NAME`. */
export function remoteName(host: string, name: string): string {
  return `${host}:${name}`;
}
