// What a slot is counted against: the global cap, a provider's or a
// workload's. On the wire (stats' `cap`, a cluster's over-cap event) a cap is
// the string `global`, `provider:NAME` or `workload:NAME`, which users'
// scripts read; in code it is a Cap, turned into that string and back only
// here, so the form is written once.

export type Cap = { kind: 'global' } | { kind: 'provider' | 'workload'; name: string };

export const GLOBAL_CAP: Cap = Object.freeze({ kind: 'global' });

/** The cap as the wire names it: `global`, `provider:NAME`, `workload:NAME`. */
export function capKey(cap: Cap): string {
  return cap.kind === 'global' ? 'global' : `${cap.kind}:${cap.name}`;
}

/**
 * A wire name read back, or null for one of no kind known here (a newer
 * supervisor's). A name may hold colons (a loop's workload is `loop:NAME`):
 * the kind is what comes before the first.
 */
export function parseCap(key: string): Cap | null {
  if (key === 'global') return GLOBAL_CAP;
  const i = key.indexOf(':');
  const kind = key.slice(0, i);
  return i > 0 && (kind === 'provider' || kind === 'workload') ? { kind, name: key.slice(i + 1) } : null;
}

export const providerCap = (name: string): string => capKey({ kind: 'provider', name });
export const workloadCap = (name: string): string => capKey({ kind: 'workload', name });
